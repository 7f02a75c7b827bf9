//! `weft doctor` on a real vault served by a real daemon: all well, then
//! each thing the issue names broken in turn (no vault, an unreadable
//! configuration, a stale socket, a daemon of another build, the history
//! store missing, the persisted index corrupt), each found and explained,
//! and put right again.

use std::io::Write;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use weft_e2e::{Sandbox, TempVault};

/// `weft doctor --vault VAULT`: (exit code, what it printed).
fn doctor(vault: &TempVault) -> (i32, String) {
    let out = vault.weft(&["doctor"]).output().expect("weft doctor");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn healthy(vault: &TempVault) -> String {
    let (code, out) = doctor(vault);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("All is well."), "{out}");
    assert!(!out.contains('✗'), "{out}");
    out
}

/// Finds `wanted` in a ✗ line and its fix, with exit 1.
fn finds(vault: &TempVault, wanted: &str) -> String {
    let (code, out) = doctor(vault);
    assert_eq!(code, 1, "{out}");
    let line = out
        .lines()
        .find(|l| l.contains('✗') && l.contains(wanted))
        .unwrap_or_else(|| panic!("no ✗ with {wanted:?}:\n{out}"));
    let fix = out
        .lines()
        .skip_while(|l| *l != line)
        .nth(1)
        .unwrap_or_default();
    assert!(
        fix.trim_start().starts_with('→'),
        "a fix follows {line:?}:\n{out}"
    );
    out
}

/// An agent connects (`initialize`), so the daemon makes the history store
/// and saves the index.
fn serve_an_agent(sandbox: &Sandbox, vault: &TempVault) {
    let mut child = sandbox
        .weft()
        .args(["mcp", "--vault"])
        .arg(vault.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("weft mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"doctor-test","version":"1"}}}}}}"#
    )
    .unwrap();
    let store = vault.path().join(".weft/history.git/HEAD");
    let start = Instant::now();
    while !store.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no history store"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(stdin);
    let _ = child.wait();
    // The daemon saves its index as it exits.
    sandbox.stop_daemons();
}

/// The one file under `dir` whose name ends with `suffix`.
fn only_file(dir: &Path, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

#[test]
fn doctor_says_all_is_well_then_finds_and_explains_each_fault() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /a.md\n# A\n[[b]]\n//- /b.md\n# B\n");
    serve_an_agent(&sandbox, &vault);
    let out = healthy(&vault);
    assert!(out.contains("2 notes"), "{out}");
    assert!(out.contains("2 notes, for this build"), "{out}");
    assert!(out.contains("✓ store "), "{out}");

    // No vault.
    let missing = sandbox.root().join("no-such-vault");
    let out = sandbox
        .weft()
        .args(["doctor", "--vault"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("✗ no vault at"), "{text}");
    assert!(text.contains("--vault DIR"), "{text}");

    // A configuration that does not load.
    let config = vault.path().join(".weft.toml");
    std::fs::write(&config, "[daily\nfolder = 3\n").unwrap();
    finds(&vault, ".weft.toml");
    std::fs::remove_file(&config).unwrap();
    healthy(&vault);

    // Obsidian's property types that do not read: said, and not a failure.
    let types = vault.path().join(".obsidian/types.json");
    std::fs::create_dir_all(types.parent().unwrap()).unwrap();
    std::fs::write(&types, "{\"types\": [").unwrap();
    let (code, out) = doctor(&vault);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("types.json") && out.contains("inferred from the values"),
        "{out}"
    );
    std::fs::remove_file(&types).unwrap();

    // The history store removed.
    let store = vault.path().join(".weft/history.git");
    let aside = vault.path().join(".weft/aside.git");
    std::fs::rename(&store, &aside).unwrap();
    finds(&vault, "history store missing");
    std::fs::rename(&aside, &store).unwrap();
    healthy(&vault);

    // The persisted index damaged.
    let snapshot = only_file(&sandbox.root().join("cache/weft/index"), ".snap");
    let good = std::fs::read(&snapshot).unwrap();
    let mut bad = good.clone();
    let middle = bad.len() / 2;
    bad[middle] ^= 0xff;
    std::fs::write(&snapshot, &bad).unwrap();
    let out = finds(&vault, "is unusable");
    assert!(out.contains(&snapshot.display().to_string()), "{out}");
    std::fs::write(&snapshot, &good).unwrap();
    healthy(&vault);

    // A stale socket: its daemon died without removing it.
    let out = healthy(&vault);
    let socket = out
        .split("(socket ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("the socket's path:\n{out}"));
    drop(UnixListener::bind(&socket).expect("bind"));
    assert!(socket.exists());
    finds(&vault, "stale socket");
    std::fs::remove_file(&socket).unwrap();
    healthy(&vault);

    // A daemon of another build serving the same vault.
    let name = socket.file_name().unwrap().to_string_lossy().into_owned();
    let hash = name
        .trim_end_matches(".sock")
        .rsplit('-')
        .next()
        .unwrap()
        .to_string();
    let other = socket.with_file_name(format!("weft-0.0.1-feedface-{hash}.sock"));
    let listener = UnixListener::bind(&other).expect("bind");
    let out = finds(&vault, "another build (weft 0.0.1-feedface)");
    assert!(out.contains(&other.display().to_string()), "{out}");
    drop(listener);
    std::fs::remove_file(&other).unwrap();
    healthy(&vault);

    // Usage errors are 2.
    let out = sandbox.weft().args(["doctor", "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    sandbox.stop_daemons();
}

#[test]
fn doctor_checks_that_zeds_settings_run_an_existing_weft() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /a.md\n# A\n");
    let zed = sandbox.root().join("config/zed");
    std::fs::create_dir_all(&zed).unwrap();
    // JSON with comments and a trailing comma, as Zed writes it.
    std::fs::write(
        zed.join("settings.json"),
        "{\n  // Weft\n  \"lsp\": { \"weft\": { \"binary\": { \"path\": \"/no/such/weft\" } } },\n}\n",
    )
    .unwrap();
    let out = finds(&vault, "lsp.weft.binary.path names /no/such/weft");
    assert!(out.contains("which does not exist"), "{out}");
    let weft = weft_e2e::weft_bin();
    std::fs::write(
        zed.join("settings.json"),
        format!(
            "{{ \"context_servers\": {{ \"weft\": {{ \"settings\": {{ \"path\": {:?} }} }} }} }}",
            weft.display().to_string()
        ),
    )
    .unwrap();
    let out = healthy(&vault);
    assert!(
        out.contains("context_servers.weft.settings.path runs this binary"),
        "{out}"
    );
    sandbox.stop_daemons();
}
