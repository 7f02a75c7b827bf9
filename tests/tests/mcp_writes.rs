//! `weft mcp`'s write tools driven as users drive them: the seed write
//! scenarios through the official MCP Python SDK (both handshakes) against
//! the built binary, with the disk checked after each step; and a crash
//! test that SIGKILLs the server at random moments of a stream of writes
//! sent on the raw wire, then checks that every note is some whole version
//! (never torn), that leftover temp files are hidden and never counted as
//! notes, that a restarted server reads every note and removes the temp
//! files the killed one left. Each test runs in
//! a sandbox of its own and stops the daemons it started.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use weft_e2e::{McpWire, Sandbox, TempVault, python_report, send_line};

/// Bounds a failing run only; nothing is timed.
const DEADLINE: Duration = Duration::from_secs(120);

fn scenario_vault(sandbox: &Sandbox) -> TempVault {
    let mut fixture = String::from(
        r#"
//- /.obsidian/daily-notes.json
{"folder": "Daily", "format": "YYYY-MM-DD", "template": "Templates/Daily", "autorun": false}
//- /.weft.toml
templates_folder = "Templates"
//- /Templates/Daily.md
# {{date}}
## Log

## Tasks
//- /Templates/Meeting.md
---
type: meeting
---
# {{title}}
Held on {{date}}.
//- /Roadmap.md
# Roadmap
The draft plan.
## Plan
### Next
- ship v1

## Done
Old stuff.
//- /Hub.md
# Hub
See [[Roadmap]], [[Roadmap|the roadmap]], [[Roadmap#Plan]] and ![[Roadmap#Next]].
Also [md link](Roadmap.md).
//- /deep/nested/Ref.md
Up: [rel](../../Roadmap.md) and [[Roadmap|RM]].
//- /Orphan.md
# Orphan
//- /Target.md
# Target
//- /Linker.md
Points at [[Target]] and [[Target|the target]].
//- /Target2.md
# Target 2
//- /Linker2.md
Points at [[Target2]] and [[Target2|the target]].
"#,
    );
    for i in 0..10 {
        fixture.push_str(&format!("//- /inbox/item {i}.md\n# Item {i}\nSome text.\n"));
    }
    let vault = sandbox.vault(&fixture);
    std::fs::write(
        vault.path().join("windows.md"),
        "# Windows\r\n## Log\r\nfirst\r\n",
    )
    .unwrap();
    vault
}

fn run_scenario(sandbox: &Sandbox, mode: &str) -> (TempVault, Value) {
    let vault = scenario_vault(sandbox);
    let report = python_report(sandbox, "writes_scenario.py", vault.path(), &[mode]);
    (vault, report)
}

fn read(vault: &TempVault, rel: &str) -> String {
    std::fs::read_to_string(vault.path().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn check_scenario(vault: &TempVault, report: &Value) {
    // The script checked every step; the end state once more from here.
    assert!(vault.path().join("archive/Roadmap 2025.md").exists());
    assert!(!vault.path().join("Roadmap.md").exists());
    assert!(vault.path().join(".trash/Target.md").exists());
    assert!(read(vault, "Hub.md").contains("[[Roadmap 2025|the roadmap]]"));
    assert!(read(vault, "windows.md").ends_with("first\r\nsecond\r\nthird\r\n"));
    assert!(read(vault, "Daily/2024-03-09.md").starts_with("Mood: good\n# 2024-03-09\n"));
    for i in 0..10 {
        assert!(
            read(vault, &format!("inbox/item {i}.md")).ends_with(&format!("- follow-up {i}\n"))
        );
    }
    assert_eq!(
        report["annotations"]["daily_note"],
        json!({"destructive": false, "idempotent": false})
    );
    assert_eq!(
        report["annotations"]["delete_note"],
        json!({"destructive": true, "idempotent": false})
    );
    let errors = report["errors"].as_array().unwrap();
    assert!(errors.len() >= 10, "{errors:#?}");
    let mut ms: Vec<f64> = report["write_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    eprintln!(
        "{}: {} calls and {} refused calls in {} ms; {} writes through the SDK: p50 {} ms, p95 {} ms",
        report["mode"],
        report["calls"].as_array().unwrap().len(),
        errors.len(),
        report["scenario_ms"],
        ms.len(),
        at(0.5),
        at(0.95)
    );
}

#[test]
fn python_sdk_runs_the_seed_write_scenarios() {
    let sandbox = Sandbox::new();
    let (vault, report) = run_scenario(&sandbox, "auto");
    assert_eq!(report["protocol_version"], "2026-07-28", "{report}");
    check_scenario(&vault, &report);
    sandbox.stop_daemons();
}

#[test]
fn python_sdk_legacy_mode_runs_the_seed_write_scenarios() {
    let sandbox = Sandbox::new();
    let (vault, report) = run_scenario(&sandbox, "legacy");
    assert_ne!(report["protocol_version"], "2026-07-28", "{report}");
    check_scenario(&vault, &report);
    sandbox.stop_daemons();
}

/// A `weft mcp` process spoken to line by line on the raw wire, past its
/// handshake.
struct Wire(McpWire);

impl std::ops::Deref for Wire {
    type Target = McpWire;
    fn deref(&self) -> &McpWire {
        &self.0
    }
}

impl std::ops::DerefMut for Wire {
    fn deref_mut(&mut self) -> &mut McpWire {
        &mut self.0
    }
}

impl Wire {
    fn start(sandbox: &Sandbox, vault: &Path) -> Wire {
        // In-process: the SIGKILL must hit the process that writes (the
        // daemon's own death is tests/tests/daemon.rs's business).
        let wire = McpWire::start(
            sandbox
                .weft()
                .args(["--no-daemon", "mcp", "--vault"])
                .arg(vault)
                .stderr(Stdio::null()),
        );
        wire.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "crash-test", "version": "0"}}
        }));
        let init = wire.response(0);
        assert_eq!(init["result"]["serverInfo"]["name"], "weft", "{init}");
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        Wire(wire)
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}));
        self.response(id)["result"].clone()
    }

    /// `vault_info` once the vault is indexed.
    fn ready(&mut self) -> Value {
        let start = Instant::now();
        for id in 1_000_000.. {
            let info = self.call(id, "vault_info", json!({}));
            if info["structuredContent"]["status"]["phase"] == "ready" {
                return info["structuredContent"].clone();
            }
            assert!(start.elapsed() < DEADLINE, "{info}");
            std::thread::sleep(Duration::from_millis(50));
        }
        unreachable!()
    }
}

