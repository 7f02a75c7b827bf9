//! `weft mcp --http`: the MCP server over Streamable HTTP, served by the
//! vault's daemon for as long as the face runs. Real clients: the official
//! Python SDK (two HTTP agents, one per protocol era, and one stdio agent
//! writing at once, each seeing the others' writes) and the MCP Inspector
//! CLI. Security: the token is required (401 without it or with a wrong
//! one, nothing changed), kept private, and a non-loopback address needs
//! `--allow-remote`.

use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use weft_e2e::{HttpFace, Sandbox, mcp_inspector, python_report};

/// Bounds a failing run only; nothing is timed.
const DEADLINE: Duration = Duration::from_secs(120);

const VAULT: &str = r#"
//- /Hub.md
---
tags: [hub]
---
# Hub
The centre.
"#;

/// `weft mcp --http --vault VAULT EXTRA…`, started by `command`.
fn start_with(mut command: Command, vault: &std::path::Path, extra: &[&str]) -> HttpFace {
    command
        .args(["mcp", "--http", "--vault"])
        .arg(vault)
        .args(extra);
    HttpFace::spawn(command)
}

fn start(sandbox: &Sandbox, vault: &std::path::Path, extra: &[&str]) -> HttpFace {
    start_with(sandbox.weft(), vault, extra)
}

fn inspector(sandbox: &Sandbox, face: &HttpFace, header: Option<&str>) -> std::process::Output {
    let mut command = sandbox.command(mcp_inspector());
    command
        .arg("--cli")
        .arg(&face.url)
        .args(["--transport", "http", "--method", "tools/list"]);
    if let Some(header) = header {
        command.args(["--header", header]);
    }
    command.output().expect("run the MCP Inspector")
}

#[test]
fn http_agents_and_a_stdio_agent_share_one_vault_and_the_token_is_required() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let face = start(&sandbox, &root, &[]);
    assert!(face.url.starts_with("http://127.0.0.1:"), "{}", face.url);
    assert!(face.token.len() >= 32, "{}", face.token);

    // The token is kept for next time, readable by this user only.
    let kept = sandbox.root().join("config/weft/http-token");
    let text = std::fs::read_to_string(&kept).expect("the token is kept");
    assert_eq!(text.trim(), face.token);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{mode:o}");

    // Two HTTP agents and a stdio agent write at once; each sees all.
    let report: Value = python_report(&sandbox, "http_agents.py", &root, &[&face.url, &face.token]);
    for agent in ["http-modern", "http-legacy", "stdio"] {
        assert_eq!(report["seen"][agent]["notes_of_others"], 16, "{report}");
        assert_eq!(report["seen"][agent]["hub_backlinks"], 24, "{report}");
    }
    assert_eq!(report["tools"], serde_json::json!([23, 23, 23]), "{report}");
    assert!(
        report["refused"]
            .as_array()
            .is_some_and(|s| s.len() == 10 && s.iter().all(|s| s == 401)),
        "{report}"
    );
    assert!(!root.join("agents/intruder.md").exists());
    eprintln!(
        "three agents wrote 24 notes at once in {} ms",
        report["wrote_ms"]
    );

    // The MCP Inspector, with the token and without.
    let listed = inspector(
        &sandbox,
        &face,
        Some(&format!("Authorization: Bearer {}", face.token)),
    );
    let stdout = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let tools: Value = serde_json::from_str(stdout.trim()).expect("the Inspector's JSON");
    assert_eq!(tools["tools"].as_array().map(Vec::len), Some(23), "{tools}");
    let refused = inspector(&sandbox, &face, None);
    assert!(
        !refused.status.success(),
        "the Inspector got in without the token"
    );
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(said.contains("needs its token"), "{said}");

    // One daemon served all of it; a second HTTP face reuses the kept token.
    assert_eq!(sandbox.daemons().len(), 1);
    let second = start(&sandbox, &root, &[]);
    assert_eq!(second.token, face.token);
    assert_ne!(second.port(), face.port());
    assert_eq!(sandbox.daemons().len(), 1);
    assert!(second.stop().status.success());

    // Stopped: nothing listens there any more; the daemon lives on.
    let port = face.port();
    let output = face.stop();
    assert!(output.status.success(), "{output:?}");
    let deadline = std::time::Instant::now() + DEADLINE;
    while TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "port {port} still open"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        sandbox.stop_daemons(),
        1,
        "the daemon lives on for its idle time"
    );
}

#[test]
fn only_loopback_without_allow_remote_and_no_short_tokens() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    for (args, said) in [
        (&["--host", "0.0.0.0"][..], "--allow-remote"),
        (&["--host", "example.org"][..], "not an IP address"),
        (&["--token", "short"][..], "at least 16 characters"),
    ] {
        let output = sandbox
            .weft()
            .args(["mcp", "--http", "--vault"])
            .arg(vault.path())
            .args(args)
            .output()
            .expect("run weft");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
    }
    assert!(
        sandbox.daemons().is_empty(),
        "a refused start started a daemon"
    );
    assert!(!sandbox.root().join("config/weft/http-token").exists());
}

/// The daemon dies: the face starts another, which serves the same
/// address (clients start new sessions there). Without a daemon
/// (`--no-daemon`), the face serves in its own process.
#[test]
fn a_dead_daemon_is_replaced_on_the_same_port_and_no_daemon_serves_in_process() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(VAULT);
    let root = vault.path().canonicalize().unwrap();
    let face = start(&sandbox, &root, &[]);
    let header = format!("Authorization: Bearer {}", face.token);
    assert!(inspector(&sandbox, &face, Some(&header)).status.success());
    let killed = sandbox.kill_daemons();
    assert_eq!(killed.len(), 1);
    let deadline = std::time::Instant::now() + DEADLINE;
    loop {
        let listed = inspector(&sandbox, &face, Some(&header));
        if listed.status.success() {
            let tools: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
            assert_eq!(tools["tools"].as_array().map(Vec::len), Some(23));
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no daemon served {} again: {}",
            face.url,
            String::from_utf8_lossy(&listed.stderr)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let daemons = sandbox.daemons();
    assert_eq!(daemons.len(), 1);
    assert!(!killed.contains(&daemons[0].pid));
    assert!(face.stop().status.success());
    sandbox.stop_daemons();

    let mut in_process = sandbox.weft();
    in_process.arg("--no-daemon");
    let face = start_with(in_process, &root, &[]);
    assert!(inspector(&sandbox, &face, Some(&header)).status.success());
    assert!(sandbox.daemons().is_empty(), "--no-daemon started a daemon");
    assert!(face.stop().status.success());
}
