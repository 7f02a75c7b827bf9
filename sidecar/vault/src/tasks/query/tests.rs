use super::run::{Outcome, run};
use super::*;
use crate::filter::Filter as NoteFilter;
use crate::fixture;

/// 2022-10-21, a Friday (the plugin's documentation's day).
const TODAY: Date = Date {
    year: 2022,
    month: 10,
    day: 21,
};

const VAULT: &str = r#"
//- /Projects/Weft.md
# Plan
- [ ] write the parser #work 📅 2022-10-20 ⏫
- [ ] read the docs #work #reading ⏳ 2022-10-25
- [x] set up CI #work ✅ 2022-10-01
  - [ ] nested follow-up 📅 2022-10-22
## Later
- [ ] someday maybe #someday
- [ ] water plants 🔁 every week 📅 2022-10-24
- [/] half done 🛫 2022-11-01 🔽
//- /Home.md
- [ ] pay rent [due:: 2022-10-31] [priority:: high]
- [-] old idea ❌ 2022-09-01
- [ ] broken 📅 2022-02-30
- [ ] blocked one ⛔ abc
- [ ] the blocker 🆔 abc
> - [ ] quoted task 📅 2022-10-21
"#;

fn ctx(settings: &TaskSettings) -> QueryContext<'_> {
    QueryContext {
        today: TODAY,
        file: Some("Dashboards/Today.md"),
        properties: None,
        settings,
    }
}

/// The descriptions found, in order, each group's headings before it.
fn found(source: &str) -> Vec<String> {
    let settings = TaskSettings::default();
    let (outcome, index) = outcome(source, &settings);
    let mut out = Vec::new();
    for g in &outcome.groups {
        if !g.headings.is_empty() {
            out.push(format!("## {}", g.headings.join(" / ")));
        }
        for hit in &g.hits {
            let task = run::task_of(&index, *hit);
            let words: Vec<&str> = task
                .description()
                .split_whitespace()
                .take_while(|w| !w.starts_with('#'))
                .collect();
            out.push(words.join(" "));
        }
    }
    out
}

fn outcome(source: &str, settings: &TaskSettings) -> (Outcome, crate::VaultIndex) {
    let index = fixture::index(VAULT);
    let query = parse(source, &ctx(settings)).unwrap_or_else(|e| panic!("{e}"));
    (
        run(&query, &index, &NoteFilter::All, settings, TODAY),
        index,
    )
}

fn error(source: &str) -> String {
    let settings = TaskSettings::default();
    parse(source, &ctx(&settings)).unwrap_err().to_string()
}

#[test]
fn the_plugin_s_dashboard_example() {
    // From TASKS.md §5 (the plugin's documentation), path adjusted.
    let got = found(
        "not done\n(due before tomorrow) OR (scheduled before tomorrow)\npath includes Projects\n\
         tags do not include #someday\nsort by priority\ngroup by filename\nlimit 30\n",
    );
    assert_eq!(got, ["## [[Weft]]", "write the parser"]);
}

#[test]
fn status_and_dates() {
    assert_eq!(
        found("done"),
        ["set up CI", "old idea"],
        "done is DONE, CANCELLED, NON_TASK"
    );
    assert_eq!(found("due on 2022-10-22"), ["nested follow-up"]);
    // `starts` matches tasks without a start date too.
    let starts = found("starts after 2022-11-05\nnot done\nhas due date");
    assert!(starts.contains(&"pay rent".to_string()), "{starts:?}");
    assert_eq!(found("due date is invalid"), ["broken"]);
    assert_eq!(found("due this week\nnot done").len(), 3, "Oct 17–23");
    assert_eq!(
        found("happens in 2022-11\nnot done"),
        ["half done"],
        "a month as a range"
    );
    assert_eq!(
        found("due in 2022-10-24 2022-10-31"),
        ["pay rent", "water plants"]
    );
    assert_eq!(found("due after in 5 days"), ["pay rent"]);
    assert_eq!(found("no happens date\nnot done\nno tags").len(), 2);
}

