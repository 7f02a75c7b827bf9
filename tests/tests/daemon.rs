//! The index daemon as faces use it, with the built binary: faces of one
//! vault share one daemon; a daemon killed mid-session is replaced and the
//! sessions replayed (open buffers included); stale sockets are cleared;
//! two builds never meet; `--no-daemon` and unsafe runtime folders run
//! in-process; faces starting at once start one; an idle daemon leaves.
//! Each test has its own sandbox (runtime folder) and stops the daemons it
//! started.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_e2e::{Face, Sandbox, mcp_handshake, process_gone, weft_bin};

const VAULT: &str = "
//- /a.md
# A
See [[b]].
//- /b.md
# B
";

const WAIT: Duration = Duration::from_secs(60);

/// The runtime folder's files with this extension (`sock`, `pid`, `log`).
fn files(sandbox: &Sandbox, ext: &str) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(sandbox.runtime_dir()) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = dir
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

/// The pids the daemons wrote in their pid files.
fn pids(sandbox: &Sandbox) -> Vec<u32> {
    files(sandbox, "pid")
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok()?.trim().parse().ok())
        .collect()
}

/// `BIN query ARGS --vault VAULT` in the sandbox.
fn query(sandbox: &Sandbox, bin: &Path, vault: &Path, args: &[&str]) -> std::process::Output {
    sandbox
        .command(bin)
        .args(["query"])
        .args(args)
        .arg("--vault")
        .arg(vault)
        .output()
        .expect("run weft query")
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn faces_of_one_vault_share_one_daemon() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let mut first = Face::mcp(&sandbox, &root);
    let mut second = Face::mcp(&sandbox, &root);
    let written = first.tool(
        "write_note",
        json!({"path": "c", "content": "# C\n[[b]]\n"}),
    );
    assert_ne!(written["isError"], true, "{written}");
    let links = second.tool("get_links", json!({"path": "b", "direction": "in"}));
    assert!(text_of(&links).contains("**C**"), "{links}");
    let out = query(&sandbox, &weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("(`c`)"));
    assert_eq!(files(&sandbox, "sock").len(), 1);
    assert_eq!(pids(&sandbox).len(), 1);
    assert_eq!(sandbox.daemons().len(), 1);
    let socket = &files(&sandbox, "sock")[0];
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(socket).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(sandbox.runtime_dir())
            .unwrap()
            .permissions(),
    );
    assert_eq!(dir_mode & 0o777, 0o700);
    drop((first, second));
    sandbox.stop_daemons();
}

#[test]
fn a_killed_daemon_is_replaced_and_sessions_resume() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let mut agent = Face::mcp(&sandbox, &root);
    let mut editor = Face::lsp(&sandbox, &root);
    // Unsaved text in the editor, typed as edits: a link to a note that
    // does not exist.
    let uri = format!("file://{}", root.join("a.md").display());
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1,
               "text": "# A\nSee [[b]].\n"}}),
    );
    editor.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{
            "range": {"start": {"line": 1, "character": 10}, "end": {"line": 1, "character": 10}},
            "text": " And [[Typed only]]."}]}),
    );
    let unresolved = |agent: &mut Face| {
        let check = agent.tool("check_vault", json!({}));
        text_of(&check).contains("Typed only")
    };
    wait_until("the unsaved link reaches the agent", || {
        unresolved(&mut agent)
    });
    // The diagnostics of the typed link, from the first daemon: read now, so
    // that only the new daemon's, after the replay, can match below (the
    // first one may have published an earlier set between the two edits).
    let typed = |n: &Value| {
        n["method"] == "textDocument/publishDiagnostics"
            && n["params"]["uri"] == uri.as_str()
            && n.to_string().contains("Typed only")
    };
    editor.notification(0, typed);
    let before = pids(&sandbox);
    assert_eq!(before.len(), 1);
    let seen = editor.notifications.len();
    assert_eq!(sandbox.kill_daemons(), before);
    wait_until("the daemon is gone", || process_gone(before[0]));
    // The next request of each answers, right, after a short delay: the
    // faces start another daemon, replay their sessions and wait for the
    // vault to load again.
    let started = Instant::now();
    let links = agent.request(
        "tools/call",
        json!({"name": "get_links", "arguments": {"path": "b", "direction": "in"}}),
    );
    assert!(text_of(&links["result"]).contains("**A**"), "{links}");
    assert!(!text_of(&links["result"]).contains("Indexing"), "{links}");
    eprintln!(
        "agent answered {} ms after the daemon was gone",
        started.elapsed().as_millis()
    );
    let started = Instant::now();
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}}),
    );
    assert!(hover["result"].to_string().contains("**B**"), "{hover}");
    eprintln!(
        "editor answered {} ms after the agent",
        started.elapsed().as_millis()
    );
    // The editor's buffer was replayed into the new daemon: its diagnostics
    // come back, and the agent sees the unsaved link again.
    editor.notification(seen, typed);
    wait_until("the editor's buffer is back", || unresolved(&mut agent));
    let after = pids(&sandbox);
    assert_eq!(after.len(), 1);
    assert_ne!(before, after, "a new daemon serves");
    drop((agent, editor));
    sandbox.stop_daemons();
}

