//! Finding notes by meaning, end to end: an agent through the official MCP
//! Python SDK with a model configured (a tiny one the test writes in the
//! real Model2Vec format, `tests/python/tiny_model.py`) and without one; the vectors saved beside the
//! index and read back by the next daemon; `/related` in the wasmtime host.

use std::path::Path;

use weft_e2e::{Sandbox, python_report, tiny_model};

/// Words of one meaning share a vector: vehicles, food, music, weather.
const WORDS: &[(&str, usize)] = &[
    ("car", 0),
    ("automobile", 0),
    ("truck", 0),
    ("engine", 0),
    ("fleet", 0),
    ("bread", 1),
    ("baking", 1),
    ("oven", 1),
    ("guitar", 2),
    ("song", 2),
    ("melody", 2),
    ("band", 2),
    ("rain", 3),
    ("storm", 3),
    ("chess", 4),
    ("pawn", 4),
];

const NOTES: &str = "
//- /garage.md
# Garage
My car needs a new engine.
//- /kitchen.md
# Kitchen
Baking bread in the oven.
//- /band.md
# Band
A guitar song.
//- /fleet.md
Our truck and automobile fleet.
";

fn vault_with_model(sandbox: &Sandbox, model: &Path) -> weft_e2e::TempVault {
    tiny_model(model, WORDS, 8);
    let config = format!(
        "//- /.weft.toml\n[semantic]\nmodel = \"{}\"\n",
        model.display()
    );
    sandbox.vault(&format!("{NOTES}{config}"))
}

#[test]
fn an_agent_finds_notes_by_meaning_and_the_vectors_are_kept() {
    let sandbox = Sandbox::new();
    let model = sandbox.dir("model");
    let vault = vault_with_model(&sandbox, &model);
    let report = python_report(&sandbox, "semantic_agent.py", vault.path(), &["on"]);
    assert_eq!(report["semantic"]["passages"], 4, "{report}");
    // The daemon saved the vectors beside its index snapshot.
    sandbox.stop_daemons();
    let vectors = sandbox.root().join("cache/weft/vectors");
    let files: Vec<_> = std::fs::read_dir(&vectors)
        .unwrap_or_else(|e| panic!("{}: {e}", vectors.display()))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    // The next daemon reads them back, and embeds what changed meanwhile.
    std::fs::write(vault.path().join("fleet.md"), "A chess game.\n").unwrap();
    python_report(&sandbox, "semantic_agent.py", vault.path(), &["again"]);
    let log = daemon_log(&sandbox);
    assert!(log.contains(", the rest saved"), "{log}");
    sandbox.stop_daemons();
}

#[test]
fn a_model_named_by_the_agents_face_is_used_while_the_vault_names_none() {
    // `weft mcp --semantic-model`: what the Zed extension passes from the
    // context server's `semantic_model` setting.
    let sandbox = Sandbox::new();
    let model = sandbox.dir("model");
    tiny_model(&model, WORDS, 8);
    let vault = sandbox.vault(NOTES);
    let model = model.display().to_string();
    let report = python_report(
        &sandbox,
        "semantic_agent.py",
        vault.path(),
        &["flag", &model],
    );
    assert_eq!(report["semantic"]["notes"], 4, "{report}");
    sandbox.stop_daemons();
}

/// Regression: `vault_info` counted the vectors of notes the agent may
/// not see.
#[test]
fn a_denied_note_is_neither_found_by_meaning_nor_counted() {
    let sandbox = Sandbox::new();
    let model = sandbox.dir("model");
    tiny_model(&model, WORDS, 8);
    let config = format!(
        "//- /.weft.toml\n[semantic]\nmodel = \"{}\"\n[agent]\ndeny = [\"garage.md\"]\n",
        model.display()
    );
    let vault = sandbox.vault(&format!("{NOTES}{config}"));
    let report = python_report(&sandbox, "semantic_agent.py", vault.path(), &["denied"]);
    assert_eq!(report["semantic"]["notes"], 3, "{report}");
    sandbox.stop_daemons();
}

#[test]
fn without_a_model_nothing_changes_and_vault_info_says_how_to_enable_it() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(NOTES);
    python_report(&sandbox, "semantic_agent.py", vault.path(), &["off"]);
    sandbox.stop_daemons();
    assert!(!sandbox.root().join("cache/weft/vectors").exists());
}

