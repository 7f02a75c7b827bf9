use super::*;
use crate::date::Date;
use crate::parse_note;
use crate::tasks::when::days;

const NOTE: &str = "---\ntags: [home]\n---\n# Work\n\
- [ ] call Bob #work 📅 2024-05-14 ⏫\n\
- [/] write report #work/weekly ⏳ 2024-05-16\n\
- [x] file taxes 📅 2024-04-15 ✅ 2024-04-10\n\
## Home\n\
- [ ] water plants 🔁 every week 🛫 2024-05-20\n\
- [-] old idea ❌ 2024-01-01\n\
- [ ] someday #later\n\
- [ ] broken 📅 2024-02-30\n";

/// 2024-05-15, a Wednesday.
const TODAY: Date = Date {
    year: 2024,
    month: 5,
    day: 15,
};

fn pick(test: &TaskTest) -> Vec<String> {
    let note = parse_note("w.md", NOTE.as_bytes());
    let settings = TaskSettings::default();
    note.tasks
        .iter()
        .filter(|t| test.matches(&note, *t, &settings))
        .map(|t| {
            t.description()
                .split(" #")
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

fn on(field: DateField, when: fn(Days) -> When, text: &str) -> DateTest {
    DateTest {
        field,
        when: when(days(text, TODAY).unwrap()),
    }
}

#[test]
fn only_open_types() {
    let open = TaskTest {
        types: vec![StatusType::Todo, StatusType::InProgress, StatusType::OnHold],
        ..TaskTest::default()
    };
    assert_eq!(
        pick(&open),
        [
            "call Bob",
            "write report",
            "water plants",
            "someday",
            "broken"
        ]
    );
}

#[test]
fn dates() {
    let due = DateField::One(DateKind::Due);
    let overdue = TaskTest {
        dates: vec![on(due, When::Before, "today")],
        ..TaskTest::default()
    };
    assert_eq!(pick(&overdue), ["call Bob", "file taxes"]);
    let this_week = TaskTest {
        dates: vec![on(DateField::Happens, When::In, "this week")],
        ..TaskTest::default()
    };
    assert_eq!(pick(&this_week), ["call Bob", "write report"]);
    let next_week = TaskTest {
        dates: vec![on(DateField::Happens, When::In, "next week")],
        ..TaskTest::default()
    };
    assert_eq!(pick(&next_week), ["water plants"]);
    let none = TaskTest {
        dates: vec![DateTest {
            field: DateField::Happens,
            when: When::None,
        }],
        ..TaskTest::default()
    };
    assert_eq!(pick(&none), ["old idea", "someday"]);
    let invalid = TaskTest {
        dates: vec![DateTest {
            field: due,
            when: When::Invalid,
        }],
        ..TaskTest::default()
    };
    assert_eq!(pick(&invalid), ["broken"]);
    let done_in_april = TaskTest {
        dates: vec![on(DateField::One(DateKind::Done), When::In, "2024-04")],
        ..TaskTest::default()
    };
    assert_eq!(pick(&done_in_april), ["file taxes"]);
}

#[test]
fn tags_text_heading_priority_recurrence() {
    let work = TaskTest {
        tags: vec!["work".into()],
        ..TaskTest::default()
    };
    assert_eq!(
        pick(&work),
        ["call Bob", "write report"],
        "hierarchical, the line's own tags"
    );
    let home = TaskTest {
        tags: vec!["home".into()],
        ..TaskTest::default()
    };
    assert!(
        pick(&home).is_empty(),
        "the note's frontmatter tags are not the task's"
    );
    let under_home = TaskTest {
        heading: Some("home".into()),
        ..TaskTest::default()
    };
    assert_eq!(
        pick(&under_home),
        ["water plants", "old idea", "someday", "broken"]
    );
    let text = TaskTest {
        text: Some("BOB".into()),
        ..TaskTest::default()
    };
    assert_eq!(pick(&text), ["call Bob"]);
    let high = TaskTest {
        priority: Some(PriorityTest::parse("above medium").unwrap()),
        ..TaskTest::default()
    };
    assert_eq!(pick(&high), ["call Bob"]);
    let recurring = TaskTest {
        recurring: Some(true),
        ..TaskTest::default()
    };
    assert_eq!(pick(&recurring), ["water plants"]);
    assert!(PriorityTest::parse("urgent").is_err());
}

#[test]
fn the_global_filter_decides_what_is_a_task() {
    let note = parse_note("w.md", NOTE.as_bytes());
    let settings = TaskSettings {
        global_filter: "#work".into(),
        ..TaskSettings::default()
    };
    let n = note
        .tasks
        .iter()
        .filter(|t| TaskTest::default().matches(&note, *t, &settings))
        .count();
    assert_eq!(n, 2);
}

#[test]
fn orders() {
    let note = parse_note("w.md", NOTE.as_bytes());
    let settings = TaskSettings::default();
    let sorted = |order: Order| {
        let mut tasks: Vec<Task> = note.tasks.iter().collect();
        tasks.sort_by_key(|t| (order.key(&settings, *t), t.line));
        tasks
            .iter()
            .map(|t| {
                t.description()
                    .split(" #")
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        sorted(Order::Default),
        [
            "write report",
            "call Bob",
            "water plants",
            "someday",
            "broken",
            "file taxes",
            "old idea"
        ]
    );
    assert_eq!(
        sorted(Order::parse("scheduled").unwrap())[0],
        "write report"
    );
    assert!(Order::parse("urgency").is_err());
}

#[test]
fn when_and_status_words() {
    let when = |t: &str| When::parse(t, TODAY).map_err(|_| ());
    let day = |t: &str| days(t, TODAY).unwrap();
    assert_eq!(when("before today"), Ok(When::Before(day("today"))));
    assert_eq!(
        when("On or After next week"),
        Ok(When::OnOrAfter(day("next week")))
    );
    assert_eq!(when("this week"), Ok(When::In(day("this week"))));
    assert_eq!(when("in 3 days"), Ok(When::In(day("in 3 days"))));
    assert_eq!(when("in 2024-05"), Ok(When::In(day("2024-05"))));
    assert_eq!(when("none"), Ok(When::None));
    assert_eq!(when("any"), Ok(When::Any));
    assert!(
        When::parse("before soon", TODAY)
            .unwrap_err()
            .contains("`soon`")
    );
    assert_eq!(
        status_types("not done").unwrap(),
        [StatusType::Todo, StatusType::InProgress, StatusType::OnHold]
    );
    assert_eq!(
        status_types("In-Progress").unwrap(),
        [StatusType::InProgress]
    );
    assert_eq!(status_types("any").unwrap(), []);
    assert!(status_types("later").is_err());
}

#[test]
fn words_are_found_in_any_case() {
    use super::contains_folded;
    for (hay, needle, want) in [
        ("Call Bob about the review", "REVIEW", true),
        ("Call Bob", "bob ", true),
        ("Call Bob", "", true),
        ("Call Bob", "bobby", false),
        ("déjà Vu", "vu", true),
        ("DÉJÀ vu", "déjà", true),
        ("naïve", "NAÏVE", true),
        ("20 \u{212A}elvin", "kelvin", true),
        ("\u{130}stanbul", "istanbul", false),
        ("\u{130}stanbul", "stanbul", true),
        ("rr", "rrr", false),
        ("abcab", "cab", true),
    ] {
        let slow = hay.to_lowercase().contains(&needle.trim().to_lowercase());
        assert_eq!(contains_folded(hay, needle), want, "{hay:?} / {needle:?}");
        assert_eq!(
            want, slow,
            "{hay:?} / {needle:?}: as lower-casing both says"
        );
    }
}
