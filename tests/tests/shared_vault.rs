//! An editor and an agent on one vault at once, as in Zed: headless Neovim
//! 0.11 (`weft lsp`) and the official MCP Python SDK (`weft mcp`) each start
//! their face, and both faces reach the vault's one index daemon. What the
//! agent writes clears the editor's diagnostic without any file event; the
//! agent reads the editor's unsaved text and cannot overwrite it; once the
//! user saves, the agent's write goes through.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use weft_e2e::{TempVault, nvim, python, weft_bin};

const VAULT: &str = "
//- /a.md
# A
See [[Ghost]].
//- /b.md
# B
Links to [[a]].
";

#[test]
fn neovim_and_the_python_sdk_share_one_daemon() {
    let vault = TempVault::new(VAULT);
    let root = vault.path().canonicalize().expect("canonical vault");
    let work = tempfile::tempdir().expect("temp dir");
    let runtime = work.path().join("run");
    let signals = work.path().join("signals");
    std::fs::create_dir_all(&signals).expect("signals folder");
    let out = work.path().join("editor.json");
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let env = |command: &mut Command| {
        command
            .env("WEFT_RUNTIME_DIR", &runtime)
            .env("WEFT_DAEMON_IDLE", "2")
            .env_remove("WEFT_NO_DAEMON")
            .env("XDG_STATE_HOME", work.path())
            .env("XDG_DATA_HOME", work.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
    };
    let mut editor = Command::new(nvim());
    editor
        .args(["--headless", "--clean", "-l"])
        .arg(here.join("nvim/shared.lua"))
        .arg(weft_bin())
        .arg(&root)
        .arg(&signals)
        .arg(&out);
    env(&mut editor);
    let mut agent = Command::new(python());
    agent
        .arg(here.join("python/shared_agent.py"))
        .arg(weft_bin())
        .arg(&root)
        .arg(&signals);
    env(&mut agent);
    let mut editor = editor.spawn().expect("start nvim");
    let agent = agent.spawn().expect("start the Python SDK");
    let deadline = Instant::now() + Duration::from_secs(240);
    while editor.try_wait().expect("wait for nvim").is_none() {
        assert!(Instant::now() < deadline, "Neovim did not finish in time");
        std::thread::sleep(Duration::from_millis(50));
    }
    let agent = agent.wait_with_output().expect("agent output");
    let editor = editor.wait_with_output().expect("nvim output");
    let daemons: Vec<_> = std::fs::read_dir(&runtime)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "pid"))
                .collect()
        })
        .unwrap_or_default();
    for pid in &daemons {
        if let Ok(pid) = std::fs::read_to_string(pid) {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
    }
    assert!(
        agent.status.success(),
        "the agent failed:\n{}",
        String::from_utf8_lossy(&agent.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "Neovim wrote no results; stderr:\n{}",
            String::from_utf8_lossy(&editor.stderr)
        )
    });
    let results: serde_json::Value = serde_json::from_str(&text).expect("results JSON");
    assert_eq!(results["errors"], serde_json::json!([]), "{results:#}");
    assert_eq!(daemons.len(), 1, "one daemon for both faces: {daemons:?}");
    let seen: serde_json::Value = serde_json::from_slice(&agent.stdout).expect("the agent's JSON");
    eprintln!(
        "agent write → Neovim diagnostics: {} ms (write_note {} ms)",
        results["write_to_diagnostics_ms"], seen["write_note_ms"]
    );
    let a = std::fs::read_to_string(root.join("a.md")).expect("a.md");
    assert!(
        a.contains("Typed in the editor, not saved.") && a.contains("From the agent."),
        "{a}"
    );
    assert_eq!(
        a.matches("From the agent.").count(),
        1,
        "the refused edit left nothing: {a}"
    );
}
