//! `weft doctor`: what a user needs to see when Weft does not work, each
//! finding with ✓, ! (worth knowing) or ✗ (wrong, with the fix): this
//! binary, the vault and its configuration, the vault's daemon, the note
//! history, the persisted index and full text, the semantic model, and
//! whether Zed's settings run this binary. It reads and connects; it never
//! makes, starts or repairs anything.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use weft_workspace::config::{CONFIG_FILE, Config, HistoryMode, ModelChoice};
use weft_workspace::io::snapshot::{self, Refused};

/// The findings, as printed.
#[derive(Default)]
struct Report {
    out: String,
    failed: bool,
}

impl Report {
    fn section(&mut self, title: &str) {
        let _ = writeln!(self.out, "\n{title}");
    }

    fn ok(&mut self, what: impl AsRef<str>) {
        let _ = writeln!(self.out, "  ✓ {}", what.as_ref());
    }

    /// Worth knowing; not wrong.
    fn note(&mut self, what: impl AsRef<str>, fix: impl AsRef<str>) {
        let _ = writeln!(self.out, "  ! {}\n      → {}", what.as_ref(), fix.as_ref());
    }

    fn fail(&mut self, what: impl AsRef<str>, fix: impl AsRef<str>) {
        self.failed = true;
        let _ = writeln!(self.out, "  ✗ {}\n      → {}", what.as_ref(), fix.as_ref());
    }
}

/// Checks everything and prints it; 0 when all is well, 1 when something
/// is wrong.
pub fn run(vault: Option<&Path>) -> ExitCode {
    let mut report = Report::default();
    binary(&mut report);
    if let Some((root, config)) = vault_checks(&mut report, vault) {
        #[cfg(unix)]
        daemon(&mut report, &root);
        persisted(&mut report, &root);
        history(&mut report, &root, &config);
        semantic(&mut report, &root, &config);
    }
    zed(&mut report);
    print!("{}", report.out.trim_start());
    if report.failed {
        println!("\nSomething is wrong: see ✗ above.");
        ExitCode::FAILURE
    } else {
        println!("\nAll is well.");
        ExitCode::SUCCESS
    }
}

fn binary(report: &mut Report) {
    report.section("weft");
    match std::env::current_exe() {
        Ok(exe) => report.ok(format!(
            "weft {} at {}",
            env!("CARGO_PKG_VERSION"),
            exe.display()
        )),
        Err(e) => report.fail(
            format!(
                "weft {}: cannot tell where it runs from: {e}",
                env!("CARGO_PKG_VERSION")
            ),
            "run it by its full path",
        ),
    }
}

/// The vault: there, readable, its notes, `.weft.toml`, daily notes. Its
/// canonical root and configuration (the defaults when it does not load)
/// when there is one.
fn vault_checks(report: &mut Report, vault: Option<&Path>) -> Option<(PathBuf, Config)> {
    report.section("vault");
    let given = match vault {
        Some(path) => path.to_path_buf(),
        None => match std::env::current_dir() {
            Ok(dir) => dir,
            Err(e) => {
                report.fail(
                    format!("no vault: the current folder cannot be read ({e})"),
                    "pass --vault DIR, the folder of your notes",
                );
                return None;
            }
        },
    };
    let root = match given.canonicalize() {
        Ok(root) if root.is_dir() => root,
        Ok(_) => {
            report.fail(
                format!("no vault: {} is not a folder", given.display()),
                "pass --vault DIR, the folder of your notes",
            );
            return None;
        }
        Err(e) => {
            report.fail(
                format!("no vault at {}: {e}", given.display()),
                "pass --vault DIR, the folder of your notes",
            );
            return None;
        }
    };
    if let Err(e) = std::fs::read_dir(&root) {
        report.fail(
            format!("the vault {} cannot be read: {e}", root.display()),
            "give your user read access to it",
        );
        return None;
    }
    let config = match Config::load(&root) {
        Ok(config) => {
            if root.join(CONFIG_FILE).exists() {
                report.ok(format!("{CONFIG_FILE} is valid"));
            } else {
                report.ok(format!("no {CONFIG_FILE}: the defaults apply"));
            }
            config
        }
        Err(e) => {
            report.fail(
                format!("{}: {e}", root.join(CONFIG_FILE).display()),
                "fix the file; until it loads, Weft uses the last configuration that loaded (or the defaults)",
            );
            Config::default()
        }
    };
    if let Some(e) = &config.types_error {
        report.note(
            e.clone(),
            "fix the JSON (Obsidian writes {\"types\": {\"key\": \"date\"}}); until it reads, property types are inferred from the values",
        );
    }
    let scan = weft_workspace::io::scan(&root, &config);
    report.ok(format!(
        "{}: {} notes ({:.1} MB of Markdown), {} other files",
        root.display(),
        scan.notes.len(),
        scan.bytes as f64 / 1e6,
        scan.attachments.len()
    ));
    for (path, why) in scan.errors.iter().take(5) {
        report.note(
            format!("skipped {path}: {why}"),
            "see the reason; the rest of the vault works",
        );
    }
    if scan.errors.len() > 5 {
        report.note(
            format!("{} more skipped", scan.errors.len() - 5),
            "`weft check` lists notes with problems",
        );
    }
    let daily = &config.daily;
    let folder = if daily.folder.is_empty() {
        "the vault's root".to_string()
    } else {
        format!("{}/", daily.folder)
    };
    if daily.folder.is_empty() || root.join(&daily.folder).is_dir() {
        report.ok(format!("daily notes in {folder}, named {}", daily.format));
    } else {
        report.note(
            format!("daily notes go in {folder} (named {}), which does not exist yet", daily.format),
            "it is made with the first daily note; set [daily] folder in .weft.toml (or Obsidian's daily notes settings) if that is not where yours are",
        );
    }
    Some((root, config))
}

