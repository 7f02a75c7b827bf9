//! Every committed fuzz input run through its target's property: the seeds
//! and what campaigns merged into `fuzz/corpus/<target>/`, and every input
//! that ever broke a property, kept in `fuzz/regressions/<target>/`. So
//! the plain test suite checks them all, with no instrumented build.
//!
//! A target whose corpus is missing or empty fails (no test passes for
//! want of inputs), and the targets here must be exactly the fuzz crate's.

use std::fs;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of a folder (not its dot-files such as `.gitkeep`), sorted;
/// none when it does not exist.
fn inputs(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a readable folder").path())
        .filter(|path| {
            path.is_file()
                && !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    files
}

fn run(target: &str, property: fn(&[u8])) {
    let corpus = inputs(&fuzz_dir().join("corpus").join(target));
    assert!(!corpus.is_empty(), "fuzz/corpus/{target}/ has no inputs");
    let regressions = inputs(&fuzz_dir().join("regressions").join(target));
    let mut failures = Vec::new();
    for path in corpus.iter().chain(&regressions) {
        let bytes = fs::read(path).expect("a readable input");
        if let Err(panic) = std::panic::catch_unwind(|| property(&bytes)) {
            failures.push(format!(
                "{}: {}",
                path.display(),
                weft_wire::panic_text(&*panic)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} inputs break the property of `{target}`:\n{}",
        failures.len(),
        corpus.len() + regressions.len(),
        failures.join("\n")
    );
}

macro_rules! targets {
    ($($target:ident),* $(,)?) => {
        $(
            #[test]
            fn $target() {
                run(stringify!($target), weft_props::$target);
            }
        )*
        const TARGETS: &[&str] = &[$(stringify!($target)),*];
    };
}

targets!(
    bases,
    complete_context,
    filter,
    frontmatter_edit,
    headings,
    parse_note,
    positions,
    rename,
    search_query,
    snapshot_decode,
    text_edit,
    wire_framing,
);

/// Each fuzz target is tested here, and each one here is a fuzz target.
#[test]
fn the_fuzz_crate_has_these_targets() {
    let mut found: Vec<String> = inputs(&fuzz_dir().join("fuzz_targets"))
        .iter()
        .filter_map(|path| Some(path.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    found.sort();
    let mut expected: Vec<&str> = TARGETS.to_vec();
    expected.sort();
    assert_eq!(found, expected);
    let manifest = fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    for target in TARGETS {
        assert!(
            manifest.contains(&format!("name = \"{target}\"")),
            "fuzz/Cargo.toml has no [[bin]] `{target}`"
        );
    }
}
