//! Task edits against the brief (`TASKS.md` §2–§4) and the plugin's
//! documented results; each group names the page or test it follows.

use super::*;
use crate::tasks::status::{Status, Statuses};

fn d(text: &str) -> Date {
    let date = date_as_written(text).expect("a date");
    assert!(check_date(DateKind::Due, date).is_ok(), "{text}");
    date
}

fn with(edit: impl FnOnce(&mut TaskSettings)) -> TaskSettings {
    let mut settings = TaskSettings::default();
    edit(&mut settings);
    settings
}

fn edit(line: &str, changes: &[TaskChange], today: &str, settings: &TaskSettings) -> Vec<String> {
    match edit_task(line, changes, d(today), settings) {
        Ok(edit) => edit.lines,
        Err(error) => panic!("{line:?} {changes:?}: {error}"),
    }
}

const TODAY: &str = "2024-05-10";

fn done(line: &str) -> Vec<String> {
    edit(
        line,
        &[TaskChange::Status('x')],
        TODAY,
        &TaskSettings::default(),
    )
}

// ---------------------------------------------------------------------------
// Completing and un-completing: the done date comes and goes, the rest of
// the line stays (TASKS.md §2, §3; the field order of §3).

#[test]
fn complete_then_uncomplete_is_byte_identical() {
    let rows: &[(&str, &str)] = &[
        ("- [ ] plain", "- [x] plain ✅ 2024-05-10"),
        ("- [ ]", "- [x] ✅ 2024-05-10"),
        ("- [ ] ", "- [x] ✅ 2024-05-10 "),
        (
            "- [ ] trailing spaces   ",
            "- [x] trailing spaces ✅ 2024-05-10   ",
        ),
        (
            "- [ ] emoji 📅 2024-05-01",
            "- [x] emoji 📅 2024-05-01 ✅ 2024-05-10",
        ),
        (
            "- [ ] squeezed 📅2024-05-01",
            "- [x] squeezed 📅2024-05-01 ✅ 2024-05-10",
        ),
        (
            "- [ ] dataview [due:: 2024-05-01]",
            "- [x] dataview [due:: 2024-05-01]  [completion:: 2024-05-10]",
        ),
        (
            "- [ ] parens (due:: 2024-05-01)",
            "- [x] parens (due:: 2024-05-01)  [completion:: 2024-05-10]",
        ),
        ("> - [ ] quoted", "> - [x] quoted ✅ 2024-05-10"),
        (
            "> > * [ ] twice quoted",
            "> > * [x] twice quoted ✅ 2024-05-10",
        ),
        ("\t  - [ ] indented", "\t  - [x] indented ✅ 2024-05-10"),
        ("12. [ ] ordered", "12. [x] ordered ✅ 2024-05-10"),
        ("3) [ ] ordered paren", "3) [x] ordered paren ✅ 2024-05-10"),
        ("+   [ ]   wide", "+   [x]   wide ✅ 2024-05-10"),
        (
            "- [ ] block id ^abc-1",
            "- [x] block id ✅ 2024-05-10 ^abc-1",
        ),
        (
            "- [ ] block id 📅 2024-05-01 ^abc-1",
            "- [x] block id 📅 2024-05-01 ✅ 2024-05-10 ^abc-1",
        ),
        (
            "- [ ] trailing tag #t",
            "- [x] trailing tag #t ✅ 2024-05-10",
        ),
        (
            "- [ ] tags among 📅 2024-05-01 #a ⏫ #b",
            "- [x] tags among 📅 2024-05-01 ✅ 2024-05-10 #a ⏫ #b",
        ),
        (
            // Out of the plugin's order: after the nearest kind before done
            // in that order (due), wherever it stands.
            "- [ ] out of order 📅 2024-05-01 ⏫ ➕ 2024-01-01",
            "- [x] out of order 📅 2024-05-01 ✅ 2024-05-10 ⏫ ➕ 2024-01-01",
        ),
        (
            "- [ ] only before done ⏫ 🆔 abc",
            // After the nearest kind before done in the plugin's order that
            // the line has (priority), not after the last field.
            "- [x] only before done ⏫ ✅ 2024-05-10 🆔 abc",
        ),
        (
            "- [ ] emoji left of words 📅 2024-05-01 is text",
            "- [x] emoji left of words 📅 2024-05-01 is text ✅ 2024-05-10",
        ),
        (
            "- [ ] [[link|alias]] and `code` ⏳ 2024-05-02",
            "- [x] [[link|alias]] and `code` ⏳ 2024-05-02 ✅ 2024-05-10",
        ),
        (
            "- [ ] variation selector 📅\u{fe0f} 2024-05-01",
            "- [x] variation selector 📅\u{fe0f} 2024-05-01 ✅ 2024-05-10",
        ),
        ("- [/] in progress", "- [x] in progress ✅ 2024-05-10"),
        (
            "- [?] unknown is TODO",
            "- [x] unknown is TODO ✅ 2024-05-10",
        ),
        ("- [ ] ünïcödé 日本 ✓", "- [x] ünïcödé 日本 ✓ ✅ 2024-05-10"),
    ];
    let settings = TaskSettings::default();
    for (line, completed) in rows {
        assert_eq!(done(line), vec![completed.to_string()], "{line}");
        let symbol = read_line(line)
            .map(|p| line[p.symbol].chars().next().unwrap())
            .unwrap();
        let back = edit(completed, &[TaskChange::Status(symbol)], TODAY, &settings);
        assert_eq!(back, vec![line.to_string()], "{completed}");
    }
}