#[test]
fn text_tags_priority_and_more() {
    assert_eq!(found("tags include read"), ["read the docs"], "partial");
    assert_eq!(found("tag includes #work\nnot done").len(), 2);
    assert_eq!(
        found("priority is above none"),
        ["write the parser", "pay rent"]
    );
    assert_eq!(found("priority is low"), ["half done"]);
    assert_eq!(found("is recurring"), ["water plants"]);
    assert_eq!(found("recurrence includes week"), ["water plants"]);
    assert_eq!(found("heading includes later\nnot done").len(), 3);
    assert_eq!(
        found("path regex matches /^home\\.md$/i\ndescription includes RENT"),
        ["pay rent"]
    );
    assert_eq!(
        found("filename includes weft.md\nfolder includes projects/\ndone"),
        ["set up CI"]
    );
    assert_eq!(
        found("root includes /\nstatus.type is CANCELLED"),
        ["old idea"]
    );
    assert_eq!(found("is blocked"), ["blocked one"]);
    assert_eq!(found("is blocking"), ["the blocker"]);
    assert_eq!(found("has id"), ["the blocker"]);
    assert_eq!(
        found("exclude sub-items\ndue on or after 2022-10-21\ndue before 2022-10-23"),
        ["quoted task"],
        "a nested task is left out, a quoted one is not"
    );
    assert_eq!(found("status.name includes progress"), ["half done"]);
}

#[test]
fn boolean_lines() {
    assert_eq!(
        found("(due before 2022-10-21) AND NOT (done)\nhas due date"),
        ["write the parser"]
    );
    // NOT, XOR, AND, OR: OR binds last.
    assert_eq!(
        found("(is recurring) OR (has id) AND (no due date)"),
        ["water plants", "the blocker"]
    );
    assert_eq!(
        found("[is recurring] OR [description includes rent]"),
        ["pay rent", "water plants"],
        "high priority outweighs a week nearer"
    );
    assert_eq!(
        found("( (is recurring) OR (has id) ) AND NOT (has due date)"),
        ["the blocker"]
    );
    assert_eq!(
        found("\"is recurring\" XOR \"has due date\"\nnot done").len(),
        5
    );
    assert_eq!(found("NOT (not done)"), ["set up CI", "old idea"]);
    // A filter holding the closing delimiter.
    assert_eq!(
        found("(description includes a) b) OR (is recurring)"),
        ["water plants"]
    );
    let deep = format!("{}is recurring{}", "(".repeat(40), ")".repeat(40));
    assert!(error(&deep).contains("deeper"), "{}", error(&deep));
    assert!(error("(done) AND done").contains("inside one kind of delimiters"));
    assert!(error("(done) AND (not done) (done)").contains("malformed"));
    assert!(error("(done) OR (due before whenever)").contains("couldn't parse sub-expression"));
}

#[test]
fn sorting_grouping_and_limits() {
    // Default sorts: status type (in progress first), urgency, due, …
    let all = found("not done");
    assert_eq!(all[0], "half done");
    assert_eq!(all[1], "write the parser", "overdue and high: most urgent");
    assert_eq!(
        found("not done\nhas due date\nsort by due reverse\nlimit 2"),
        ["pay rent", "water plants"]
    );
    assert_eq!(
        found("not done\nhas due date\ngroup by due\nlimit groups 1"),
        [
            "## Invalid due date",
            "broken",
            "## 2022-10-20 Thursday",
            "write the parser",
            "## 2022-10-21 Friday",
            "quoted task",
            "## 2022-10-22 Saturday",
            "nested follow-up",
            "## 2022-10-24 Monday",
            "water plants",
            "## 2022-10-31 Monday",
            "pay rent",
        ]
    );
    assert_eq!(
        found("has tags\ngroup by tags\ngroup by status"),
        [
            "## #reading / Todo",
            "read the docs",
            "## #someday / Todo",
            "someday maybe",
            "## #work / Todo",
            "write the parser",
            "read the docs",
            "## #work / Done",
            "set up CI",
        ]
    );
    assert_eq!(
        found("priority is not none\ngroup by priority reverse"),
        [
            "## Low priority",
            "half done",
            "## High priority",
            "write the parser",
            "pay rent",
        ]
    );
    assert_eq!(found("limit to 0 tasks").len(), 0);
    assert_eq!(
        found("not done\nsort by description\nlimit 3"),
        ["blocked one", "broken", "half done"]
    );
}