/// The runtime folder, this build's daemon and its socket, daemons of
/// other builds serving the same vault, and the log's last problems.
#[cfg(unix)]
fn daemon(report: &mut Report, root: &Path) {
    use crate::daemon::place::{Place, build_tag, check_private, runtime_dir};
    use std::os::unix::net::UnixStream;

    report.section("daemon");
    let dir = runtime_dir();
    if !dir.exists() {
        report.ok(format!(
            "no daemon has run yet ({} does not exist); the first editor or agent starts one",
            dir.display()
        ));
        return;
    }
    match check_private(&dir) {
        Ok(()) => report.ok(format!(
            "runtime folder {} is yours and private",
            dir.display()
        )),
        Err(e) => {
            report.fail(
                e.to_string(),
                "faces then serve in their own process, without sharing",
            );
            return;
        }
    }
    let build = build_tag();
    let place = match Place::at(&dir, root, &build) {
        Ok(place) => place,
        Err(e) => {
            report.fail(
                e.to_string(),
                "set WEFT_RUNTIME_DIR to a short folder of your own",
            );
            return;
        }
    };
    let pid = std::fs::read_to_string(&place.pid)
        .ok()
        .map(|p| p.trim().to_string());
    if place.socket.exists() {
        match UnixStream::connect(&place.socket) {
            Ok(_) => report.ok(format!(
                "a daemon of this build ({build}) serves the vault (pid {}), socket {}",
                pid.as_deref().unwrap_or("?"),
                place.socket.display()
            )),
            Err(e) => report.fail(
                format!(
                    "stale socket {}: no daemon answers ({e})",
                    place.socket.display()
                ),
                "its daemon died; the next editor or agent replaces it (or remove the file)",
            ),
        }
    } else {
        report.ok(format!(
            "no daemon of this build runs for the vault (socket {}); the first editor or agent starts one",
            place.socket.display()
        ));
    }
    let others = place.other_builds(&dir);
    for (other, socket) in others {
        if UnixStream::connect(&socket).is_ok() {
            report.fail(
                format!("a daemon of another build (weft {other}) also serves this vault, socket {}", socket.display()),
                "two versions of weft are in use: point Zed's settings (or your PATH) at one; the other daemon exits once its editors and agents close",
            );
        } else {
            report.note(
                format!(
                    "stale socket of another build (weft {other}): {}",
                    socket.display()
                ),
                "harmless; remove the file",
            );
        }
    }
    match std::fs::read_to_string(&place.log) {
        Ok(log) => {
            let problems: Vec<&str> = log
                .lines()
                .filter(|l| l.contains("ERROR") || l.contains(" WARN "))
                .collect();
            report.ok(format!("log {}", place.log.display()));
            for line in problems.iter().rev().take(3).rev() {
                report.note(
                    format!("logged: {}", line.trim()),
                    "see the log for the context",
                );
            }
        }
        Err(_) => report.ok(format!("no log yet ({})", place.log.display())),
    }
}

