//! `update_task`: a task found by line and words (or words alone), changed
//! as the plugin changes it, the rest of the note byte for byte; a moved
//! line, an ambiguous or missing task and an unreadable rule change nothing.

use super::TestVault;
use crate::config::Config;
use crate::ops::{UpdateTask, WriteOptions};
use weft_vault::daily::format_date;
use weft_vault::tasks::write::TaskChange;

fn today() -> String {
    format_date(Config::default().now().today(), "YYYY-MM-DD")
}

fn done(path: &str, line: Option<u32>, text: &str) -> UpdateTask {
    UpdateTask {
        path: path.into(),
        line,
        text: text.into(),
        changes: vec![TaskChange::Status('x')],
        options: WriteOptions::default(),
    }
}

const TODO: &str = "# Todo\r\n\r\n- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25\r\n- [ ] call Bob ⏫ ^bob\r\n> - [ ] quoted one\r\nafter\r\n";

#[test]
fn completing_a_recurring_task_adds_its_next_copy_above_in_the_notes_line_endings() {
    let v = TestVault::new(&[("todo.md", TODO)]);
    let report = v
        .ops()
        .update_task(&done("Todo", Some(3), "trash"))
        .expect("completes");
    let today = today();
    assert_eq!(
        v.read("todo.md"),
        format!(
            "# Todo\r\n\r\n- [ ] take out the trash 🔁 every week on Sunday 📅 2021-05-02\r\n\
             - [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ {today}\r\n\
             - [ ] call Bob ⏫ ^bob\r\n> - [ ] quoted one\r\nafter\r\n"
        )
    );
    assert_eq!(report.line, 3);
    assert_eq!(report.lines.len(), 2);
    assert!(
        report.lines[0].2 && !report.lines[1].2,
        "{:?}",
        report.lines
    );
    assert_eq!(report.lines[1].0, 4);
    v.assert_fresh();
    // The index follows: the new copy is a task, the old one done.
    let tasks = {
        let index = v.vault.index.read().unwrap();
        let id = index.id_of("todo.md").unwrap();
        index
            .note(id)
            .tasks
            .iter()
            .map(|t| (t.line + 1, t.symbol))
            .collect::<Vec<_>>()
    };
    assert_eq!(tasks, [(3, ' '), (4, 'x'), (5, ' '), (6, ' ')]);
}

#[test]
fn words_alone_find_one_task_and_keep_the_block_id_and_the_quote() {
    let v = TestVault::new(&[("todo.md", TODO)]);
    v.ops()
        .update_task(&done("todo", None, "BOB"))
        .expect("completes");
    v.ops()
        .update_task(&done("todo", None, "quoted"))
        .expect("completes");
    let today = today();
    assert!(
        v.read("todo.md").contains(&format!(
            "- [x] call Bob ⏫ ✅ {today} ^bob\r\n> - [x] quoted one ✅ {today}\r\n"
        )),
        "{}",
        v.read("todo.md")
    );
}

#[test]
fn a_moved_line_an_ambiguous_or_missing_task_changes_nothing() {
    let v = TestVault::new(&[
        ("todo.md", TODO),
        ("two.md", "- [ ] a call\n- [ ] another call\n"),
    ]);
    let e = v.fails(|ops| ops.update_task(&done("todo", Some(4), "trash")));
    let message = e.to_string();
    assert!(
        message.contains("line 4 is the task \"call Bob\""),
        "{message}"
    );
    assert!(
        message.contains("at line 3 now; pass `line: 3`"),
        "{message}"
    );
    let e = v.fails(|ops| ops.update_task(&done("two", None, "call")));
    assert!(
        e.to_string()
            .contains("2 tasks of `two.md` hold \"call\": line 1: a call; line 2: another call"),
        "{e}"
    );
    let e = v.fails(|ops| ops.update_task(&done("two", None, "dentist")));
    assert!(
        e.to_string()
            .contains("no task of `two.md` holds \"dentist\""),
        "{e}"
    );
    let e = v.fails(|ops| ops.update_task(&done("todo", Some(1), "trash")));
    assert!(
        e.to_string().contains("line 1 of `todo.md` is not a task"),
        "{e}"
    );
    let e = v.fails(|ops| {
        ops.update_task(&UpdateTask {
            changes: vec![],
            ..done("todo", Some(3), "trash")
        })
    });
    assert!(e.to_string().contains("nothing to change"), "{e}");
}

#[test]
fn an_unreadable_rule_is_an_error_and_a_dry_run_writes_nothing() {
    let v = TestVault::new(&[(
        "r.md",
        "- [ ] odd 🔁 every blue moon 📅 2024-01-01\n- [ ] fine 🔁 every day 📅 2024-01-01\n",
    )]);
    let e = v.fails(|ops| ops.update_task(&done("r", Some(1), "odd")));
    assert!(e.to_string().contains("every blue moon"), "{e}");
    let report = v.dry(|ops| {
        ops.update_task(&UpdateTask {
            options: WriteOptions {
                dry_run: true,
                ..WriteOptions::default()
            },
            ..done("r", Some(2), "fine")
        })
    });
    assert!(report.changed && report.dry_run);
    assert_eq!(report.lines[0].1, "- [ ] fine 🔁 every day 📅 2024-01-02");
}

#[test]
fn on_completion_delete_removes_the_line_even_the_last_one() {
    let v = TestVault::new(&[("d.md", "# D\n- [ ] keep me\n- [ ] gone 🏁 delete")]);
    let report = v
        .ops()
        .update_task(&done("d", Some(3), "gone"))
        .expect("completes");
    assert!(report.lines.is_empty());
    assert_eq!(v.read("d.md"), "# D\n- [ ] keep me");
}