#[test]
fn a_task_without_fields_is_written_in_the_settings_format() {
    let settings = with(|s| s.format = Format::Dataview);
    let line = "- [ ] no fields yet";
    let out = edit(line, &[TaskChange::Status('x')], TODAY, &settings);
    assert_eq!(out, ["- [x] no fields yet  [completion:: 2024-05-10]"]);
    // A task with emoji fields keeps emoji under a Dataview setting.
    let out = edit(
        "- [ ] e 📅 2024-05-01",
        &[TaskChange::Status('x')],
        TODAY,
        &settings,
    );
    assert_eq!(out, ["- [x] e 📅 2024-05-01 ✅ 2024-05-10"]);
}

#[test]
fn done_date_setting_off_adds_none_and_removes_a_stale_one() {
    // Task.ts `newDate`: a task that becomes DONE gets today's date only
    // when the setting is on; otherwise none, even if one was written.
    let off = with(|s| s.set_done_date = false);
    assert_eq!(
        edit("- [ ] a", &[TaskChange::Status('x')], TODAY, &off),
        ["- [x] a"]
    );
    assert_eq!(
        edit(
            "- [ ] a ✅ 2020-01-01",
            &[TaskChange::Status('x')],
            TODAY,
            &off
        ),
        ["- [x] a"]
    );
    // On: a stale date on a TODO task is replaced by today.
    assert_eq!(done("- [ ] a ✅ 2020-01-01"), ["- [x] a ✅ 2024-05-10"]);
}

#[test]
fn a_no_op_leaves_the_line_alone() {
    let settings = TaskSettings::default();
    let rows: &[(&str, &[TaskChange])] = &[
        ("- [ ] a ✅ 2020-01-01 ", &[TaskChange::Status(' ')]),
        ("- [x]  a  📅2024-05-01", &[TaskChange::Status('x')]),
        (
            "- [ ] a 📅 2024-05-01",
            &[TaskChange::Date(
                DateKind::Due,
                Some(Date {
                    year: 2024,
                    month: 5,
                    day: 1,
                }),
            )],
        ),
        ("- [ ] a", &[TaskChange::Date(DateKind::Start, None)]),
        ("- [ ] a  ", &[TaskChange::Priority(Priority::None)]),
        ("- [ ] a ⏫", &[TaskChange::Priority(Priority::High)]),
        (
            "- [ ] a [priority:: high]",
            &[TaskChange::Priority(Priority::High)],
        ),
        ("- [ ] a", &[]),
    ];
    for (line, changes) in rows {
        let out = edit_task(line, changes, d(TODAY), &settings).unwrap();
        assert!(out.is_unchanged(line), "{line}: {:?}", out.lines);
    }
}

#[test]
fn moving_between_done_statuses_keeps_the_done_date() {
    // tests/Task/Task.test.ts "should not change the done date, if changing
    // from one DONE status to another".
    let settings = with(|s| {
        s.statuses = Statuses::new(vec![Status::new('X', "Done too", ' ', StatusType::Done)]);
    });
    let out = edit(
        "- [x] Stuff 📅 2023-12-15 ✅ 2019-01-17",
        &[TaskChange::Status('X')],
        "2023-06-26",
        &settings,
    );
    assert_eq!(out, ["- [X] Stuff 📅 2023-12-15 ✅ 2019-01-17"]);
}

// ---------------------------------------------------------------------------
// Cancelling (Task.test.ts "cancelled dates and new status").

#[test]
fn cancel_and_uncancel() {
    let settings = with(|s| {
        s.statuses = Statuses::new(vec![
            Status::new('X', "Done", ' ', StatusType::Done),
            Status::new('4', "Cancelled too", ' ', StatusType::Cancelled),
        ]);
    });
    let rows: &[(&str, char, &str)] = &[
        ("- [ ] Stuff", '-', "- [-] Stuff ❌ 2023-06-26"),
        ("- [-] Stuff ❌ 2023-06-26", ' ', "- [ ] Stuff"),
        (
            "- [X] Stuff 📅 2023-12-15 ✅ 2019-01-17",
            '-',
            "- [-] Stuff 📅 2023-12-15 ❌ 2023-06-26",
        ),
        (
            "- [4] Stuff 📅 2023-12-15 ❌ 2019-01-17",
            '-',
            "- [-] Stuff 📅 2023-12-15 ❌ 2019-01-17",
        ),
        (
            "- [ ] dv [due:: 2023-12-15]",
            '-',
            "- [-] dv [due:: 2023-12-15]  [cancelled:: 2023-06-26]",
        ),
        (
            "- [-] done after cancel 📅 2023-12-15 ❌ 2023-01-01",
            'x',
            "- [x] done after cancel 📅 2023-12-15 ✅ 2023-06-26",
        ),
    ];
    for (line, symbol, want) in rows {
        let out = edit(
            line,
            &[TaskChange::Status(*symbol)],
            "2023-06-26",
            &settings,
        );
        assert_eq!(out, [*want], "{line}");
    }
    let off = with(|s| s.set_cancelled_date = false);
    let out = edit(
        "- [ ] Stuff",
        &[TaskChange::Status('-')],
        "2023-06-26",
        &off,
    );
    assert_eq!(out, ["- [-] Stuff"]);
}

// ---------------------------------------------------------------------------
// Dates set and cleared, both formats (TASKS.md §3; the serializers write
// ` 📅 2024-05-01` and `  [due:: 2024-05-01]`, in the plugin's order).