/// The full text of version `v` of note `name`: large enough that writing
/// it takes a while, so kills land in the middle of writes.
fn version_text(name: &str, v: u64) -> String {
    let mut text = format!("---\nversion: {v}\n---\n# {name}\n");
    for line in 0..1_500 {
        text.push_str(&format!(
            "{name} version {v} line {line}: some words to fill the note.\n"
        ));
    }
    text
}

/// The version a note's text claims, if it is exactly that version's text.
fn whole_version(name: &str, text: &str) -> Option<u64> {
    let v: u64 = text
        .strip_prefix("---\nversion: ")?
        .split('\n')
        .next()?
        .parse()
        .ok()?;
    (text == version_text(name, v)).then_some(v)
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every file under `root` (relative paths).
fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(
                    path.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    out.sort();
    out
}

const NOTES: usize = 12;

/// The vault's visible notes (relative paths).
fn notes_on_disk(root: &Path) -> Vec<String> {
    files(root)
        .into_iter()
        .filter(|p| p.ends_with(".md") && !p.split('/').any(|part| part.starts_with('.')))
        .collect()
}

/// Every note on disk reads back through the server with the same hash.
fn check_reads(wire: &mut Wire, root: &Path, round: usize) {
    for (i, path) in notes_on_disk(root).iter().enumerate() {
        let result = wire.call(
            10_000 + i as u64,
            "read_note",
            json!({"path": path, "view": "metadata"}),
        );
        let disk = std::fs::read(root.join(path)).unwrap();
        assert_eq!(
            result["structuredContent"]["notes"][0]["sha256"],
            sha256_hex(&disk),
            "round {round}: {path}: {result}"
        );
    }
}

#[test]
fn a_server_killed_during_writes_leaves_no_torn_note() {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault("//- /README.md\n# Crash vault\n");
    for i in 0..NOTES {
        let name = format!("n{i}");
        std::fs::write(
            vault.path().join(format!("{name}.md")),
            version_text(&name, 0),
        )
        .unwrap();
    }
    let seed = std::env::var("WEFT_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("crash test seed {seed} (set WEFT_CRASH_SEED to repeat)");
    let mut rng = fastrand::Rng::with_seed(seed);
    // Every version ever sent, by note name; 0 is the fixture's.
    let mut sent: BTreeMap<String, BTreeSet<u64>> = (0..NOTES)
        .map(|i| (format!("n{i}"), BTreeSet::from([0])))
        .collect();
    let mut version = 0u64;
    let mut created = 0usize;
    let mut answered_total = 0usize;
    for round in 0..6 {
        let mut wire = Wire::start(&sandbox, vault.path());
        let info = wire.ready();
        let expected_notes = notes_on_disk(vault.path()).len();
        assert_eq!(
            info["counts"]["notes"], expected_notes,
            "round {round}: the restarted server counts other notes than the disk holds"
        );
        // Every note reads back whole through the restarted server.
        check_reads(&mut wire, vault.path(), round);

        // A stream of writes from another thread, until the kill.
        let stop = Arc::new(AtomicBool::new(false));
        let mut plan: Vec<(String, u64, bool)> = Vec::new();
        for _ in 0..400 {
            version += 1;
            if rng.u32(..5) == 0 {
                created += 1;
                plan.push((format!("new/c{created}"), version, true));
            } else {
                plan.push((format!("n{}", rng.usize(..NOTES)), version, false));
            }
        }
        let stdin = wire.stdin.clone();
        let writer_stop = stop.clone();
        let written = Arc::new(AtomicUsize::new(0));
        let writer_count = written.clone();
        let writes = plan.clone();
        let writer = std::thread::spawn(move || {
            for (k, (name, v, create)) in writes.into_iter().enumerate() {
                if writer_stop.load(Ordering::SeqCst) {
                    break;
                }
                let args = if create {
                    json!({"path": name, "content": version_text(&name, v)})
                } else {
                    json!({"path": name, "content": version_text(&name, v), "overwrite": true})
                };
                let message = json!({"jsonrpc": "2.0", "id": 100 + k, "method": "tools/call", "params": {"name": "write_note", "arguments": args}});
                if send_line(&stdin, &message).is_err() {
                    break;
                }
                writer_count.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        // Kill at a random moment once writes are flowing.
        let delay = Duration::from_millis(rng.u64(100..2_500));
        let start = Instant::now();
        let mut answered = 0;
        while start.elapsed() < delay {
            if let Ok(line) = wire.lines.recv_timeout(Duration::from_millis(5))
                && line.contains("\"result\"")
            {
                answered += 1;
            }
        }
        wire.child.kill().expect("SIGKILL");
        let _ = wire.child.wait();
        stop.store(true, Ordering::SeqCst);
        let _ = writer.join();
        while let Ok(line) = wire.lines.recv_timeout(Duration::from_millis(200)) {
            if line.contains("\"result\"") {
                answered += 1;
            }
        }
        let sent_now = written.load(Ordering::SeqCst);
        for (name, v, _) in plan.iter().take(sent_now) {
            sent.entry(name.clone()).or_default().insert(*v);
        }
        answered_total += answered;
        eprintln!(
            "round {round}: killed after {} ms, {sent_now} writes sent, {answered} answered",
            delay.as_millis()
        );

        // Every note on disk is one whole version that was sent.
        for path in files(vault.path()) {
            if path.starts_with(".weft/") {
                continue; // Weft's history store, not notes.
            }
            let hidden = path.split('/').any(|part| part.starts_with('.'));
            if hidden {
                let name = path.rsplit('/').next().unwrap();
                assert!(
                    name.contains(".weft-") && name.ends_with(".tmp"),
                    "round {round}: unexpected hidden file {path}"
                );
                continue;
            }
            if path == "README.md" {
                continue;
            }
            let name = path.strip_suffix(".md").unwrap_or_else(|| panic!("{path}"));
            let text = std::fs::read_to_string(vault.path().join(&path)).unwrap();
            let v = whole_version(name, &text).unwrap_or_else(|| {
                panic!(
                    "round {round}: {path} is torn ({} bytes):\n{}",
                    text.len(),
                    &text[..text.len().min(300)]
                )
            });
            let allowed = sent.get(name).cloned().unwrap_or_default();
            assert!(
                allowed.contains(&v),
                "round {round}: {path} holds version {v}, which was never sent"
            );
        }
    }
    // A last restart reads everything, temp files not counted as notes.
    let mut wire = Wire::start(&sandbox, vault.path());
    let info = wire.ready();
    let notes = notes_on_disk(vault.path());
    assert_eq!(info["counts"]["notes"], notes.len());
    let bytes: u64 = notes
        .iter()
        .map(|p| std::fs::metadata(vault.path().join(p)).unwrap().len())
        .sum();
    assert_eq!(info["counts"]["markdown_bytes"], bytes);
    check_reads(&mut wire, vault.path(), 6);
    let leftovers = files(vault.path())
        .iter()
        .filter(|p| p.ends_with(".tmp"))
        .count();
    eprintln!(
        "6 kills: {} notes on disk, {answered_total} writes answered before the kills, {leftovers} leftover temp files",
        notes.len()
    );
    // Regression (issue 14): temp files of the killed writers stayed for
    // ever; the server that loads the vault removes them.
    assert_eq!(leftovers, 0, "temporary files of dead writers are removed");
    drop(wire);
    assert_eq!(sandbox.stop_daemons(), 0, "in-process servers only");
}