#[test]
fn a_daemon_whose_socket_or_vault_is_gone_leaves() {
    // Not idle meanwhile (the sandbox's daemons never are).
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let mut face = Face::mcp(&sandbox, &root);
    let socket = files(&sandbox, "sock")[0].clone();
    let pid = pids(&sandbox)[0];
    // Its socket removed: it leaves even with a face attached (which
    // starts another).
    std::fs::remove_file(&socket).unwrap();
    wait_until("the daemon leaves", || process_gone(pid));
    let info = face.tool("vault_info", json!({}));
    assert_ne!(info["isError"], true, "{info}");
    let pid = pids(&sandbox)[0];
    drop(face);
    // Its vault removed.
    std::fs::remove_dir_all(vault.path()).unwrap();
    wait_until("the daemon leaves", || process_gone(pid));
    assert!(files(&sandbox, "sock").is_empty());
    assert!(pids(&sandbox).is_empty());
    assert!(files(&sandbox, "log").is_empty(), "nothing left behind");
    assert_eq!(sandbox.stop_daemons(), 0, "no daemon left");
}

#[test]
fn stale_sockets_are_cleared() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    // Learn the socket's name from a first daemon, then leave debris there.
    assert!(
        query(&sandbox, &weft_bin(), &root, &["backlinks", "b"])
            .status
            .success()
    );
    let socket = files(&sandbox, "sock")[0].clone();
    kill_the_daemon(&sandbox, &socket);
    // A socket nobody listens on (the killed daemon's) …
    assert!(socket.exists());
    let out = query(&sandbox, &weft_bin(), &root, &["backlinks", "b"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).is_empty(),
        "no fallback"
    );
    kill_the_daemon(&sandbox, &socket);
    // … and a plain file.
    std::fs::remove_file(&socket).unwrap();
    std::fs::write(&socket, "junk").unwrap();
    let out = query(&sandbox, &weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).is_empty(),
        "no fallback"
    );
    assert!(std::os::unix::net::UnixStream::connect(&socket).is_ok());
    sandbox.stop_daemons();
}

#[test]
fn two_builds_run_side_by_side() {
    // Daemons that never idle out, so both are there to count at the end.
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    // Another build: the same program with a few bytes more.
    let other = sandbox.dir("bin").join("weft");
    let mut bytes = std::fs::read(weft_bin()).unwrap();
    bytes.extend_from_slice(b"another build");
    std::fs::write(&other, bytes).unwrap();
    std::fs::set_permissions(&other, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for bin in [weft_bin(), other.clone(), weft_bin(), other] {
        let out = query(&sandbox, &bin, &root, &["backlinks", "b"]);
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("(`a`)"));
        assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    }
    assert_eq!(files(&sandbox, "sock").len(), 2);
    assert_eq!(pids(&sandbox).len(), 2);
    assert_eq!(sandbox.stop_daemons(), 2);
}