#[test]
fn set_and_clear_each_date_in_both_formats() {
    let date = Some(d("2024-06-01"));
    let emoji = [
        (
            DateKind::Created,
            "- [ ] a ➕ 2024-06-01 ⏳ 2024-05-01 📅 2024-05-02",
        ),
        (
            DateKind::Start,
            "- [ ] a 🛫 2024-06-01 ⏳ 2024-05-01 📅 2024-05-02",
        ),
        (DateKind::Scheduled, "- [ ] a ⏳ 2024-06-01 📅 2024-05-02"),
        (DateKind::Due, "- [ ] a ⏳ 2024-05-01 📅 2024-06-01"),
        (
            DateKind::Cancelled,
            "- [ ] a ⏳ 2024-05-01 📅 2024-05-02 ❌ 2024-06-01",
        ),
        (
            DateKind::Done,
            "- [ ] a ⏳ 2024-05-01 📅 2024-05-02 ✅ 2024-06-01",
        ),
    ];
    let dataview = [
        (
            DateKind::Created,
            "- [ ] a  [created:: 2024-06-01]  [scheduled:: 2024-05-01]  [due:: 2024-05-02]",
        ),
        (
            DateKind::Start,
            "- [ ] a  [start:: 2024-06-01]  [scheduled:: 2024-05-01]  [due:: 2024-05-02]",
        ),
        (
            DateKind::Scheduled,
            "- [ ] a  [scheduled:: 2024-06-01]  [due:: 2024-05-02]",
        ),
        (
            DateKind::Due,
            "- [ ] a  [scheduled:: 2024-05-01]  [due:: 2024-06-01]",
        ),
        (
            DateKind::Cancelled,
            "- [ ] a  [scheduled:: 2024-05-01]  [due:: 2024-05-02]  [cancelled:: 2024-06-01]",
        ),
        (
            DateKind::Done,
            "- [ ] a  [scheduled:: 2024-05-01]  [due:: 2024-05-02]  [completion:: 2024-06-01]",
        ),
    ];
    let settings = TaskSettings::default();
    for (base, rows) in [
        ("- [ ] a ⏳ 2024-05-01 📅 2024-05-02", &emoji),
        (
            "- [ ] a  [scheduled:: 2024-05-01]  [due:: 2024-05-02]",
            &dataview,
        ),
    ] {
        for (kind, want) in rows {
            let set = edit(base, &[TaskChange::Date(*kind, date)], TODAY, &settings);
            assert_eq!(set, [*want], "{kind:?}");
            let cleared = edit(want, &[TaskChange::Date(*kind, None)], TODAY, &settings);
            let expect = if matches!(kind, DateKind::Scheduled | DateKind::Due) {
                // Clearing a date that was there removes it from the base.
                let out = edit(base, &[TaskChange::Date(*kind, None)], TODAY, &settings);
                assert!(!out[0].contains("2024-06-01"));
                out
            } else {
                vec![base.to_string()]
            };
            assert_eq!(cleared, expect, "{kind:?}");
        }
    }
    // Clearing a date takes the spaces before it, and any second copy.
    let out = edit(
        "- [ ] a 📅 2024-01-01 📅 2024-02-02 #t",
        &[TaskChange::Date(DateKind::Due, None)],
        TODAY,
        &settings,
    );
    assert_eq!(out, ["- [ ] a #t"]);
    // A date written twice: the one that counts (the leftmost) changes.
    let out = edit(
        "- [ ] a 📅 2024-01-01 📅 2024-02-02",
        &[TaskChange::Date(DateKind::Due, date)],
        TODAY,
        &settings,
    );
    assert_eq!(out, ["- [ ] a 📅 2024-06-01 📅 2024-02-02"]);
}

#[test]
fn explicit_done_and_cancelled_dates_change_no_status() {
    let settings = TaskSettings::default();
    let out = edit(
        "- [ ] a",
        &[TaskChange::Date(DateKind::Done, Some(d("2024-01-02")))],
        TODAY,
        &settings,
    );
    assert_eq!(out, ["- [ ] a ✅ 2024-01-02"]);
    let out = edit(
        "- [x] a ✅ 2024-01-02",
        &[TaskChange::Date(DateKind::Done, None)],
        TODAY,
        &settings,
    );
    assert_eq!(out, ["- [x] a"]);
}

#[test]
fn a_date_no_line_can_hold_is_refused() {
    let bad = Date {
        year: 2023,
        month: 2,
        day: 30,
    };
    let err = edit_task(
        "- [ ] a",
        &[TaskChange::Date(DateKind::Due, Some(bad))],
        d(TODAY),
        &TaskSettings::default(),
    )
    .unwrap_err();
    assert!(matches!(err, TaskError::BadDate { .. }));
    assert!(err.to_string().contains("2023-02-30"), "{err}");
    let far = Date {
        year: 10000,
        month: 1,
        day: 1,
    };
    assert!(
        edit_task(
            "- [ ] a",
            &[TaskChange::Date(DateKind::Due, Some(far))],
            d(TODAY),
            &TaskSettings::default()
        )
        .is_err()
    );
}

// ---------------------------------------------------------------------------
// Priority (TASKS.md §3; DataviewTaskSerializer writes `[priority:: high]`).

