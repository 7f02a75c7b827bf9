//! The agent benchmark (`scripts/agent_bench.py`) run for Weft alone: every
//! one of its everyday tasks must come out right through the official
//! Python SDK, so the tool surface the benchmark tuned cannot regress
//! unseen. Its calls and bytes are reported, never asserted.

use std::path::Path;

use serde_json::Value;
use weft_e2e::{Sandbox, python, weft_bin};

#[test]
fn every_benchmark_task_is_right_for_weft() {
    let sandbox = Sandbox::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/agent_bench.py");
    let output = sandbox
        .command(python())
        .arg(script)
        .arg("--weft")
        .arg(weft_bin())
        .args(["--weft-only", "--json"])
        .output()
        .expect("run the agent benchmark");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).expect("the benchmark's JSON");
    let tasks = report["weft"]["tasks"].as_object().expect("tasks");
    assert_eq!(tasks.len(), 18, "{report:#}");
    // A property on a folder, a tag renamed everywhere, a property query
    // with a date, counts per value and a base's view: one call each.
    for one in [
        "property on a folder",
        "tag rename",
        "active projects due soon",
        "count per status",
        "a base's view",
    ] {
        assert_eq!(tasks[one]["calls"], 1, "{one}: {report:#}");
    }
    for (name, task) in tasks {
        assert_eq!(task["ok"], true, "{name}: {task}");
        eprintln!(
            "{name}: {} calls, {} result bytes",
            task["calls"], task["result_bytes"]
        );
    }
    sandbox.stop_daemons();
}