/// The persisted index and full text: whether the next start can use
/// them.
fn persisted(report: &mut Report, root: &Path) {
    report.section("persisted index");
    let Some(cache) = weft_workspace::dirs::cache_dir() else {
        report.note(
            "no cache folder (neither XDG_CACHE_HOME nor HOME is set)",
            "the index is not saved: every start reads every note",
        );
        return;
    };
    let path = snapshot::path_for(&cache, root);
    // Only the daemon saves the index, under its build's name.
    #[cfg(unix)]
    let build = crate::daemon::place::build_tag();
    #[cfg(not(unix))]
    let build = env!("CARGO_PKG_VERSION").to_string();
    let root_str = root.to_string_lossy();
    match snapshot::read(&path, &build, &root_str) {
        Ok(snapshot) => report.ok(format!(
            "{}: {} notes, for this build",
            path.display(),
            snapshot.notes.len()
        )),
        Err(Refused::Missing) => report.ok(format!(
            "none yet ({}); the daemon saves one",
            path.display()
        )),
        Err(Refused::OtherBuild(other)) => report.note(
            format!("{} was written by another build ({other})", path.display()),
            "this build reads every note once at its first start, then saves its own",
        ),
        Err(why) => report.fail(
            format!("{} is unusable: {why}", path.display()),
            "the next start ignores it and reads every note again; remove the file to stop this message",
        ),
    }
    let fulltext = snapshot::fulltext_dir_for(&cache, root);
    if fulltext.is_dir() {
        report.ok(format!("full text {}", fulltext.display()));
    } else {
        report.ok(format!(
            "no full text yet ({}); built when an agent first connects",
            fulltext.display()
        ));
    }
}

/// The note history store.
fn history(report: &mut Report, root: &Path, config: &Config) {
    report.section("history");
    if config.history.mode == HistoryMode::Off {
        report.ok("off ([history] mode = \"off\")");
        return;
    }
    let store = root.join(&config.history.dir);
    // The store's folder (`.weft/`) is made with it, on an agent's first
    // connection: there without the store, the store was removed.
    let made_before = store
        .parent()
        .is_some_and(|parent| parent != root && parent.is_dir());
    let lost: Vec<String> = store
        .parent()
        .and_then(|parent| std::fs::read_dir(parent).ok())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.contains(".lost-"))
        .collect();
    let looks_like_git = store.join("HEAD").is_file() && store.join("objects").is_dir();
    if looks_like_git {
        report.ok(format!("store {}", store.display()));
    } else if store.exists() {
        report.fail(
            format!("{} is not a history store", store.display()),
            "the next daemon sets it aside and starts a new one; earlier versions are in what it set aside",
        );
    } else if made_before {
        report.fail(
            format!("history store missing: {}", store.display()),
            "it was removed since an agent last used this vault; the next agent's daemon starts a new one from the notes as they are (earlier versions are lost)",
        );
    } else {
        report.ok(format!(
            "no history yet ({}); made when an agent first connects",
            store.display()
        ));
    }
    for name in lost {
        report.note(
            format!("an earlier store was set aside: {name}"),
            "it holds the versions from before; remove it once you no longer need them",
        );
    }
}

/// The semantic model, when one is configured.
fn semantic(report: &mut Report, root: &Path, config: &Config) {
    report.section("finding by meaning");
    let Some(choice) = config.semantic.model(root) else {
        report.ok("off: set [semantic] model in .weft.toml (a model folder or a pinned id: `weft model list`), or the context server's semantic_model setting in Zed");
        return;
    };
    let folder = match choice {
        ModelChoice::Folder(folder) => folder,
        ModelChoice::Pinned(pinned) => {
            match weft_workspace::dirs::models_dir().filter(|dir| pinned.is_present(dir)) {
                Some(dir) => pinned.folder_in(&dir),
                _ if config.semantic.download => {
                    report.ok(format!(
                        "{}: not fetched yet; the daemon fetches it (download = true)",
                        pinned.id
                    ));
                    return;
                }
                _ => {
                    report.fail(
                        format!("{} is not in the cache", pinned.id),
                        format!(
                            "run `weft model fetch {}`, or set download = true under [semantic]",
                            pinned.id
                        ),
                    );
                    return;
                }
            }
        }
        ModelChoice::Unknown { id, .. } => {
            report.fail(
                format!("[semantic] model = \"{id}\" is neither a folder nor a pinned model"),
                "`weft model list` names the pinned ones; or give a model folder",
            );
            return;
        }
    };
    match weft_semantic::Model::load(&folder) {
        Ok(_) => report.ok(format!("model {} loads", folder.display())),
        Err(e) => report.fail(
            format!("model {}: {e}", folder.display()),
            "notes are found by words until the model loads; see the README's \"Finding notes by meaning\"",
        ),
    }
}