#[test]
fn priority_set_change_and_clear() {
    let settings = TaskSettings::default();
    let rows: &[(&str, Priority, &str)] = &[
        ("- [ ] a", Priority::High, "- [ ] a ⏫"),
        (
            "- [ ] a 📅 2024-05-01",
            Priority::High,
            "- [ ] a ⏫ 📅 2024-05-01",
        ),
        (
            "- [ ] a 🆔 x1 📅 2024-05-01",
            Priority::Lowest,
            "- [ ] a 🆔 x1 ⏬ 📅 2024-05-01",
        ),
        (
            "- [ ] a ⏫ 📅 2024-05-01",
            Priority::Highest,
            "- [ ] a 🔺 📅 2024-05-01",
        ),
        (
            "- [ ] a 📅 2024-05-01 🔼",
            Priority::Low,
            "- [ ] a 📅 2024-05-01 🔽",
        ),
        (
            "- [ ] a ⏫ 📅 2024-05-01",
            Priority::None,
            "- [ ] a 📅 2024-05-01",
        ),
        ("- [ ] a ⏫\u{fe0f}", Priority::Medium, "- [ ] a 🔼\u{fe0f}"),
        (
            "- [ ] a  [due:: 2024-05-01]",
            Priority::High,
            "- [ ] a  [priority:: high]  [due:: 2024-05-01]",
        ),
        (
            "- [ ] a  [priority:: high]  [due:: 2024-05-01]",
            Priority::Lowest,
            "- [ ] a  [priority:: lowest]  [due:: 2024-05-01]",
        ),
        (
            "- [ ] a  [priority:: high]  [due:: 2024-05-01]",
            Priority::None,
            "- [ ] a  [due:: 2024-05-01]",
        ),
    ];
    for (line, priority, want) in rows {
        let out = edit(line, &[TaskChange::Priority(*priority)], TODAY, &settings);
        assert_eq!(out, [*want], "{line}");
    }
    let dv = with(|s| s.format = Format::Dataview);
    let out = edit(
        "- [ ] a",
        &[TaskChange::Priority(Priority::High)],
        TODAY,
        &dv,
    );
    assert_eq!(out, ["- [ ] a  [priority:: high]"]);
}

// ---------------------------------------------------------------------------
// Recurrence: docs/Getting Started/Recurring Tasks.md.

#[test]
fn recurring_tasks_doc_examples() {
    let settings = TaskSettings::default();
    // The basic example. The plugin writes the rule back as rrule's
    // toText(): `every Sunday` becomes `every week on Sunday` (the page's
    // example shows the user's words; Queries/Filters.md says the text is
    // standardised). The done line keeps the user's bytes.
    let out = edit(
        "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25",
        &[TaskChange::Status('x')],
        "2021-04-24",
        &settings,
    );
    assert_eq!(
        out,
        [
            "- [ ] take out the trash 🔁 every week on Sunday 📅 2021-05-02",
            "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2021-04-24",
        ]
    );
    let created = with(|s| s.set_created_date = true);
    let out = edit(
        "- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25",
        &[TaskChange::Status('x')],
        "2023-03-10",
        &created,
    );
    assert_eq!(
        out,
        [
            "- [ ] take out the trash 🔁 every week on Sunday ➕ 2023-03-10 📅 2021-05-02",
            "- [x] take out the trash 🔁 every Sunday 📅 2021-04-25 ✅ 2023-03-10",
        ]
    );
    // "Repeating a Task Based on the Original Due Date or the Completion Date".
    let rows: &[(&str, [&str; 2])] = &[
        (
            "- [ ] sweep the floors 🔁 every week ⏳ 2021-02-06",
            [
                "- [ ] sweep the floors 🔁 every week ⏳ 2021-02-13",
                "- [x] sweep the floors 🔁 every week ⏳ 2021-02-06 ✅ 2022-02-13",
            ],
        ),
        (
            "- [ ] sweep the floors 🔁 every week when done ⏳ 2021-02-06",
            [
                "- [ ] sweep the floors 🔁 every week when done ⏳ 2022-02-20",
                "- [x] sweep the floors 🔁 every week when done ⏳ 2021-02-06 ✅ 2022-02-13",
            ],
        ),
    ];
    for (line, want) in rows {
        assert_eq!(
            edit(line, &[TaskChange::Status('x')], "2022-02-13", &settings),
            want
        );
    }
}

/// Completes `first` on each due date in turn, as the page's month
/// examples do, and returns the note's lines, newest first.
fn complete_repeatedly(first: &str, times: usize) -> Vec<String> {
    let settings = TaskSettings::default();
    let mut lines = vec![first.to_string()];
    for _ in 0..times {
        let top = lines.remove(0);
        let due = read_line(&top).unwrap();
        let due = &top[due.fields.get(FieldKind::Due).unwrap().value.clone()];
        let due = due.to_string();
        let out = edit(&top, &[TaskChange::Status('x')], &due, &settings);
        lines.splice(0..0, out);
    }
    lines
}

#[test]
fn recurring_tasks_doc_month_examples() {
    // "every month on the last: reliable and safe".
    assert_eq!(
        complete_repeatedly("- [ ] do stuff 🔁 every month on the last 📅 2022-01-31", 5),
        [
            "- [ ] do stuff 🔁 every month on the last 📅 2022-06-30",
            "- [x] do stuff 🔁 every month on the last 📅 2022-05-31 ✅ 2022-05-31",
            "- [x] do stuff 🔁 every month on the last 📅 2022-04-30 ✅ 2022-04-30",
            "- [x] do stuff 🔁 every month on the last 📅 2022-03-31 ✅ 2022-03-31",
            "- [x] do stuff 🔁 every month on the last 📅 2022-02-28 ✅ 2022-02-28",
            "- [x] do stuff 🔁 every month on the last 📅 2022-01-31 ✅ 2022-01-31",
        ]
    );
    // "every month: if next calculated date does not exist, move new due date earlier".
    assert_eq!(
        complete_repeatedly("- [ ] do stuff 🔁 every month 📅 2021-10-31", 5),
        [
            "- [ ] do stuff 🔁 every month 📅 2022-03-28",
            "- [x] do stuff 🔁 every month 📅 2022-02-28 ✅ 2022-02-28",
            "- [x] do stuff 🔁 every month 📅 2022-01-30 ✅ 2022-01-30",
            "- [x] do stuff 🔁 every month 📅 2021-12-30 ✅ 2021-12-30",
            "- [x] do stuff 🔁 every month 📅 2021-11-30 ✅ 2021-11-30",
            "- [x] do stuff 🔁 every month 📅 2021-10-31 ✅ 2021-10-31",
        ]
    );
    // "every month on the 31st: skips months with fewer than 31 days".
    assert_eq!(
        complete_repeatedly("- [ ] do stuff 🔁 every month on the 31st 📅 2022-01-31", 4),
        [
            "- [ ] do stuff 🔁 every month on the 31st 📅 2022-08-31",
            "- [x] do stuff 🔁 every month on the 31st 📅 2022-07-31 ✅ 2022-07-31",
            "- [x] do stuff 🔁 every month on the 31st 📅 2022-05-31 ✅ 2022-05-31",
            "- [x] do stuff 🔁 every month on the 31st 📅 2022-03-31 ✅ 2022-03-31",
            "- [x] do stuff 🔁 every month on the 31st 📅 2022-01-31 ✅ 2022-01-31",
        ]
    );
}