#[test]
fn no_daemon_and_unsafe_runtime_folders_answer_in_process() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let mut flag = sandbox.weft();
    flag.args(["--no-daemon", "query", "backlinks", "b", "--vault"])
        .arg(&root);
    let mut env = sandbox.weft();
    env.env("WEFT_NO_DAEMON", "1")
        .args(["query", "backlinks", "b", "--vault"])
        .arg(&root);
    for mut command in [flag, env] {
        let out = command.output().unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("(`a`)"));
    }
    assert!(
        !sandbox.runtime_dir().exists(),
        "no runtime folder, no socket"
    );
    // An MCP server without the daemon.
    let mut command = sandbox.weft();
    command.args(["--no-daemon", "mcp", "--vault"]).arg(&root);
    let mut face = Face::start(command, false);
    mcp_handshake(&mut face, "t");
    assert!(
        text_of(&face.tool("get_links", json!({"path": "b", "direction": "in"}))).contains("**A**")
    );
    assert!(!sandbox.runtime_dir().exists());
    // A runtime folder open to others is not used.
    std::fs::create_dir_all(sandbox.runtime_dir()).unwrap();
    std::fs::set_permissions(
        sandbox.runtime_dir(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = query(&sandbox, &weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("(`a`)"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("open to other users") && stderr.contains("in-process"),
        "{stderr}"
    );
    assert!(files(&sandbox, "sock").is_empty());
    drop(face);
    assert_eq!(sandbox.stop_daemons(), 0, "no daemon ran");
}

#[test]
fn faces_starting_at_once_start_one_daemon() {
    // Daemons that never idle out: one that left between two faces would
    // count as a second.
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let queries: Vec<_> = (0..4)
        .map(|_| {
            sandbox
                .weft()
                .args(["query", "backlinks", "b", "--vault"])
                .arg(&root)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for query in queries {
        let out = query.wait_with_output().unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    }
    assert_eq!(pids(&sandbox).len(), 1, "one daemon for four faces");
    let log = std::fs::read_to_string(&files(&sandbox, "log")[0]).unwrap();
    assert_eq!(log.matches("serving").count(), 1, "{log}");
    assert_eq!(sandbox.stop_daemons(), 1);
}

#[test]
fn an_idle_daemon_leaves() {
    let sandbox = Sandbox::with_idle(2);
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let out = query(&sandbox, &weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    // Idle for 2 s: it leaves, taking its socket and pid file along (the
    // one after the other: both are gone once the process has ended).
    wait_until("the idle daemon leaves", || {
        files(&sandbox, "sock").is_empty()
    });
    wait_until("the idle daemon has ended", || sandbox.daemons().is_empty());
    assert!(pids(&sandbox).is_empty());
    assert_eq!(sandbox.stop_daemons(), 0);
}

/// Issue 14: one bad request never takes a vault's daemon down. A query
/// nested thousands deep (it used to overflow the stack and abort the
/// daemon), a request whose handler panics (it used to go unanswered, or to
/// drop the editor's connection), and a message larger than the protocol's
/// limit (MCP lines had no cap) each get an error answer, and the same
/// daemon goes on serving the editor, the agent and the command line.
#[test]
fn a_bad_request_fails_alone_and_the_same_daemon_serves_on() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    // The first face starts the daemon; it inherits the armed faults.
    let armed = || {
        let mut command = sandbox.weft();
        command.env(
            "WEFT_FAULT_PANIC",
            "tools/call:resolve_note,textDocument/hover,query:links",
        );
        command
    };
    let mut agent = Face::mcp_with(armed(), &root);
    let mut editor = Face::lsp_with(armed(), &root);
    let daemons = sandbox.daemons();
    assert_eq!(daemons.len(), 1, "{daemons:?}");
    let uri = format!("file://{}/a.md", root.display());
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1,
                                "text": "# A\nSee [[b]].\n"}}),
    );

    // 1. Too deep.
    let deep = format!("{}a{}", "(".repeat(20_000), ")".repeat(20_000));
    let out = query(&sandbox, &weft_bin(), &root, &["search", &deep]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nested too deeply"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = agent.tool("search_notes", json!({"query": deep}));
    assert_eq!(result["isError"], true, "{result}");
    assert!(text_of(&result).contains("nested too deeply"), "{result}");

    // 2. A handler that panics: that request's error, nothing else.
    let result = agent.tool("resolve_note", json!({"name": "b"}));
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        text_of(&result).contains("Weft failed while answering"),
        "{result}"
    );
    let hover = editor.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 7}}),
    );
    assert_eq!(hover["error"]["code"], -32603, "{hover}");
    let out = query(&sandbox, &weft_bin(), &root, &["links", "a"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Weft failed while answering"));

    // 3. Too large: refused with the request's id, never held.
    let big = "x".repeat(17 << 20);
    let id = 9_001;
    agent.send_raw(
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "write_note", "arguments": {"path": "big", "content": big}}})
        .to_string(),
    );
    let refused = agent.response(id);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 16.0 MiB"),
        "{refused}"
    );
    assert!(!root.join("big.md").exists());
    let huge = "y".repeat(65 << 20);
    editor.send_raw(
        json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
               "params": {"textDocument": {"uri": huge}, "position": {"line": 0, "character": 0}}})
        .to_string(),
    );
    let refused = editor.response(id);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    drop((big, huge));

    // The same daemon serves everyone on.
    assert_eq!(sandbox.daemons(), daemons, "the daemon is the same process");
    let links = agent.tool("get_links", json!({"path": "b", "direction": "in"}));
    assert!(text_of(&links).contains("**A**"), "{links}");
    let definition = editor.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 7}}),
    );
    assert!(
        definition["result"].to_string().contains("b.md"),
        "{definition}"
    );
    let out = query(&sandbox, &weft_bin(), &root, &["backlinks", "b"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("(`a`)"));
    drop((agent, editor));
    assert_eq!(sandbox.stop_daemons(), 1);
}

