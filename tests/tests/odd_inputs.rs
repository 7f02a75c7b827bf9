//! Hostile and odd inputs, each with a defined behaviour — a clear error or
//! a degraded answer, never a hang, a crash or a changed note — through the
//! built binary: `weft --no-daemon check|stats|query` and MCP sessions.
//! (The parser's own cases, deep nesting and a million links, are unit tests
//! in `weft-vault`.)
//!
//! Tests run as root, whom permission bits do not stop: the unreadable and
//! read-only cases run `weft` as `nobody` (`setpriv`), on a vault in a folder
//! `nobody` can reach.

use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_e2e::{McpWire, Sandbox, send_line, wait_with_deadline, weft_bin};

/// Bounds a failing run only.
const WAIT: Duration = Duration::from_secs(120);

/// `weft --no-daemon ARGS --vault VAULT` run by `command`: (stdout, stderr,
/// exit code), killed (and failing) if it does not end.
fn run(mut command: Command, vault: &Path, args: &[&str]) -> (String, String, i32) {
    let child = command
        .arg("--no-daemon")
        .args(args)
        .arg("--vault")
        .arg(vault)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run weft");
    let out = wait_with_deadline(child, WAIT, &format!("weft {}", args.join(" ")));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// An MCP session on the raw wire.
struct Mcp {
    wire: McpWire,
    next: u64,
}

impl Mcp {
    /// `command` (`weft … mcp --vault …`) started and initialized, its
    /// stderr left out.
    fn start(mut command: Command) -> Mcp {
        command.stderr(Stdio::null());
        Mcp {
            wire: Mcp::initialized(&mut command),
            next: 1,
        }
    }

    /// `command` started and initialized on the raw wire.
    fn initialized(command: &mut Command) -> McpWire {
        let wire = McpWire::start(command);
        wire.handshake("odd-inputs");
        wire
    }

    /// A tool call's result, once the vault is indexed.
    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let id = self.next;
            self.next += 1;
            self.wire
                .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}));
            let result = self.wire.response(id)["result"].clone();
            if !text(&result).contains("still being indexed") || Instant::now() > deadline {
                return result;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The Markdown answer of a tool call (its first content item).
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Every file under `dir` with its bytes (to show nothing changed), but
/// for Weft's own `.weft` folder (its note history).
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.file_name().is_some_and(|name| name == ".weft") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                let bytes = std::fs::read(&path).expect("read");
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// A folder `nobody` can reach (in `/tmp`: the tests' own temporary folder
/// may be closed to other users), holding a vault written by root and a
/// home of `nobody`'s own.
struct Open {
    dir: tempfile::TempDir,
}

impl Open {
    fn new() -> Open {
        let dir = tempfile::Builder::new()
            .prefix("weft-odd.")
            .tempdir_in("/tmp")
            .expect("a folder in /tmp");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o777)).unwrap();
        // The build's folder may be closed to others: the binary is linked
        // (or copied) here.
        let bin = home.join("weft");
        if std::fs::hard_link(weft_bin(), &bin).is_err() {
            std::fs::copy(weft_bin(), &bin).expect("copy weft");
        }
        Open { dir }
    }

    fn vault(&self) -> PathBuf {
        let vault = self.dir.path().join("vault");
        std::fs::create_dir_all(&vault).unwrap();
        vault
    }

    /// `weft` run by `nobody` (by this user when it is not root: the
    /// permission bits stop it anyway), in the sandbox but with `nobody`'s
    /// own home, cache and temporary folder.
    fn weft(&self, sandbox: &Sandbox) -> Command {
        let home = self.dir.path().join("home");
        let bin = home.join("weft");
        let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
        let mut command = if root {
            let mut command = sandbox.command("setpriv");
            command
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(bin);
            command
        } else {
            sandbox.command(bin)
        };
        command
            .env("HOME", &home)
            .env("TMPDIR", &home)
            .env("XDG_CACHE_HOME", home.join("cache"));
        command
    }
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn binary_and_invalid_utf8_notes_are_read_with_replacements_and_never_rewritten() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /hub.md\n# Hub\n[[bin]] [[bad]]\n");
    let root = vault.path();
    // A binary file named `.md`: every byte value, NULs and a link among them.
    let mut binary: Vec<u8> = b"\x7fELF\x02\x01\x00\x00[[hub]]\xff".to_vec();
    binary.extend((0..8192u32).map(|i| (i * 7 % 256) as u8));
    write(root, "bin.md", &binary);
    write(root, "bad.md", b"# Bad \xff\xfe title\n[[hub]]\n");
    let before = contents(root);

    let (out, err, code) = run(sandbox.weft(), root, &["check"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("- `bad.md:1` invalid UTF-8 at byte 6: the note was read with replacement characters; save it as UTF-8 before editing it with Weft"),
        "{out}"
    );
    assert!(
        out.contains("- `bin.md:1` invalid UTF-8 at byte 15"),
        "{out}"
    );
    // The rest of each note is read: its links count.
    let (out, err, code) = run(sandbox.weft(), root, &["query", "backlinks", "hub"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(`bad`)") && out.contains("(`bin`)"), "{out}");

    let mut mcp = Mcp::start(vault.weft(&["--no-daemon", "mcp"]));
    let read = mcp.call("read_note", json!({"path": "bad"}));
    assert!(text(&read).contains("invalid UTF-8 at byte 6"), "{read}");
    let edit = mcp.call(
        "edit_note",
        json!({"path": "bad", "ops": [{"op": "replace_text", "find": "Bad", "replace": "Good"}]}),
    );
    assert_eq!(edit["isError"], true, "{edit}");
    assert!(text(&edit).contains("UTF-8"), "{edit}");
    drop(mcp);
    assert_eq!(contents(root), before, "no note changed");
    sandbox.stop_daemons();
}

#[test]
fn unreadable_files_and_folders_are_reported_and_the_rest_is_served() {
    let sandbox = Sandbox::new();
    let open = Open::new();
    let root = open.vault();
    write(&root, "hub.md", b"# Hub\n[[secret]] [[inner]] [[other]]\n");
    write(&root, "other.md", b"# Other\n");
    write(&root, "secret.md", b"# Secret\n");
    write(&root, "locked/inner.md", b"# Inner\n");
    std::fs::set_permissions(
        root.join("secret.md"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();

    let (out, err, code) = run(open.weft(&sandbox), &root, &["check"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("2 problems reading the vault's files"),
        "{out}"
    );
    assert!(
        out.contains("- `secret.md` cannot read the note: Permission denied")
            && out.contains("give your user read permission, or add it to `exclude` in .weft.toml"),
        "{out}"
    );
    assert!(
        out.contains("- `locked` cannot read the folder:") && out.contains("Permission denied"),
        "{out}"
    );
    let (out, err, code) = run(open.weft(&sandbox), &root, &["stats"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("- Notes: 2 "), "{out}");
    let (out, _, code) = run(open.weft(&sandbox), &root, &["query", "backlinks", "other"]);
    assert_eq!(code, 0);
    assert!(out.contains("(`hub`)"), "{out}");
    sandbox.stop_daemons();
}

#[test]
fn a_read_only_vault_answers_reads_and_refuses_writes_clearly() {
    let sandbox = Sandbox::new();
    let open = Open::new();
    let root = open.vault();
    write(&root, "hub.md", b"# Hub\n[[other]]\n");
    write(&root, "other.md", b"# Other\n");
    let before = contents(&root);

    let mut command = open.weft(&sandbox);
    command.args(["--no-daemon", "mcp", "--vault"]).arg(&root);
    let mut mcp = Mcp::start(command);
    let read = mcp.call("read_note", json!({"path": "hub"}));
    assert_ne!(read["isError"], true, "{read}");
    assert!(text(&read).contains("[[other]]"), "{read}");
    let links = mcp.call("get_links", json!({"path": "other", "direction": "in"}));
    assert!(text(&links).contains("(`hub`)"), "{links}");
    let refused = "read-only for the user Weft runs as; ask the user to give it write permission, \
                   or to keep the vault read-only); nothing was written";
    let created = mcp.call("write_note", json!({"path": "new", "content": "# New\n"}));
    assert_eq!(created["isError"], true, "{created}");
    assert!(
        text(&created).contains("cannot write `new.md`: Permission denied")
            && text(&created).contains(refused),
        "{created}"
    );
    let edited = mcp.call(
        "edit_note",
        json!({"path": "hub", "ops": [{"op": "replace_text", "find": "Hub", "replace": "H"}]}),
    );
    assert_eq!(edited["isError"], true, "{edited}");
    assert!(text(&edited).contains(refused), "{edited}");
    drop(mcp);
    assert_eq!(contents(&root), before, "nothing written");
    assert!(!root.join(".weft").exists(), "no history store made");
    sandbox.stop_daemons();
}

#[test]
fn symlink_loops_end_the_walk_and_are_left_out() {
    let sandbox = Sandbox::new();
    let vault =
        sandbox.vault("//- /hub.md\n# Hub\n[[self]] [[a]] [[deep]]\n//- /sub/deep.md\n# Deep\n");
    let root = vault.path();
    let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, root.join(at)).unwrap();
    link("self.md", "self.md");
    link("b.md", "a.md");
    link("a.md", "b.md");
    link("..", "sub/up");
    link(".", "sub/here");
    link(root.to_str().unwrap(), "sub/root");
    let (out, err, code) = run(sandbox.weft(), root, &["stats"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("- Notes: 2 "), "{out}");
    let (out, _, code) = run(sandbox.weft(), root, &["check"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("`[[self]]` links to a note that does not exist")
            && out.contains("`[[a]]` links to a note that does not exist"),
        "{out}"
    );
    assert!(!out.contains("deep"), "{out}");
    sandbox.stop_daemons();
}

#[test]
fn names_differing_only_in_case_or_normalisation_are_two_notes() {
    let sandbox = Sandbox::new();
    let nfc = "caf\u{e9}";
    let nfd = "cafe\u{301}";
    let vault = sandbox.vault(&format!(
        "//- /hub.md\n[[note]] [[{nfc}]] [[{nfd}]]\n//- /note.md\n# lower\n//- /Note.md\n# upper\n\
         //- /{nfc}.md\n# composed\n//- /{nfd}.md\n# decomposed\n"
    ));
    let root = vault.path();
    let (out, err, code) = run(sandbox.weft(), root, &["stats"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("- Notes: 5 "), "{out}");
    let (out, _, code) = run(sandbox.weft(), root, &["check"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("`[[note]]` matches 2 notes (`Note`, `note`)"),
        "{out}"
    );
    // Both spellings of the name lead to the same pair (the first by
    // path: `e` and a combining accent sort before `é`).
    for spelling in [nfc, nfd] {
        assert!(
            out.contains(&format!(
                "`[[{spelling}]]` matches 2 notes (`{nfd}`, `{nfc}`); it resolves to `{nfd}`"
            )),
            "{out}"
        );
    }
    let mut mcp = Mcp::start(vault.weft(&["--no-daemon", "mcp"]));
    let read = mcp.call("read_note", json!({"path": "NOTE"}));
    assert_eq!(read["isError"], true, "{read}");
    assert!(
        text(&read).contains("`NOTE` names 2 notes: **upper** (`Note`), **lower** (`note`)"),
        "{read}"
    );
    // Each is reached by its exact path.
    for (path, title) in [
        ("note", "lower"),
        ("Note", "upper"),
        (nfc, "composed"),
        (nfd, "decomposed"),
    ] {
        let read = mcp.call("read_note", json!({"path": path}));
        assert!(
            text(&read).contains(&format!("**{title}**")),
            "{path}: {read}"
        );
    }
    drop(mcp);
    sandbox.stop_daemons();
}

#[test]
fn names_at_the_file_system_limit_are_served_and_written_and_longer_ones_refused() {
    let sandbox = Sandbox::new();
    // 255 bytes each, `.md` included.
    let ascii = "x".repeat(252);
    let accented = "\u{e9}".repeat(126);
    let vault = sandbox.vault(&format!(
        "//- /hub.md\n[[{ascii}]] [[{accented}]]\n//- /{ascii}.md\n# Long\n//- /d/{accented}.md\n# Accented\n"
    ));
    let root = vault.path();
    let (out, _, code) = run(sandbox.weft(), root, &["check"]);
    assert_eq!(code, 0, "{out}");
    let mut mcp = Mcp::start(vault.weft(&["--no-daemon", "mcp"]));
    let at_limit = format!("new/{}", "y".repeat(252));
    let written = mcp.call(
        "write_note",
        json!({"path": at_limit, "content": "# At the limit\n"}),
    );
    assert_ne!(written["isError"], true, "{written}");
    assert_eq!(
        std::fs::read_to_string(root.join(format!("{at_limit}.md"))).unwrap(),
        "# At the limit\n"
    );
    let edited = mcp.call(
        "edit_note",
        json!({"path": format!("d/{accented}"), "ops": [{"op": "replace_text", "find": "Accented", "replace": "Edited"}]}),
    );
    assert_ne!(edited["isError"], true, "{edited}");
    // Deleted twice: the second goes to the trash beside the first, its
    // name cut to make room for ` 1`.
    for _ in 0..2 {
        let deleted = mcp.call("delete_note", json!({"path": ascii}));
        assert_ne!(deleted["isError"], true, "{deleted}");
        let written = mcp.call("write_note", json!({"path": ascii, "content": "# Again\n"}));
        assert_ne!(written["isError"], true, "{written}");
    }
    assert!(root.join(format!(".trash/{ascii}.md")).exists());
    assert!(root.join(format!(".trash/{} 1.md", &ascii[..250])).exists());
    let too_long = mcp.call(
        "write_note",
        json!({"path": "y".repeat(253), "content": "x"}),
    );
    assert_eq!(too_long["isError"], true, "{too_long}");
    assert!(
        text(&too_long)
            .contains("each name in it at most 255 bytes (`.md` included); choose a shorter name"),
        "{too_long}"
    );
    drop(mcp);
    assert!(!root.join(format!("{}.md", "y".repeat(253))).exists());
    sandbox.stop_daemons();
}

#[test]
fn a_huge_note_is_indexed_up_to_the_limit_and_left_as_it_is() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /hub.md\n# Hub\n");
    let root = vault.path();
    // 100 MiB, mostly a hole (cheap to make): words and a link at the start,
    // others past 16 MiB.
    let size: u64 = 100 << 20;
    let path = root.join("big.md");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(b"# Big\nfrontword [[hub]]\n").unwrap();
    file.seek(SeekFrom::Start(size - 24)).unwrap();
    file.write_all(b"\nbackword [[Ghost]] end\n").unwrap();
    drop(file);
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();

    let (out, err, code) = run(sandbox.weft(), root, &["check"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("`big.md:3` the note is 100.0 MiB, more than the 16 MiB Weft reads: only lines 1 to 2 are indexed"),
        "{out}"
    );
    assert!(!out.contains("Ghost"), "{out}");
    let (out, _, _) = run(sandbox.weft(), root, &["query", "search", "frontword"]);
    assert!(out.contains("(`big`)"), "{out}");
    let (out, _, _) = run(sandbox.weft(), root, &["query", "search", "backword"]);
    assert!(!out.contains("(`big`)"), "{out}");
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!((meta.len(), meta.modified().unwrap()), (size, modified));
    let mut head = [0u8; 6];
    std::fs::File::open(&path)
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    assert_eq!(&head, b"# Big\n");
    sandbox.stop_daemons();
}

/// Removes `dir` while a server may still be writing in it (its history
/// store, say).
fn remove(dir: &Path) {
    let deadline = Instant::now() + WAIT;
    while let Err(e) = std::fs::remove_dir_all(dir) {
        assert!(
            Instant::now() < deadline,
            "cannot remove {}: {e}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_vault_deleted_while_served_refuses_writes_and_is_not_made_again() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /hub.md\n# Hub\n[[other]]\n//- /other.md\n# Other\n");
    let root = vault.path().to_path_buf();
    let mut mcp = Mcp::start(vault.weft(&["--no-daemon", "mcp"]));
    assert!(text(&mcp.call("read_note", json!({"path": "hub"}))).contains("[[other]]"));
    remove(&root);
    let read = mcp.call("read_note", json!({"path": "hub"}));
    assert_eq!(read["isError"], true, "{read}");
    // Before the watcher has seen the deletion the note is still indexed
    // and its file cannot be read; after, the note is gone.
    assert!(
        text(&read).contains("its file cannot be read now")
            || text(&read).contains("No note matches `hub`"),
        "{read}"
    );
    let written = mcp.call("write_note", json!({"path": "new", "content": "# New\n"}));
    assert_eq!(written["isError"], true, "{written}");
    assert!(
        text(&written).contains(&format!(
            "the vault folder {} is gone (deleted or moved while Weft served it)",
            root.display()
        )),
        "{written}"
    );
    drop(mcp);
    assert!(!root.exists(), "the vault folder is not made again");
    sandbox.stop_daemons();
}

#[test]
fn a_vault_deleted_under_its_daemon_ends_the_face_with_a_clear_error() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /hub.md\n# Hub\n");
    let root = vault.path().to_path_buf();
    let mut command = vault.weft(&["mcp"]);
    command.stderr(Stdio::piped());
    let mut wire = Mcp::initialized(&mut command);
    remove(&root);
    // The daemon leaves; asked again, the face cannot start another and
    // ends.
    let deadline = Instant::now() + WAIT;
    while !sandbox.daemons().is_empty() {
        assert!(Instant::now() < deadline, "the daemon never left");
        std::thread::sleep(Duration::from_millis(50));
    }
    // (It may have ended already.)
    let _ = send_line(
        &wire.stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "read_note", "arguments": {"path": "hub"}}}),
    );
    let mut stderr = wire.child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let stderr = rx.recv_timeout(WAIT).expect("the face ends");
    let status = wire.child.wait().unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot open the vault {}", root.display())),
        "{stderr}"
    );
    assert!(!root.exists(), "the vault folder is not made again");
    drop(wire);
    sandbox.stop_daemons();
}