#[test]
fn explain_expands_dates_as_the_plugin_does() {
    let settings = TaskSettings::default();
    let query = parse(
        "starts after 2 years ago\nscheduled after 1 week ago\ndue before tomorrow\n\
         not done\n(due before tomorrow) AND (is recurring)\nsort by due\nexplain",
        &ctx(&settings),
    )
    .unwrap();
    assert!(query.explain);
    expect_test::expect![[r#"
        Explanation of this Tasks code block query:

          starts after 2 years ago =>
            start date is after 2020-10-21 (Wednesday 21st October 2020) OR no start date
          scheduled after 1 week ago =>
            scheduled date is after 2022-10-14 (Friday 14th October 2022)
          due before tomorrow =>
            due date is before 2022-10-22 (Saturday 22nd October 2022)
          not done =>
            status type is TODO or IN_PROGRESS or ON_HOLD
          AND (All of):
            due before tomorrow =>
              due date is before 2022-10-22 (Saturday 22nd October 2022)
            is recurring
          sort by due"#]]
    .assert_eq(&query.explanation(TODAY));
}

#[test]
fn errors_name_the_line_and_what_is_not_supported() {
    assert_eq!(
        error("not done\ndue before someday"),
        "line 2: `due before someday`: do not understand due date: cannot read `someday` as a \
         day or a period; use YYYY-MM-DD, YYYY-MM, YYYY, YYYY-Www, YYYY-Qn, today, tomorrow, \
         yesterday, next monday, in 3 days, 2 weeks ago, or this|next|last week|month|quarter|year"
    );
    assert!(error("filter by function task.urgency > 10").contains("JavaScript"));
    assert!(error("sort by function task.due").contains("JavaScript"));
    assert!(error("group by function task.due").contains("JavaScript"));
    assert!(error("sort by colour").contains("cannot sort by `colour`"));
    assert!(error("hide everything").contains("hide/show option"));
    assert!(error("frobnicate").contains("do not understand query"));
    assert!(error("path regex matches /a(?=b)/").contains("not supported"));
    assert!(error("path regex matches abc").contains("between slashes"));
    assert!(error("priority is urgent").contains("priority"));
    assert!(error("preset mine").contains("no preset `mine`"));
    assert!(error("path includes {{query.file.path.toUpperCase()}}").contains("not supported"));
    // Continued lines are reported with their lines.
    assert!(error("not done\n(done) OR \\\n  (whatever)").starts_with("lines 2–3:"));
    // Every error, for diagnostics.
    let settings = TaskSettings::default();
    let all = check("frobnicate\nnot done\nsort by colour\n", &ctx(&settings));
    assert_eq!(all.iter().map(|e| e.first).collect::<Vec<_>>(), [0, 2]);
}

#[test]
fn placeholders_presets_global_query_and_layout() {
    assert_eq!(
        found("path includes {{query.file.folder}}\nnot done").len(),
        0,
        "Dashboards/ holds no tasks"
    );
    let settings = TaskSettings::default();
    let no_file = QueryContext {
        file: None,
        ..ctx(&settings)
    };
    assert!(
        parse("path includes {{query.file.path}}", &no_file)
            .unwrap_err()
            .message
            .contains("not run from a note")
    );
    // Properties of the query's note, a preset as a placeholder: lines
    // that may hold several instructions.
    let props = serde_json::json!({"project": "Weft", "instructions": "not done\nis recurring", "tags": ["a", "b"]});
    let with_props = QueryContext {
        properties: props.as_object(),
        ..ctx(&settings)
    };
    let q = parse(
        "path includes {{query.file.property('project')}}\n{{query.file.property(\"instructions\")}}\n\
         description does not include zz{{query.file.property('missing')}}",
        &with_props,
    )
    .unwrap();
    assert_eq!(q.filters.len(), 4);
    let index = fixture::index(VAULT);
    assert_eq!(
        run(&q, &index, &NoteFilter::All, &settings, TODAY).matched,
        1
    );
    let q = parse(
        "path includes {{query.file.hasProperty('tags')}}{{query.file.property('tags')}}",
        &with_props,
    )
    .unwrap();
    assert_eq!(
        q.explanation(TODAY).lines().nth(2),
        Some("  path includes truea,b")
    );
    let settings = TaskSettings {
        global_query: "path includes Projects".into(),
        presets: vec![("recurring".into(), "is recurring\nnot done".into())],
        ..TaskSettings::default()
    };
    let (preset, _) = outcome("preset recurring", &settings);
    assert_eq!(preset.matched, 1);
    let (placeholder, _) = outcome("{{preset.recurring}}", &settings);
    assert_eq!(placeholder.matched, 1);
    let (outcome, _) = outcome_with("not done\nignore global query", &settings);
    assert_eq!(outcome.matched, 11);
    let (outcome, _) = outcome_with("not done\nhide due date\nshort mode\nshow tree", &settings);
    assert_eq!(outcome.matched, 6, "the global query holds");
    let bad = TaskSettings {
        global_query: "frobnicate".into(),
        ..TaskSettings::default()
    };
    let e = parse("not done", &ctx(&bad)).unwrap_err();
    assert_eq!(e.from.as_deref(), Some("the Tasks plugin's global query"));
}

fn outcome_with(source: &str, settings: &TaskSettings) -> (Outcome, crate::VaultIndex) {
    outcome(source, settings)
}

#[test]
fn blocks_of_a_note() {
    let text = "# Today\n```tasks\nnot done\ndue today\n```\n\n> [!todo]\n> ```tasks\n> done\n> ```\n\
                ````md\n```tasks\nnot this\n```\n````\n~~~tasks\nopen\n";
    let found = blocks(text);
    assert_eq!(
        found,
        [
            QueryBlock {
                line: 1,
                query: "not done\ndue today\n".into()
            },
            QueryBlock {
                line: 7,
                query: "done\n".into()
            },
            QueryBlock {
                line: 15,
                query: "open\n".into()
            },
        ]
    );
}

/// The comparison as first written (characters, digit runs copied out),
/// against which the byte-wise one is checked.
fn natural_by_chars(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (mut m, mut n) = (String::new(), String::new());
                while let Some(c) = x.next_if(char::is_ascii_digit) {
                    m.push(c);
                }
                while let Some(d) = y.next_if(char::is_ascii_digit) {
                    n.push(d);
                }
                let (m, n) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                let ord = m.len().cmp(&n.len()).then_with(|| m.cmp(n));
                if ord != Ordering::Equal {
                    return ord;
                }
            }
            (Some(c), Some(d)) => {
                let ord = c.to_lowercase().cmp(d.to_lowercase());
                if ord != Ordering::Equal {
                    return ord;
                }
                x.next();
                y.next();
            }
        }
    }
}