/// Whether Zed's settings name a `weft` binary, and whether it is this one.
fn zed(report: &mut Report) {
    report.section("zed");
    // `user_dir` names Weft's own folder in it.
    let Some(config) = weft_workspace::dirs::user_dir("XDG_CONFIG_HOME", ".config")
        .and_then(|weft| weft.parent().map(Path::to_path_buf))
    else {
        report.ok("no config folder known; Zed's settings not checked");
        return;
    };
    let path = config.join("zed").join("settings.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(_) => {
            report.ok(format!(
                "no Zed settings at {}: Zed uses `weft` from your PATH, else downloads it",
                path.display()
            ));
            return;
        }
    };
    let settings: serde_json::Value = match serde_json::from_str(&jsonc(&text)) {
        Ok(settings) => settings,
        Err(e) => {
            report.note(
                format!(
                    "{} cannot be read as JSON with comments: {e}",
                    path.display()
                ),
                "Zed reports its own settings errors; fix them there",
            );
            return;
        }
    };
    let here = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let named = [
        (
            "lsp.weft.binary.path",
            &settings["lsp"]["weft"]["binary"]["path"],
        ),
        (
            "context_servers.weft.settings.path",
            &settings["context_servers"]["weft"]["settings"]["path"],
        ),
        (
            "context_servers.weft.command",
            &settings["context_servers"]["weft"]["command"],
        ),
    ];
    let mut any = false;
    for (key, value) in named {
        let Some(binary) = value.as_str() else {
            continue;
        };
        any = true;
        let theirs = Path::new(binary).canonicalize().ok();
        if theirs.is_some() && theirs == here {
            report.ok(format!("{key} runs this binary"));
        } else if theirs.is_none() {
            report.fail(
                format!("{key} names {binary}, which does not exist"),
                "fix the path in Zed's settings, or remove it to use `weft` from your PATH",
            );
        } else {
            report.note(
                format!("{key} runs {binary}, not this binary"),
                "fine if intended; otherwise two versions of weft may serve this vault",
            );
        }
    }
    if !any {
        report.ok(format!(
            "{} names no weft binary: Zed uses `weft` from your PATH, else downloads it",
            path.display()
        ));
    }
}

/// JSON with comments and trailing commas (Zed's settings) as JSON: the
/// comments out first, then each comma whose next token closes an object
/// or array. One pass each, strings left as they are.
fn jsonc(text: &str) -> String {
    drop_trailing_commas(&strip_comments(text))
}

fn strip_comments(text: &str) -> String {
    outside_strings(text, |c, chars, out| match (c, chars.peek()) {
        ('/', Some('/')) => {
            for c in chars.by_ref() {
                if c == '\n' {
                    out.push('\n');
                    break;
                }
            }
        }
        ('/', Some('*')) => {
            chars.next();
            let mut previous = ' ';
            for c in chars.by_ref() {
                if previous == '*' && c == '/' {
                    break;
                }
                previous = c;
            }
        }
        _ => out.push(c),
    })
}

fn drop_trailing_commas(text: &str) -> String {
    outside_strings(text, |c, chars, out| {
        let closes =
            c == ',' && matches!(chars.clone().find(|c| !c.is_whitespace()), Some('}' | ']'));
        if !closes {
            out.push(c);
        }
    })
}

/// Copies `text`, JSON strings as they are, and hands every other
/// character to `step`, which writes what it keeps and may read ahead.
fn outside_strings(
    text: &str,
    mut step: impl FnMut(char, &mut std::iter::Peekable<std::str::Chars<'_>>, &mut String),
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else {
            step(c, &mut chars, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::jsonc;

    #[test]
    fn zed_settings_read_with_comments_and_trailing_commas() {
        let text = "{\n  // a comment \"x\"\n  \"a\": \"http://b/c\", /* more */\n  \
                    \"l\": [1, 2, // two\n],\n  \"s\": \"a, }\",\n}\n";
        let value: serde_json::Value = serde_json::from_str(&jsonc(text)).unwrap();
        assert_eq!(value["a"], "http://b/c");
        assert_eq!(value["l"], serde_json::json!([1, 2]));
        assert_eq!(value["s"], "a, }");
    }
}
