//! An editor and an agent on one vault at once, as in Zed: headless Neovim
//! 0.11 (`weft lsp`) and the official MCP Python SDK (`weft mcp`) each start
//! their face, and both faces reach the vault's one index daemon. What the
//! agent writes clears the editor's diagnostic without any file event; the
//! agent reads the editor's unsaved text and cannot overwrite it; once the
//! user saves, the agent's write goes through.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use weft_e2e::{Sandbox, python, wait_with_deadline, weft_bin};

const VAULT: &str = "
//- /a.md
# A
See [[Ghost]].
//- /b.md
# B
Links to [[a]].
";

/// Bounds a failing run only.
const DEADLINE: Duration = Duration::from_secs(240);

#[test]
fn neovim_and_the_python_sdk_share_one_daemon() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().expect("canonical vault");
    let signals = sandbox.dir("signals");
    let out = sandbox.root().join("editor.json");
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut editor = sandbox.nvim("shared.lua");
    editor.arg(&root).arg(&signals).arg(&out);
    let mut agent = sandbox.command(python());
    agent
        .arg(here.join("python/shared_agent.py"))
        .arg(weft_bin())
        .arg(&root)
        .arg(&signals)
        .env("XDG_STATE_HOME", sandbox.root())
        .env("XDG_DATA_HOME", sandbox.root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let editor = editor.spawn().expect("start nvim");
    let agent = agent.spawn().expect("start the Python SDK");
    let editor = wait_with_deadline(editor, DEADLINE, "Neovim");
    let agent = wait_with_deadline(agent, DEADLINE, "the Python SDK");
    // Both faces are gone: their daemon is all that is left.
    let daemons = sandbox.stop_daemons();
    assert!(
        agent.status.success(),
        "the agent failed:\n{}\nNeovim's results: {}\nNeovim's stderr:\n{}",
        String::from_utf8_lossy(&agent.stderr),
        std::fs::read_to_string(&out).unwrap_or_default(),
        String::from_utf8_lossy(&editor.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "Neovim wrote no results; stderr:\n{}",
            String::from_utf8_lossy(&editor.stderr)
        )
    });
    let results: serde_json::Value = serde_json::from_str(&text).expect("results JSON");
    assert_eq!(results["errors"], serde_json::json!([]), "{results:#}");
    assert_eq!(daemons, 1, "one daemon for both faces");
    let seen: serde_json::Value = serde_json::from_slice(&agent.stdout).expect("the agent's JSON");
    eprintln!(
        "agent write → Neovim diagnostics: {} ms (write_note {} ms)",
        results["write_to_diagnostics_ms"], seen["write_note_ms"]
    );
    eprintln!(
        "editor_state while typing:\n{}",
        seen["editor_state"].as_str().unwrap_or_default()
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