#[test]
fn a_model_that_cannot_be_loaded_is_a_status_not_an_error_of_the_vault() {
    let sandbox = Sandbox::new();
    let model = sandbox.dir("model");
    let vault = vault_with_model(&sandbox, &model);
    std::fs::write(model.join("model.safetensors"), b"broken").unwrap();
    let out = sandbox
        .weft()
        .args(["query", "search", "engine", "--vault"])
        .arg(vault.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("garage"));
    sandbox.stop_daemons();
}

/// Everything the sandbox's daemons logged.
fn daemon_log(sandbox: &Sandbox) -> String {
    let mut log = String::new();
    for entry in walk(sandbox.root()) {
        if entry.extension().is_some_and(|e| e == "log") {
            log.push_str(&std::fs::read_to_string(&entry).unwrap_or_default());
        }
    }
    log
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The evaluation set in the repository (`sidecar/bench/eval/foldoc.json`)
/// over real text: the checker proves, against the whole FOLDOC vault that
/// `scripts/dict_vault.py` makes from Debian's `dict-foldoc`, that the
/// paraphrased half shares no content word with its answers; then an agent
/// asks every question of `get_context` in each mode through the Python
/// SDK, over the answers and 1,500 other entries (embedding all 15k with a
/// transformer takes ten minutes here), with all-MiniLM-L6-v2 (unpacked by
/// `scripts/test.sh`). Hybrid must find more paraphrased questions'
/// answers than words alone, and lose nothing on the others.
#[test]
fn hybrid_beats_words_alone_on_paraphrased_questions_and_loses_nothing_on_the_rest() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    assert!(
        Path::new("/usr/share/dictd/foldoc.index").exists(),
        "Debian's dict-foldoc is not installed (scripts/test.sh installs it)"
    );
    let model = std::env::var_os("WEFT_MINILM")
        .map(std::path::PathBuf::from)
        .filter(|m| m.join("model.safetensors").exists())
        .expect("WEFT_MINILM: the all-MiniLM-L6-v2 folder (scripts/test.sh unpacks it)");
    let sandbox = Sandbox::new();
    let foldoc = sandbox.root().join("foldoc");
    let made = std::process::Command::new("python3")
        .arg(repo.join("scripts/dict_vault.py"))
        .args(["foldoc"])
        .arg(&foldoc)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let questions = repo.join("sidecar/bench/eval/foldoc.json");
    let checked = std::process::Command::new("python3")
        .arg(repo.join("scripts/eval_check.py"))
        .arg(&foldoc)
        .arg(&questions)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    let vault = sandbox.root().join("eval");
    subset(&foldoc, &questions, &vault, 1_500);
    std::fs::write(
        vault.join(".weft.toml"),
        format!("[semantic]\nmodel = \"{}\"\n", model.display()),
    )
    .unwrap();
    let report = python_report(
        &sandbox,
        "semantic_eval.py",
        &vault,
        &[questions.to_str().unwrap()],
    );
    eprintln!("evaluation: {report:#}");
    let score = |mode: &str, half: &str, what: &str| report[mode][half][what].as_f64().unwrap();
    for what in ["recall_at_5", "mrr"] {
        assert!(
            score("hybrid", "paraphrased", what) > score("lexical", "paraphrased", what),
            "hybrid must beat words alone on the paraphrased questions ({what}): {report:#}"
        );
        assert!(
            score("hybrid", "other", what) >= score("lexical", "other", what),
            "hybrid must not lose on the other questions ({what}): {report:#}"
        );
    }
    sandbox.stop_daemons();
}

/// Copies into `to` every note that answers a question and `others` more,
/// spread evenly over the rest of the vault (the same ones every run).
fn subset(from: &Path, questions: &Path, to: &Path, others: usize) {
    let questions: serde_json::Value =
        serde_json::from_slice(&std::fs::read(questions).unwrap()).unwrap();
    let answers: std::collections::BTreeSet<String> = questions
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|q| q["answers"].as_array().unwrap().iter())
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let mut rest: Vec<String> = std::fs::read_dir(from)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".md") && !answers.contains(n))
        .collect();
    rest.sort();
    let step = (rest.len() / others.max(1)).max(1);
    std::fs::create_dir_all(to).unwrap();
    for name in answers.iter().chain(rest.iter().step_by(step).take(others)) {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
}
