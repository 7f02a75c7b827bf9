//! `weft lsp` driven by a real editor: headless Neovim 0.11 runs
//! `tests/nvim/lsp.lua` against the built binary on a vault with emoji and a
//! note whose path has spaces and non-ASCII characters, and
//! `tests/nvim/tasks.lua` on a note of tasks, in UTF-16.

use std::path::PathBuf;
use std::time::Duration;

use weft_e2e::{Sandbox, wait_with_deadline};

const VAULT: &str = r#"
//- /.obsidian/types.json
{
  "types": {
    "status": "text",
    "rating": "number"
  }
}
//- /Hub.md
---
status: active
---
# The Hub
Intro. ^intro
## Details
//- /notes/A.md
# A 🙂
See [[Hub]] and 👩‍👩‍👧 🙂 [[Crème brûlée#Sœur]] then [[Ghost]].
//- /notes/Café notes/Crème brûlée.md
# Crème brûlée
## Sœur
Back to [[Hub#Details]].
//- /notes/B.md
---
status: "on hold: waiting"
---
//- /notes/C.md
---
rating: "3"
---
//- /Tasks.base
filters: 'status != "done"'
views:
  - type: table
    order: [file.name, note.status]
"#;

/// Runs `tests/nvim/<script>` in headless Neovim against the built `weft
/// lsp` on a vault written from `fixture`; returns the sandbox, the vault's
/// canonical root and what the script wrote, having checked it reported no
/// error.
fn run_nvim(script: &str, fixture: &str) -> (Sandbox, PathBuf, serde_json::Value) {
    let sandbox = Sandbox::new();
    let vault = sandbox.vault(fixture);
    let root = vault.path().canonicalize().expect("canonical vault");
    let out = sandbox.root().join("results.json");
    let child = sandbox
        .nvim(script)
        .arg(&root)
        .arg(&out)
        .spawn()
        .expect("start nvim");
    let output = wait_with_deadline(child, Duration::from_secs(240), "Neovim");
    // Neovim has stopped its `weft lsp`: the daemon is all that is left.
    sandbox.stop_daemons();
    let text = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "Neovim wrote no results; stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let results: serde_json::Value = serde_json::from_str(&text).expect("results JSON");
    assert_eq!(results["errors"], serde_json::json!([]), "{results:#}");
    (sandbox, root, results)
}

#[test]
fn neovim_completes_navigates_diagnoses_and_renames() {
    let (_sandbox, root, results) = run_nvim("lsp.lua", VAULT);
    assert_eq!(results["encoding"], "utf-8");

    assert_eq!(
        results["definition"],
        serde_json::json!({"file": "notes/Café notes/Crème brûlée.md", "line": 1}),
        "{results:#}"
    );
    assert_eq!(
        results["references"],
        serde_json::json!(["notes/A.md:1", "notes/Café notes/Crème brûlée.md:2"]),
        "{results:#}"
    );
    let hover = results["hover"].as_str().expect("hover text");
    assert!(
        hover.contains("**The Hub**") && hover.contains("2 backlinks from 2 notes"),
        "{hover}"
    );
    let diagnostics: Vec<&str> = results["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(
        diagnostics.iter().any(|d| d.contains("`[[Ghost]]`")),
        "{diagnostics:?}"
    );
    assert_eq!(
        results["completion"]["label"], "Crème brûlée",
        "{results:#}"
    );
    assert_eq!(results["completion"]["newText"], "Crème brûlée]]");
    // The edit starts right after `[[`, counted in UTF-8 bytes.
    assert_eq!(results["completion"]["start"], "More 🙂 [[".len());

    // Property names and values in the frontmatter, as YAML needs them.
    assert_eq!(
        results["property_key"],
        serde_json::json!({"label": "status", "newText": "status: ", "detail": "text · 2 notes"}),
        "{results:#}"
    );
    assert_eq!(
        results["property_values"],
        serde_json::json!(["active", "\"on hold: waiting\""]),
        "{results:#}"
    );

    let key_hover = results["property_hover"].as_str().unwrap_or_default();
    assert!(
        key_hover.starts_with("**status** · text (types.json) · in ")
            && key_hover.contains("`active` (1)")
            && key_hover.contains("`on hold: waiting` (1)"),
        "{results:#}"
    );

    // The key renamed from the key: in every note, the buffer, types.json
    // and the bases that name it.
    assert_eq!(results["key_renamed"], "phase: ", "{results:#}");
    let hub = std::fs::read_to_string(root.join("Hub.md")).expect("Hub.md");
    assert!(hub.starts_with("---\nphase: active\n---\n"), "{hub}");
    let b = std::fs::read_to_string(root.join("notes/B.md")).expect("B.md");
    assert_eq!(b, "---\nphase: \"on hold: waiting\"\n---\n");
    let base = std::fs::read_to_string(root.join("Tasks.base")).expect("Tasks.base");
    assert_eq!(
        base,
        "filters: 'phase != \"done\"'\nviews:\n  - type: table\n    order: [file.name, note.phase]\n"
    );
    let types = std::fs::read_to_string(root.join(".obsidian/types.json")).expect("types");
    assert!(
        types.contains("\"phase\": \"text\"") && !types.contains("status"),
        "{types}"
    );

    // A value that does not fit its declared type, and its certain fix.
    assert_eq!(
        results["type_diagnostic"],
        "2:8 `rating` is a number property (as .obsidian/types.json declares it); `\"3\"` is not a number.",
        "{results:#}"
    );
    assert_eq!(
        results["type_fix"],
        "Write `3` (`rating` is a number property)"
    );
    let c = std::fs::read_to_string(root.join("notes/C.md")).expect("C.md");
    assert_eq!(c, "---\nrating: 3\n---\n");

    assert_eq!(results["renamed"], true, "{results:#}");
    assert!(root.join("notes/Café notes/Crème caramel.md").exists());
    assert!(!root.join("notes/Café notes/Crème brûlée.md").exists());
    let a = std::fs::read_to_string(root.join("notes/A.md")).expect("A.md");
    assert!(
        a.contains("🙂 [[Crème caramel#Sœur]] then [[Ghost]]."),
        "{a}"
    );
}

const TASKS: &str = "
//- /Chores.md
# Chores 🧹
- [ ] 🗑️ trash 🔁 every week on Tuesday 📅 2024-05-07 ^t1
- [ ] 🏠 rent 📅 2024-02-30
- [ ] 🐈 feed 🔁 every funday
";

#[test]
fn neovim_completes_a_recurring_task_and_offers_and_checks_its_dates() {
    let (_sandbox, root, results) = run_nvim("tasks.lua", TASKS);
    assert_eq!(results["encoding"], "utf-16");

    // Each field that does not read, at its place in UTF-16 units (`🏠` and
    // `🐈` are two each).
    assert_eq!(
        results["diagnostics"],
        serde_json::json!([
            "2:14-27 task-date The task's due date: 2024-02-30 is not a calendar date.",
            "3:14-29 task-recurrence The task's recurrence rule: cannot read \"every funday\": \
             expected day(s), weekday(s), week(s), month(s), year(s), a weekday or a month at \"funday\"."
        ]),
        "{results:#}"
    );

    // The dates after `📅 `: today, tomorrow and seven more, the edit
    // starting right after the space (`🪴` and `📅` are two units each).
    let dates = results["dates"].as_array().expect("dates");
    assert_eq!(dates.len(), 9, "{results:#}");
    let today = dates[0]["label"].as_str().expect("today's date");
    assert_eq!(dates[0]["detail"], "today");
    assert_eq!(dates[1]["detail"], "tomorrow");
    for date in dates {
        assert_eq!(date["newText"], date["label"]);
        assert_eq!(
            date["start"],
            "- [ ] water the 🪴 📅 ".encode_utf16().count()
        );
        let label = date["label"].as_str().unwrap_or_default();
        assert!(
            label.len() == 10 && label.as_bytes()[4] == b'-' && label.as_bytes()[7] == b'-',
            "{label}"
        );
    }

    // Completed through the code action: the next copy above (its due date
    // a week on, without the block id), the done line with today's date
    // (the server's today, as its completion says), saved.
    assert_eq!(
        [&results["actions"][0], &results["actions"][1]],
        ["Complete task", "Cancel task"],
        "{results:#}"
    );
    let saved = std::fs::read_to_string(root.join("Chores.md")).expect("Chores.md");
    assert_eq!(
        saved,
        format!(
            "# Chores 🧹\n\
             - [ ] 🗑️ trash 🔁 every week on Tuesday 📅 2024-05-14\n\
             - [x] 🗑️ trash 🔁 every week on Tuesday 📅 2024-05-07 ✅ {today} ^t1\n\
             - [ ] 🏠 rent 📅 2024-02-30\n\
             - [ ] 🐈 feed 🔁 every funday\n"
        )
    );
}