// tests/Task/Task.test.ts: whole lines of the next copy.

#[test]
fn next_copy_as_task_test_shows_it() {
    let no_done = with(|s| s.set_done_date = false);
    // "should remove id and dependsOn after toggle RECURRING task".
    let out = edit(
        "- [ ] should remove *id* and *dependsOn* in next recurrence 🆔 id2 ⛔ id1 🔁 every day 📅 2024-02-13",
        &[TaskChange::Toggle],
        TODAY,
        &no_done,
    );
    assert_eq!(
        out,
        [
            "- [ ] should remove *id* and *dependsOn* in next recurrence 🔁 every day 📅 2024-02-14",
            "- [x] should remove *id* and *dependsOn* in next recurrence 🆔 id2 ⛔ id1 🔁 every day 📅 2024-02-13",
        ]
    );
    // "should retain id and dependsOn after toggle NON-recurring task".
    let out = edit(
        "- [ ] should retain *id* and *dependsOn* 🆔 id2 ⛔ id1",
        &[TaskChange::Toggle],
        TODAY,
        &no_done,
    );
    assert_eq!(
        out,
        ["- [x] should retain *id* and *dependsOn* 🆔 id2 ⛔ id1"]
    );
    // "should allow "today" to be overridden": the plugin stamps the created
    // date from the clock; here `today` is the one day the caller gives.
    let created = with(|s| s.set_created_date = true);
    let out = edit(
        "- [ ] Annual task 🔁 every year when done 📅 1989-12-23",
        &[TaskChange::Status('x')],
        "2023-01-23",
        &created,
    );
    assert_eq!(
        out,
        [
            "- [ ] Annual task 🔁 every year when done ➕ 2023-01-23 📅 2024-01-23",
            "- [x] Annual task 🔁 every year when done 📅 1989-12-23 ✅ 2023-01-23",
        ]
    );
    // "should remove cancelled date when toggling CANCELLED recurring task to DONE".
    let out = edit(
        "- [-] Stuff 🔁 every day 📅 2023-05-15 ❌ 2023-05-16",
        &[TaskChange::Status('x')],
        "2023-06-26",
        &TaskSettings::default(),
    );
    assert_eq!(
        out,
        [
            "- [ ] Stuff 🔁 every day 📅 2023-05-16",
            "- [x] Stuff 🔁 every day 📅 2023-05-15 ✅ 2023-06-26",
        ]
    );
    // "should not create new recurrence if converting from one DONE status to another".
    let settings = with(|s| {
        s.statuses = Statuses::new(vec![Status::new('X', "Done", ' ', StatusType::Done)]);
    });
    let line = "- [x] A recurring, done task 🔁 every day 📅 2023-12-15 ✅ 2023-12-15";
    let out = edit(line, &[TaskChange::Status('X')], "2023-06-26", &settings);
    assert_eq!(out, [line.replace("[x]", "[X]")]);
}

#[test]
fn created_dates_on_recurring_tasks() {
    // Task.test.ts "created dates on recurring task": without the setting
    // the copy has no created date, even when the original had one.
    let rows: &[(bool, &str, [&str; 2])] = &[
        (
            false,
            "- [ ] this is a task 🔁 every day 📅 2021-09-12",
            [
                "- [ ] this is a task 🔁 every day 📅 2021-09-13",
                "- [x] this is a task 🔁 every day 📅 2021-09-12 ✅ 2023-03-08",
            ],
        ),
        (
            false,
            "- [ ] this is a task 🔁 every day ➕ 2021-09-11 📅 2021-09-12",
            [
                "- [ ] this is a task 🔁 every day 📅 2021-09-13",
                "- [x] this is a task 🔁 every day ➕ 2021-09-11 📅 2021-09-12 ✅ 2023-03-08",
            ],
        ),
        (
            true,
            "- [ ] this is a task 🔁 every day 📅 2021-09-12",
            [
                "- [ ] this is a task 🔁 every day ➕ 2023-03-08 📅 2021-09-13",
                "- [x] this is a task 🔁 every day 📅 2021-09-12 ✅ 2023-03-08",
            ],
        ),
        (
            true,
            "- [ ] this is a task 🔁 every day ➕ 2021-09-11 📅 2021-09-12",
            [
                "- [ ] this is a task 🔁 every day ➕ 2023-03-08 📅 2021-09-13",
                "- [x] this is a task 🔁 every day ➕ 2021-09-11 📅 2021-09-12 ✅ 2023-03-08",
            ],
        ),
    ];
    for (on, line, want) in rows {
        let settings = with(|s| s.set_created_date = *on);
        assert_eq!(
            edit(line, &[TaskChange::Status('x')], "2023-03-08", &settings),
            want
        );
    }
}