#[test]
fn texts_compare_as_the_plugin_compares_them() {
    use super::order::natural;
    use std::cmp::Ordering::*;
    assert_eq!(natural("file2", "file10"), Less);
    assert_eq!(natural("File", "file"), Less);
    assert_eq!(natural("a", "B"), Less);
    assert_eq!(natural("x01", "x1"), Less);
    assert_eq!(natural("Écriture/2", "écriture/10"), Less);
    let words = [
        "",
        "a",
        "A",
        "b",
        "a1",
        "a01",
        "a10",
        "a2b",
        "a2B",
        "0",
        "00",
        "007",
        "7",
        "ä",
        "Ä",
        "é1",
        "É01",
        "z",
        "Z9",
        "İ",
        "i",
        "ß",
        "ss",
        "日本",
        "日本2",
        "日本10",
        "a b",
        "a-b",
        "Notes/2024-05-01.md",
        "Notes/2024-5-1.md",
        "notes/2024-05-01.md",
        "99999999999999999999",
        "100000000000000000000",
        "Notes/a10",
        "Notes/a9",
        "Notes/a09x",
        "x/é1",
        "x/é01",
        "x/É",
        "ab007",
        "ab07",
        "ab7c",
        "日本語/1",
        "日本語/01",
        "日本人",
    ];
    let key = |t: &str| {
        let mut k = Vec::new();
        super::order::natural_key(t, &mut k).expect("no NUL");
        k
    };
    for a in words {
        for b in words {
            assert_eq!(natural(a, b), natural_by_chars(a, b), "{a:?} vs {b:?}");
            assert_eq!(key(a).cmp(&key(b)), natural(a, b), "keys of {a:?} vs {b:?}");
        }
    }
    let mut nul = Vec::new();
    assert!(super::order::natural_key("a\0b", &mut nul).is_none());
    // Places, with and without a text that cannot be keyed.
    for extra in ["", "x\0"] {
        let texts: Vec<&str> = words.iter().copied().chain([extra, "a1"]).collect();
        let places = super::order::natural_places(texts.iter().map(|t| (&[][..], *t)));
        for (i, a) in texts.iter().enumerate() {
            for (j, b) in texts.iter().enumerate() {
                assert_eq!(places[i].cmp(&places[j]), natural(a, b), "{a:?} vs {b:?}");
            }
        }
    }
}

#[test]
fn counts_agree_with_the_run() {
    let settings = TaskSettings::default();
    for source in [
        "not done",
        "not done\nlimit 2",
        "not done\ngroup by filename\nlimit groups 1",
        "group by tags",
        "group by tags\nlimit 3",
        "done\nsort by due\ngroup by priority",
        "due before 2020-01-01",
    ] {
        let index = fixture::index(VAULT);
        let query = parse(source, &ctx(&settings)).unwrap_or_else(|e| panic!("{e}"));
        let all = run(&query, &index, &NoteFilter::All, &settings, TODAY);
        let counted = super::run::count(&query, &index, &NoteFilter::All, &settings, TODAY);
        assert_eq!(
            (counted.matched, counted.notes, counted.shown),
            (all.matched, all.notes, all.shown()),
            "{source}"
        );
    }
}
