use super::*;
use crate::parse_note;

fn tasks(text: &str) -> Tasks {
    parse_note("t.md", text.as_bytes()).tasks
}

#[test]
fn a_checkbox_line_is_a_task_with_its_fields() {
    let all = tasks("- [ ] take out the trash 🔁 every Sunday 📅 2021-04-25 ⏫\n");
    let t = all.at(0);
    assert_eq!(t.symbol, ' ');
    assert_eq!(t.description(), "take out the trash");
    assert_eq!(t.date(DateKind::Due), TaskDate::of_text("2021-04-25"));
    assert_eq!(
        t.date(DateKind::Due)
            .date()
            .map(|d| (d.year, d.month, d.day)),
        Some((2021, 4, 25))
    );
    assert_eq!(t.priority, Priority::High);
    assert_eq!(t.recurrence(), Some("every Sunday"));
    assert_eq!(t.format, Some(Format::Emoji));
    assert_eq!((t.line, t.span.clone()), (0, 0..62));
}

#[test]
fn which_lines_are_tasks() {
    let text = "\
- [ ] dash
* [x] star
+ [/] plus
1. [-] ordered
2) [?] paren
-  [ ]  two spaces
- [ ]no space after
- []   not a task
-[ ] not a task
- plain item
  - [ ] nested
> - [ ] quoted
> [!note] callout
> - [h] in a callout
```
- [ ] in code
```
    - [ ] indented code
not a list [ ] at all
";
    let got: Vec<(u32, char, String)> = tasks(text)
        .iter()
        .map(|t| (t.line, t.symbol, t.description().to_string()))
        .collect();
    let want = [
        (0, ' ', "dash"),
        (1, 'x', "star"),
        (2, '/', "plus"),
        (3, '-', "ordered"),
        (4, '?', "paren"),
        (5, ' ', "two spaces"),
        (6, ' ', "no space after"),
        (10, ' ', "nested"),
        (11, ' ', "quoted"),
        (13, 'h', "in a callout"),
    ];
    let want: Vec<(u32, char, String)> = want
        .iter()
        .map(|(l, c, d)| (*l, *c, d.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_task_knows_its_parent_task() {
    let text = "- [ ] a\n  - [ ] b\n    - plain\n      - [ ] c\n- [ ] d\n";
    let parents: Vec<Option<u32>> = tasks(text).iter().map(|t| t.parent()).collect();
    assert_eq!(parents, [None, Some(0), Some(1), None]);
    // Indented by tabs (pulldown-cmark starts such an item at the line
    // break before it), in CRLF too.
    for text in [
        "- [ ] a\n\t- [ ] b\n\t\t- [ ] c\n",
        "- [ ] a\r\n\t- [ ] b\r\n\t\t- [ ] c\r\n",
    ] {
        let found = tasks(text);
        let lines: Vec<(u32, Option<u32>, bool)> = found
            .iter()
            .map(|t| (t.line, t.parent(), t.sub_item))
            .collect();
        assert_eq!(
            lines,
            [(0, None, false), (1, Some(0), true), (2, Some(1), true)],
            "{text:?}"
        );
    }
}

#[test]
fn dates_and_the_rarer_fields() {
    let all = tasks("- [x] a 🆔 x1 ⛔ y, z 🔁 every day 🏁 Delete ➕ 2023-02-30 ✅ 2024-02-29\n");
    let t = all.at(0);
    assert_eq!(t.id(), Some("x1"));
    assert_eq!(t.depends_on(), [Box::from("y"), Box::from("z")]);
    assert_eq!(t.on_completion(), Some(OnCompletion::Delete));
    assert!(t.date(DateKind::Created).is_set());
    assert!(!t.date(DateKind::Created).is_valid());
    assert_eq!(t.date(DateKind::Done).date().map(|d| d.day), Some(29));
    assert!(!t.date(DateKind::Due).is_set());
    let plain = tasks("- [ ] plain\n");
    let plain = plain.at(0);
    assert!(plain.more().is_none());
    assert_eq!(plain.format, None);
}

#[test]
fn crlf_lines_and_a_line_that_is_only_a_checkbox() {
    let got = tasks("- [ ] a 📅 2021-01-01\r\n- [x]\r\n");
    assert_eq!(got.len(), 2);
    assert_eq!(got.at(0).description(), "a");
    assert_eq!(got.at(0).span, 0..23);
    assert_eq!(got.at(1).description(), "");
}

#[test]
fn statuses_by_symbol() {
    let s = status::Statuses::default();
    assert_eq!(s.kind(' '), status::StatusType::Todo);
    assert_eq!(s.kind('x'), status::StatusType::Done);
    assert_eq!(s.kind('X'), status::StatusType::Todo);
    assert_eq!(s.kind('/'), status::StatusType::InProgress);
    assert_eq!(s.kind('-'), status::StatusType::Cancelled);
    assert_eq!(s.of('?').name.as_ref(), "Unknown");
    assert_eq!(s.after_recurrence('x'), ' ');
    let own = status::Statuses::new(vec![
        status::Status::new('x', "Done", 'D', status::StatusType::Done),
        status::Status::new('D', "Delegated", '/', status::StatusType::OnHold),
    ]);
    assert_eq!(own.after_recurrence('x'), '/');
    assert_eq!(
        status::StatusType::parse("in-progress"),
        Some(status::StatusType::InProgress)
    );
}

#[test]
fn a_task_record_stays_small() {
    // A vault holds a million of them: each byte is a megabyte.
    assert_eq!(std::mem::size_of::<TaskRecord>(), 40);
}

#[test]
fn dates_far_from_now_are_kept_whole() {
    let all = tasks(
        "- [ ] someday 📅 9999-12-31 ⏳ 1899-12-31 🛫 1900-01-01 ➕ 2079-06-05\n\
         - [ ] next ✅ 2079-06-06\n",
    );
    let day = |t: Task<'_>, k: DateKind| {
        t.date(k)
            .date()
            .map(|d| crate::daily::format_date(d, "YYYY-MM-DD"))
    };
    let (a, b) = (all.at(0), all.at(1));
    assert_eq!(day(a, DateKind::Due).as_deref(), Some("9999-12-31"));
    assert_eq!(day(a, DateKind::Scheduled).as_deref(), Some("1899-12-31"));
    assert_eq!(day(a, DateKind::Start).as_deref(), Some("1900-01-01"));
    assert_eq!(day(a, DateKind::Created).as_deref(), Some("2079-06-05"));
    assert_eq!(day(b, DateKind::Done).as_deref(), Some("2079-06-06"));
    assert!(a.more().is_some(), "far dates live among the rare fields");
    assert!(!b.date(DateKind::Due).is_set());
    assert_eq!(a.description(), "someday");
    assert_eq!(b.description(), "next");
}