#[test]
fn next_copy_above_or_below() {
    // Task.test.ts "order of recurring tasks".
    let line = "- [ ] this is a recurring task 🔁 every day";
    let above = edit_task(
        line,
        &[TaskChange::Toggle],
        d("2023-05-16"),
        &TaskSettings::default(),
    )
    .unwrap();
    assert_eq!(
        above.lines,
        [
            "- [ ] this is a recurring task 🔁 every day",
            "- [x] this is a recurring task 🔁 every day ✅ 2023-05-16",
        ]
    );
    assert_eq!((above.task, above.next.clone()), (Some(1), vec![0]));
    let below_settings = with(|s| s.recurrence_below = true);
    let below = edit_task(
        line,
        &[TaskChange::Toggle],
        d("2023-05-16"),
        &below_settings,
    )
    .unwrap();
    assert_eq!(
        below.lines,
        [
            "- [x] this is a recurring task 🔁 every day ✅ 2023-05-16",
            "- [ ] this is a recurring task 🔁 every day",
        ]
    );
    assert_eq!((below.task, below.next.clone()), (Some(0), vec![1]));
    assert_eq!(
        below.joined("\r\n"),
        "- [x] this is a recurring task 🔁 every day ✅ 2023-05-16\r\n- [ ] this is a recurring task 🔁 every day"
    );
}

#[test]
fn next_copy_keeps_the_users_text_and_drops_what_the_plugin_drops() {
    let settings = TaskSettings::default();
    let rows: &[(&str, [&str; 2])] = &[
        (
            // Indentation, quote, tags, priority and 🏁 keep stay; the block
            // id and ❌ go; start and scheduled keep their distance to due.
            "> \t- [ ] water #home ⏫ 🔁 every 2 days 🏁 keep 🛫 2024-05-01 ⏳ 2024-05-02 📅 2024-05-03 #later ^blk",
            [
                "> \t- [ ] water #home ⏫ 🔁 every 2 days 🏁 keep 🛫 2024-05-03 ⏳ 2024-05-04 📅 2024-05-05 #later",
                "> \t- [x] water #home ⏫ 🔁 every 2 days 🏁 keep 🛫 2024-05-01 ⏳ 2024-05-02 📅 2024-05-03 ✅ 2024-05-10 #later ^blk",
            ],
        ),
        (
            "- [ ] dv  [repeat:: every Monday]  [due:: 2024-05-06]  [id:: a1]",
            [
                "- [ ] dv  [repeat:: every week on Monday]  [due:: 2024-05-13]",
                "- [x] dv  [repeat:: every Monday]  [due:: 2024-05-06]  [completion:: 2024-05-10]  [id:: a1]",
            ],
        ),
        (
            "1. [/] ordered 🔁 every week 📅 2024-05-06",
            [
                "1. [ ] ordered 🔁 every week 📅 2024-05-13",
                "1. [x] ordered 🔁 every week 📅 2024-05-06 ✅ 2024-05-10",
            ],
        ),
    ];
    for (line, want) in rows {
        assert_eq!(
            edit(line, &[TaskChange::Status('x')], TODAY, &settings),
            want,
            "{line}"
        );
    }
}

#[test]
fn remove_scheduled_on_recurrence() {
    // Recurring Tasks.md "Remove scheduled date on recurrence": only when
    // the task also has a start or due date.
    let settings = with(|s| s.remove_scheduled_on_recurrence = true);
    let out = edit(
        "- [ ] a 🔁 every week ⏳ 2024-05-01 📅 2024-05-03",
        &[TaskChange::Status('x')],
        TODAY,
        &settings,
    );
    assert_eq!(
        out,
        [
            "- [ ] a 🔁 every week 📅 2024-05-10",
            "- [x] a 🔁 every week ⏳ 2024-05-01 📅 2024-05-03 ✅ 2024-05-10",
        ]
    );
    let out = edit(
        "- [ ] a 🔁 every week ⏳ 2024-05-01",
        &[TaskChange::Status('x')],
        TODAY,
        &settings,
    );
    assert_eq!(out[0], "- [ ] a 🔁 every week ⏳ 2024-05-08");
}

// ---------------------------------------------------------------------------
// docs/Getting Started/On Completion.md, and OnCompletion.ts: the done line
// goes when the status type becomes DONE from another type.

#[test]
fn on_completion_demo() {
    let settings = with(|s| s.set_done_date = false);
    let rows: &[(&str, &[&str])] = &[
        ("- [ ] Leave me alone", &["- [x] Leave me alone"]),
        (
            "- [ ] Leave me alone too! 🏁 keep",
            &["- [x] Leave me alone too! 🏁 keep"],
        ),
        ("- [ ] Delete me upon completion 🏁 delete", &[]),
        (
            "- [ ] Delete my completed instance, leave my next instance 📅 2021-05-20 🔁 every day when done 🏁 delete",
            &[
                "- [ ] Delete my completed instance, leave my next instance 📅 2021-05-21 🔁 every day when done 🏁 delete",
            ],
        ),
    ];
    for (line, want) in rows {
        let out = edit_task(line, &[TaskChange::Status('x')], d("2021-05-20"), &settings).unwrap();
        assert_eq!(out.lines, *want, "{line}");
        assert_eq!(out.task.is_none(), line.contains("delete"));
    }
    // Not when the task is not completed, nor when it was DONE already.
    let line = "- [ ] Delete me 🏁 Delete";
    assert_eq!(
        edit(line, &[TaskChange::Status('-')], TODAY, &settings),
        ["- [-] Delete me 🏁 Delete ❌ 2024-05-10"]
    );
    let dv = "- [ ] Delete me  [onCompletion:: delete]";
    assert!(edit(dv, &[TaskChange::Status('x')], TODAY, &settings).is_empty());
    let custom = with(|s| {
        s.statuses = Statuses::new(vec![Status::new('X', "Done", ' ', StatusType::Done)]);
    });
    let line = "- [x] Delete me 🏁 delete ✅ 2024-01-01";
    assert_eq!(
        edit(line, &[TaskChange::Status('X')], TODAY, &custom),
        [line.replace("[x]", "[X]")]
    );
}