/// Kills the sandbox's one daemon and waits until its socket answers no
/// more.
fn kill_the_daemon(sandbox: &Sandbox, socket: &Path) {
    assert_eq!(sandbox.kill_daemons().len(), 1);
    wait_until("the daemon is gone", || {
        std::os::unix::net::UnixStream::connect(socket).is_err()
    });
}

/// `weft query ARGS` through the daemon, whose log says what the
/// workspace did; its output, after checking it succeeded.
fn logged_query(sandbox: &Sandbox, root: &Path, args: &[&str]) -> String {
    let out = sandbox
        .command(weft_bin())
        .arg("query")
        .args(args)
        .arg("--vault")
        .arg(root)
        .env("RUST_LOG", "weft_workspace=info")
        .output()
        .expect("run weft query");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The one entry the daemons kept in `folder` of the sandbox's cache
/// (`index`: snapshots, `fulltext`: full-text folders).
fn only_cached(sandbox: &Sandbox, folder: &str) -> PathBuf {
    let kept: Vec<PathBuf> = std::fs::read_dir(sandbox.root().join("cache/weft").join(folder))
        .unwrap_or_else(|e| panic!("the daemon kept nothing in the cache's {folder}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    kept.into_iter().next().unwrap()
}

/// The segment files of the full text kept in `dir`, sorted: those of the
/// segments its last commit (`meta.json`) names, and any other.
fn fulltext_segments(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let meta: Value = serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap())
        .expect("the full text's meta.json");
    // Named there as UUIDs, on disk as their 32 hex digits.
    let live: Vec<String> = meta["segments"]
        .as_array()
        .expect("its segments")
        .iter()
        .map(|s| s["segment_id"].as_str().unwrap().replace('-', ""))
        .collect();
    let segment = |p: &PathBuf| -> Option<String> {
        let id = p.file_name()?.to_str()?.split('.').next()?;
        (id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_string())
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| segment(p).is_some())
        .collect();
    files.sort();
    files
        .into_iter()
        .partition(|p| segment(p).is_some_and(|id| live.contains(&id)))
}

/// Every daemon log of the sandbox, run after run.
fn daemon_logs(sandbox: &Sandbox) -> String {
    files(sandbox, "log")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect()
}

/// Issue 18: a daemon saves its vault's index in the user's cache (here
/// the sandbox's) when it stops; the next one answers from it and reads
/// again only what changed while no Weft ran. A damaged snapshot is
/// refused, said so in the log, and the vault read from disk as without one.
#[test]
fn a_restarted_daemon_answers_from_its_persisted_index_and_follows_what_changed() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /a.md\n[[b]]\n//- /b.md\n# B\n//- /c.md\n# C\n");
    let root = vault.path().canonicalize().unwrap();
    let backlinks = || logged_query(&sandbox, &root, &["backlinks", "b"]);
    let logs = || daemon_logs(&sandbox);
    let first = backlinks();
    assert!(
        first.contains("(`a`)") && !first.contains("(`c`)"),
        "{first}"
    );
    sandbox.stop_daemons();
    let snapshot = only_cached(&sandbox, "index");

    // While no Weft runs: c links to b, a is gone.
    std::fs::write(root.join("c.md"), "# C\nsee [[b]]\n").unwrap();
    std::fs::remove_file(root.join("a.md")).unwrap();
    wait_until("the changed answer", || {
        let now = backlinks();
        now.contains("(`c`)") && !now.contains("(`a`)")
    });
    assert!(
        logs().contains("notes read in"),
        "the snapshot was used:\n{}",
        logs()
    );
    sandbox.stop_daemons();

    // A damaged snapshot: refused, and the answers still right.
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    std::fs::write(&snapshot, bytes).unwrap();
    std::fs::write(root.join("d.md"), "[[b]]\n").unwrap();
    let again = backlinks();
    assert!(
        again.contains("(`c`)") && again.contains("(`d`)"),
        "{again}"
    );
    assert!(
        logs().contains("not used: its checksum or content is wrong"),
        "{}",
        logs()
    );
    sandbox.stop_daemons();
}

/// Issue 18: the full-text index lives in the user's cache too (memory-
/// mapped, kept in step per change); the next daemon reuses it, reads
/// again only the notes changed while no Weft ran, and rebuilds it when a
/// file of it is damaged, saying why in the log.
#[test]
fn a_restarted_daemon_reuses_its_full_text_and_reads_again_only_what_changed() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(
        "//- /a.md\n# A\nabout apples\n//- /b.md\n# B\nabout bananas\n//- /c.md\n# C\nplain\n",
    );
    let root = vault.path().canonicalize().unwrap();
    let search = |words: &str| logged_query(&sandbox, &root, &["search", words]);
    let logs = || daemon_logs(&sandbox);
    let first = search("bananas");
    assert!(
        first.contains("(`b`)") && !first.contains("(`c`)"),
        "{first}"
    );
    sandbox.stop_daemons();
    let kept = only_cached(&sandbox, "fulltext");
    assert_eq!(fulltext_segments(&kept).1, Vec::<PathBuf>::new());

    // While no Weft runs: c is about bananas now, b is gone.
    std::fs::write(root.join("c.md"), "# C\ncherries and bananas\n").unwrap();
    std::fs::remove_file(root.join("b.md")).unwrap();
    wait_until("the changed answer", || {
        let now = search("bananas");
        now.contains("(`c`)") && !now.contains("(`b`)")
    });
    assert!(
        logs().contains("3 notes opened in"),
        "the full text was reused:\n{}",
        logs()
    );
    sandbox.stop_daemons();
    // The merges that changes start finished before the daemon left: the
    // cache keeps only the files of the segments its last commit names.
    let (live, strays) = fulltext_segments(&kept);
    assert_eq!(strays, Vec::<PathBuf>::new(), "beside {live:?}");

    // A damaged file of it: refused, rebuilt, and the answers still right.
    let postings = live
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "idx"))
        .expect("a live segment's postings");
    let mut bytes = std::fs::read(postings).unwrap();
    assert!(!bytes.is_empty(), "{} is empty", postings.display());
    bytes[0] ^= 0x5a;
    std::fs::write(postings, bytes).unwrap();
    std::fs::write(root.join("d.md"), "# D\nbananas again\n").unwrap();
    // Answered from the snapshot at once (d, added while no Weft ran,
    // comes with the reconciliation), never from the damaged full text.
    let again = search("bananas");
    assert!(
        again.contains("(`c`)") && !again.contains("(`b`)"),
        "{again}"
    );
    wait_until("d found", || {
        let now = search("bananas");
        now.contains("(`c`)") && now.contains("(`d`)")
    });
    assert!(logs().contains("not used: damaged files"), "{}", logs());
    sandbox.stop_daemons();
}