// ---------------------------------------------------------------------------
// Custom statuses: docs/Getting Started/Statuses/Recurring Tasks and Custom
// Statuses.md (the new recurrence below, as that page sets it).

#[test]
fn custom_statuses_and_recurrence() {
    let todo_progress_done = with(|s| {
        s.recurrence_below = true;
        s.statuses = Statuses::new(vec![
            Status::new(' ', "Todo", '/', StatusType::Todo),
            Status::new('/', "In Progress", 'x', StatusType::InProgress),
            Status::new('x', "Done", ' ', StatusType::Done),
        ]);
    });
    let line = "- [ ] Do something 🔁 every day 📅 2023-10-15";
    let first = edit(
        line,
        &[TaskChange::Toggle],
        "2023-10-15",
        &todo_progress_done,
    );
    assert_eq!(first, ["- [/] Do something 🔁 every day 📅 2023-10-15"]);
    let second = edit(
        &first[0],
        &[TaskChange::Toggle],
        "2023-10-15",
        &todo_progress_done,
    );
    assert_eq!(
        second,
        [
            "- [x] Do something 🔁 every day 📅 2023-10-15 ✅ 2023-10-15",
            "- [ ] Do something 🔁 every day 📅 2023-10-16",
        ]
    );
    // "When DONE is not followed by TODO or IN_PROGRESS".
    let done_to_cancelled = with(|s| {
        s.recurrence_below = true;
        s.statuses = Statuses::new(vec![
            Status::new(' ', "Todo", '/', StatusType::Todo),
            Status::new('x', "Done", '-', StatusType::Done),
            Status::new('/', "In Progress", 'x', StatusType::InProgress),
            Status::new('-', "Cancelled", ' ', StatusType::Cancelled),
        ]);
    });
    let out = edit(
        "- [/] Do something 🔁 every day 📅 2024-10-16",
        &[TaskChange::Toggle],
        "2023-10-16",
        &done_to_cancelled,
    );
    assert_eq!(
        out,
        [
            "- [x] Do something 🔁 every day 📅 2024-10-16 ✅ 2023-10-16",
            "- [ ] Do something 🔁 every day 📅 2024-10-17",
        ]
    );
    // "When the current status type is NON_TASK": no done date, no copy.
    let pro_con = with(|s| {
        s.statuses = Statuses::new(vec![
            Status::new('P', "Pro", 'C', StatusType::NonTask),
            Status::new('C', "Con", 'P', StatusType::NonTask),
        ]);
    });
    let out = edit(
        "- [P] a 🔁 every day 📅 2024-10-16",
        &[TaskChange::Toggle],
        TODAY,
        &pro_con,
    );
    assert_eq!(out, ["- [C] a 🔁 every day 📅 2024-10-16"]);
    let out = edit(
        "- [ ] a 🔁 every day 📅 2024-10-16",
        &[TaskChange::Status('P')],
        TODAY,
        &pro_con,
    );
    assert_eq!(out, ["- [P] a 🔁 every day 📅 2024-10-16"]);
}

#[test]
fn toggle_chains() {
    let settings = TaskSettings::default();
    // [ ] → [x] → [ ], and [/] → [x] → [ ], [-] → [ ].
    let out = edit(
        "- [ ] a",
        &[TaskChange::Toggle, TaskChange::Toggle],
        TODAY,
        &settings,
    );
    assert_eq!(out, ["- [ ] a"]);
    let out = edit("- [/] a", &[TaskChange::Toggle], TODAY, &settings);
    assert_eq!(out, ["- [x] a ✅ 2024-05-10"]);
    let out = edit(
        "- [-] a ❌ 2024-01-01",
        &[TaskChange::Toggle],
        TODAY,
        &settings,
    );
    assert_eq!(out, ["- [ ] a"]);
    // A recurring task toggled twice: one copy, the line back to TODO.
    let out = edit(
        "- [ ] r 🔁 every day 📅 2024-05-01",
        &[TaskChange::Toggle, TaskChange::Toggle],
        TODAY,
        &settings,
    );
    assert_eq!(
        out,
        [
            "- [ ] r 🔁 every day 📅 2024-05-02",
            "- [ ] r 🔁 every day 📅 2024-05-01"
        ]
    );
    // Edits before a completion reach the copy; edits after it do not.
    let out = edit(
        "- [ ] r 🔁 every day 📅 2024-05-01",
        &[
            TaskChange::Priority(Priority::High),
            TaskChange::Status('x'),
            TaskChange::Date(DateKind::Start, Some(d("2024-04-01"))),
        ],
        TODAY,
        &settings,
    );
    assert_eq!(
        out,
        [
            "- [ ] r ⏫ 🔁 every day 📅 2024-05-02",
            "- [x] r ⏫ 🔁 every day 🛫 2024-04-01 📅 2024-05-01 ✅ 2024-05-10",
        ]
    );
}

// ---------------------------------------------------------------------------
// Errors: nothing is changed, no date is guessed.

#[test]
fn an_unreadable_rule_changes_nothing() {
    let settings = TaskSettings::default();
    for line in [
        "- [ ] a 🔁 every day in January 📅 2024-05-01",
        "- [ ] a 🔁 sometimes 📅 2024-05-01",
        "- [ ] a  [repeat:: whenever]",
    ] {
        let err = edit_task(line, &[TaskChange::Status('x')], d(TODAY), &settings).unwrap_err();
        assert!(matches!(err, TaskError::BadRule { .. }), "{line}: {err:?}");
        assert!(err.to_string().contains("nothing was changed"), "{err}");
        // Not completing: the rule is not needed.
        assert!(edit_task(line, &[TaskChange::Status('/')], d(TODAY), &settings).is_ok());
    }
    let err = edit_task(
        "- [ ] a 🔁 every month 📅 2023-02-30",
        &[TaskChange::Status('x')],
        d(TODAY),
        &settings,
    )
    .unwrap_err();
    assert!(matches!(err, TaskError::NoNextOccurrence { .. }), "{err:?}");
}

#[test]
fn lines_that_are_not_tasks() {
    let settings = TaskSettings::default();
    for line in ["plain", "- item", "-[ ] no", "- [ ] a\nb", "- [ ] a\r"] {
        let err = edit_task(line, &[TaskChange::Toggle], d(TODAY), &settings).unwrap_err();
        assert!(
            matches!(err, TaskError::NotATask | TaskError::LineBreak),
            "{line:?}"
        );
    }
    let err = edit_task("- [ ] a", &[TaskChange::Status('\n')], d(TODAY), &settings).unwrap_err();
    assert_eq!(err, TaskError::BadSymbol('\n'));
}

// ---------------------------------------------------------------------------
// No panic, and every line written reads back: each line cut at every char
// boundary, through every change.

#[test]
fn no_panic_sweep() {
    let lines = [
        "- [ ] take out the trash #home ⏫ 🔁 every Sunday 🏁 delete ➕ 2024-01-01 🛫 2024-04-01 ⏳ 2024-04-02 📅 2024-04-25 ^blk-1",
        "> 1. [x] dv  [priority:: high]  [repeat:: every month on the last when done]  [due:: 2024-01-31]  [completion:: 2024-02-01]",
        "\t- [-] mixed ⏬ (due:: 2024-02-29) #t ❌ 2024-03-01 🆔 ab-1 ⛔ x,y",
        "* [/] ünï 📅\u{fe0f}2024-05-01 ✅ 2023-02-30 [onCompletion:: Delete]",
    ];
    let statuses = Statuses::new(vec![Status::new('P', "Pro", 'C', StatusType::NonTask)]);
    let settings = [
        TaskSettings::default(),
        TaskSettings {
            statuses,
            format: Format::Dataview,
            set_created_date: true,
            recurrence_below: true,
            remove_scheduled_on_recurrence: true,
            set_done_date: false,
            ..TaskSettings::default()
        },
    ];
    let mut changes = vec![
        TaskChange::Toggle,
        TaskChange::Status(' '),
        TaskChange::Status('x'),
        TaskChange::Status('-'),
        TaskChange::Status('/'),
        TaskChange::Status('P'),
        TaskChange::Status('é'),
    ];
    for kind in DateKind::ALL {
        changes.push(TaskChange::Date(kind, Some(d("2024-12-31"))));
        changes.push(TaskChange::Date(kind, None));
    }
    for p in Priority::ALL {
        changes.push(TaskChange::Priority(p));
    }
    let mut written = 0;
    for line in lines {
        for (cut, _) in line.char_indices().chain([(line.len(), ' ')]) {
            let part = &line[..cut];
            for settings in &settings {
                for change in &changes {
                    if let Ok(out) = edit_task(part, &[*change], d(TODAY), settings) {
                        for l in &out.lines {
                            assert!(read_line(l).is_some(), "{part:?} {change:?} -> {l:?}");
                        }
                        written += 1;
                    }
                }
            }
        }
    }
    assert!(written > 1000, "{written}");
}

// ---------------------------------------------------------------------------
// The edit placed in its note: the note's own line breaks, a removed line
// taking its break (for `update_task` and the editor's code actions alike).

#[test]
fn an_edit_placed_in_its_note_keeps_the_notes_line_breaks() {
    let settings = TaskSettings::default();
    let place = |text: &str, task: &str| {
        let start = text.find(task).expect("the task in the text");
        let line = start..start + task.len();
        let edit =
            edit_task(task, &[TaskChange::Status('x')], d(TODAY), &settings).expect("an edit");
        let (range, with) = edit.replacement(text, line);
        let mut after = text.to_string();
        after.replace_range(range, &with);
        after
    };
    let every = "- [ ] a 🔁 every day 📅 2024-05-10";
    let next = "- [ ] a 🔁 every day 📅 2024-05-11";
    let done = "- [x] a 🔁 every day 📅 2024-05-10 ✅ 2024-05-10";
    let rows: Vec<(String, String)> = vec![
        (
            format!("# T\n{every}\nz\n"),
            format!("# T\n{next}\n{done}\nz\n"),
        ),
        (
            format!("# T\r\n{every}\r\nz"),
            format!("# T\r\n{next}\r\n{done}\r\nz"),
        ),
        // The last line, without a break: the one before it.
        (
            format!("# T\r\n{every}"),
            format!("# T\r\n{next}\r\n{done}"),
        ),
        (format!("# T\r{every}"), format!("# T\r{next}\r{done}")),
        (every.to_string(), format!("{next}\n{done}")),
        // `🏁 delete` on a task that does not recur: the line goes with
        // its break, or the break before it when it is the last.
        ("a\r\n- [ ] gone 🏁 delete\r\nb".into(), "a\r\nb".into()),
        ("a\n- [ ] gone 🏁 delete".into(), "a".into()),
        ("- [ ] gone 🏁 delete".into(), String::new()),
    ];
    for (text, want) in rows {
        let task = text
            .split(['\n', '\r'])
            .find(|l| l.starts_with("- ["))
            .expect("a task line");
        assert_eq!(place(&text, task), want, "{text:?}");
    }
    // A line off the text's bounds or characters is clamped, never a panic.
    let edit = edit_task("- [ ] x", &[TaskChange::Toggle], d(TODAY), &settings).unwrap();
    for (start, end) in [(0, 99), (3, 1), (1, 2), (99, 120)] {
        let (at, _) = edit.replacement("é- [ ] x", start..end);
        assert!(
            at.end <= "é- [ ] x".len() && at.start <= at.end,
            "{start}..{end}"
        );
    }
}
