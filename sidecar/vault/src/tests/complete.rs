//! Completion contexts, the fuzzy matcher, ranking and daily-note names.

use expect_test::expect;

use super::fixture;
use crate::complete::{Context, NoSignals, Request, complete, context};
use crate::daily::{Date, daily_note_path, format_date};
use crate::matcher::{Matcher, char_mask};
use crate::template::new_note_text;

/// The context at the `$0` cursor of `text`.
fn at(text: &str) -> Option<Context> {
    let offset = text.find("$0").expect("cursor");
    context(&text.replace("$0", ""), offset)
}

#[test]
fn contexts_say_what_is_typed_and_what_the_edit_replaces() {
    expect![[r#"
        Some(
            Note {
                typed: "Hu",
                link: LinkSlot {
                    replace: 6..8,
                    closed: false,
                    has_tail: false,
                    embed: false,
                },
            },
        )
    "#]]
    .assert_debug_eq(&at("see [[Hu$0"));
    // Closed: the rest of the target after the cursor is replaced too; a
    // fragment or alias after it is kept.
    let Some(Context::Note { link, .. }) = at("![[Hu$0b#x]] y") else {
        panic!()
    };
    assert_eq!(
        (link.replace, link.closed, link.has_tail, link.embed),
        (3..6, true, true, true)
    );
    let Some(Context::Note { link, .. }) = at("[[Hu$0b]] [[c]]") else {
        panic!()
    };
    assert_eq!(
        (link.replace, link.closed, link.has_tail),
        (2..5, true, false)
    );
    // `]]` of a later link does not close this one.
    let Some(Context::Note { link, .. }) = at("[[Hu$0 and [[c]]") else {
        panic!()
    };
    assert!(!link.closed);
    expect![[r#"
        Some(
            Heading {
                target: "Note",
                scope: [
                    "H1",
                ],
                typed: "su",
                link: LinkSlot {
                    replace: 10..12,
                    closed: false,
                    has_tail: false,
                    embed: false,
                },
            },
        )
    "#]]
    .assert_debug_eq(&at("[[Note#H1#su$0"));
    assert!(
        matches!(at("[[#^ab$0]]"), Some(Context::Block { target, typed, .. }) if target.is_empty() && typed == "ab")
    );
    assert!(
        matches!(at("a #pro$0ject b"), Some(Context::Tag { typed, replace }) if typed == "pro" && replace == (3..10))
    );
    assert!(matches!(
        at("[x](../a b$0"),
        None | Some(Context::Tag { .. })
    ));
    assert!(matches!(
        at("[x](<../a b$0>)"),
        Some(Context::MarkdownPath { typed, angle: true, closed: true, .. }) if typed == "../a b"
    ));
    assert!(matches!(
        at("[x](a%20b.md#He$0)"),
        Some(Context::MarkdownPath { typed, fragment_of: Some(path), .. }) if typed == "He" && path == "a b.md"
    ));
    // Nothing: after an alias bar, in a code span, in prose, a heading mark.
    assert_eq!(at("[[a|b$0"), None);
    assert_eq!(at("`[[a$0`"), None);
    assert_eq!(at("plain$0 text"), None);
    assert_eq!(at("#$0"), None);
    assert_eq!(at("## $0"), None);
    assert_eq!(at("a#b$0"), None);
}

#[test]
fn the_matcher_prefers_word_starts_runs_and_exact_names() {
    let m = Matcher::new("wft");
    assert!(m.score("weft").is_some());
    assert!(m.score("twf").is_none());
    let m = Matcher::new("plan");
    let exact = m.score("Plan").unwrap();
    let prefix = m.score("Planning").unwrap();
    let inner = m.score("Explanation").unwrap();
    let scattered = m.score("pale lantern").unwrap();
    assert!(
        exact > prefix && prefix > inner && inner > scattered,
        "{exact} {prefix} {inner} {scattered}"
    );
    // Word starts beat the middle of words.
    let m = Matcher::new("mh");
    assert!(m.score("My Heading").unwrap() > m.score("smash").unwrap());
    // Case and normal form do not matter; spaces in the query are ignored.
    assert!(Matcher::new("CAFE\u{301}").score("café").is_some());
    assert!(Matcher::new("my note").score("my-note").is_some());
    assert!(Matcher::new("").score("anything").is_some());
}

/// The mask never turns away a text the matcher would match: over every
/// pair of a few hundred random queries and texts (ASCII letters of both
/// cases, digits, punctuation, accents, other scripts), `score` finds a
/// match only where `may_match` allows one; and it does turn most away.
#[test]
fn the_char_mask_only_skips_texts_that_cannot_match() {
    let alphabet: Vec<char> =
        "aAbBcCdeEfFgGhiIjklmMnNopqrsStTuvwxyzZ0123456789 -_./#()[]!?éÉçüßİıΣσ日本"
            .chars()
            .collect();
    let mut rng = fastrand::Rng::with_seed(7);
    let mut word = |len: usize| -> String {
        (0..len)
            .map(|_| alphabet[rng.usize(..alphabet.len())])
            .collect()
    };
    let texts: Vec<String> = (0..400).map(|i| word(1 + i % 24)).collect();
    let queries: Vec<String> = (0..200).map(|i| word(1 + i % 4)).collect();
    let (mut matched, mut skipped) = (0, 0);
    for query in &queries {
        let m = Matcher::new(query);
        for text in &texts {
            let may = m.may_match(char_mask(text));
            if m.score(text).is_some() {
                assert!(may, "{query:?} matches {text:?} but its mask turns it away");
                matched += 1;
            } else if !may {
                skipped += 1;
            }
        }
    }
    assert!(matched > 1_000, "the pairs exercise matches: {matched}");
    assert!(
        skipped > 20_000,
        "the mask turns most non-matches away: {skipped}"
    );
    // Case, digits and punctuation fold as the matcher folds them.
    let m = Matcher::new("H2-x");
    assert!(m.may_match(char_mask("héading 7 (h2) - X")));
    assert!(!m.may_match(char_mask("heading x")));
    // A query with other characters is still filtered by its ASCII ones,
    // and a character that folds to ASCII (the Kelvin sign) counts.
    let m = Matcher::new("São k");
    assert!(m.may_match(char_mask("SÃO \u{212A}")));
    assert!(m.score("SÃO \u{212A}").is_some());
    assert!(!m.may_match(char_mask("São Paulo")));
}

#[test]
fn note_candidates_rank_names_and_insert_unambiguous_targets() {
    let index = fixture(
        "//- /a/Plan.md\n//- /b/Plan.md\n//- /Planning.md\n---\naliases: [Roadmap]\n---\n//- /zzz.md\n# Plan of record\n",
    );
    let request = Request {
        path: "new.md",
        note: None,
        daily: None,
        limit: 10,
        names: None,
        types: None,
        tasks: None,
    };
    let show = |text: &str| -> Vec<String> {
        let ctx = at(text).expect("a context");
        complete(&index, &ctx, &request, &NoSignals, &|_: &str| None)
            .items
            .iter()
            .map(|i| format!("{} => {}", i.label, i.insert))
            .collect()
    };
    expect![[r#"
        [
            "Plan => a/Plan]]",
            "Plan => b/Plan]]",
            "Planning => Planning]]",
            "Plan of record => zzz]]",
        ]
    "#]]
    .assert_debug_eq(&show("[[plan$0"));
    assert_eq!(show("[[road$0"), ["Roadmap => Planning|Roadmap]]"]);
    assert_eq!(show("[[road$0]]"), ["Roadmap => Planning|Roadmap"]);
    assert_eq!(show("[[road$0|x]]"), ["Roadmap => Planning"]);
}

#[test]
fn dates_and_daily_note_names() {
    let date = Date {
        year: 2024,
        month: 3,
        day: 1,
    };
    assert_eq!(Date::from_days(date.days()), date);
    assert_eq!(
        date.add_days(-1),
        Date {
            year: 2024,
            month: 2,
            day: 29
        }
    );
    assert_eq!(
        Date::from_days(0),
        Date {
            year: 1970,
            month: 1,
            day: 1
        }
    );
    assert_eq!(format_date(date, "YYYY-MM-DD"), "2024-03-01");
    assert_eq!(
        format_date(date, "dddd, MMMM Do YYYY [week] WW"),
        "Friday, March 1st 2024 week 09"
    );
    assert_eq!(format_date(date, "ddd D MMM YY, DDDD"), "Fri 1 Mar 24, 061");
    assert_eq!(
        format_date(
            Date {
                year: 2021,
                month: 1,
                day: 3
            },
            "GGGG-[W]WW-E"
        ),
        "2020-W53-7"
    );
    assert_eq!(
        daily_note_path("journal/", "YYYY/MM/YYYY-MM-DD", date),
        "journal/2024/03/2024-03-01.md"
    );
    assert_eq!(daily_note_path("", "YYYY-MM-DD", date), "2024-03-01.md");
    // The language server's "create note" fills templates as the agent's
    // tools do (regression: `{{Title}}`, `{{ date }}` and `{{time:HH}}` were
    // left as written).
    let nine_thirty = chrono::NaiveTime::from_hms_opt(9, 30, 0).unwrap();
    assert_eq!(
        new_note_text(
            Some("{{Title}} {{ date }} {{time:HH}}"),
            "T",
            date,
            nine_thirty
        ),
        "T 2024-03-01 09"
    );
    assert_eq!(
        new_note_text(
            Some("# {{title}}\n{{date}} {{time}} {{date:dddd}} {{other}}\n"),
            "T",
            date,
            nine_thirty
        ),
        "# T\n2024-03-01 09:30 Friday {{other}}\n"
    );
    assert_eq!(new_note_text(None, "T", date, nine_thirty), "# T\n");
}

#[test]
fn large_vaults_are_scanned_in_parallel_with_the_same_results() {
    // Past the parallel threshold: the best candidates are still found.
    let mut index = crate::VaultIndex::new();
    for i in 0..25_000 {
        index.upsert(crate::parse::parse_text(
            &format!("f{}/note {i}.md", i % 7),
            "",
        ));
    }
    let request = Request {
        path: "new.md",
        note: None,
        daily: None,
        limit: 5,
        names: None,
        types: None,
        tasks: None,
    };
    let ctx = at("[[note 2499$0").unwrap();
    let found = complete(&index, &ctx, &request, &NoSignals, &|_: &str| None);
    // The exact name first; 10 more contain it (note 24990..24999).
    assert_eq!(found.items[0].label, "note 2499");
    assert_eq!(found.items.len(), 5);
    assert!(found.incomplete);
    // The same from a name table, and a stale table never offers a note
    // that is gone.
    let table = crate::symbols::NameTable::build(&index);
    let from_table = |index: &crate::VaultIndex| {
        let request = Request {
            names: Some(&table),
            ..request
        };
        complete(index, &ctx, &request, &NoSignals, &|_: &str| None)
            .items
            .into_iter()
            .map(|i| i.label)
            .collect::<Vec<_>>()
    };
    let labels: Vec<String> = found.items.iter().map(|i| i.label.clone()).collect();
    assert_eq!(from_table(&index), labels);
    assert!(
        index
            .remove(&format!("f{}/note 2499.md", 2499 % 7))
            .is_some()
    );
    assert!(!from_table(&index).contains(&"note 2499".to_string()));
    let (symbols, more) = crate::symbols::search(&index, "note 1234", 3);
    assert_eq!(symbols[0].name, "note 1234");
    assert!(more);
}

const PROPS: &str = r#"
//- /a.md
---
status: active
due: 2026-12-01
done: false
related: "[[b]]"
tags: [work, home]
---
//- /b.md
---
status: active
due: 2026-12-03
done: true
tags:
  - work
---
//- /c.md
---
status: "on hold: waiting"
topics: [rust, yaml]
---
"#;

/// The property completions at `$0` in `text`, edited as note `new.md`.
fn props_at(text: &str) -> Vec<String> {
    let index = fixture(PROPS);
    let daily = crate::complete::DailySettings {
        folder: String::new(),
        format: "YYYY-MM-DD".into(),
        today: crate::daily::Date::from_days(20_800),
    };
    let request = Request {
        path: "new.md",
        note: None,
        daily: Some(&daily),
        limit: 10,
        names: None,
        types: None,
        tasks: None,
    };
    let Some(ctx) = at(text) else {
        return vec!["(no context)".into()];
    };
    complete(&index, &ctx, &request, &NoSignals, &|_: &str| None)
        .items
        .iter()
        .map(|i| {
            format!(
                "{} => {:?} ({})",
                i.label,
                i.insert,
                i.detail.as_deref().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn frontmatter_completes_property_names_and_values() {
    // Names, with their type and use; `: ` added when none follows.
    expect![[r#"
        [
            "status => \"status: \" (text · 3 notes)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\nst$0\n---\n"));
    expect![[r#"
        [
            "done => \"done\" (checkbox · 2 notes)",
            "due => \"due\" (date · 2 notes)",
            "related => \"related\" (text · 1 note)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\nd$0: x\n---\n"));
    // Values of the key, most used first, quoted where YAML needs it.
    expect![[r#"
        [
            "active => \"active\" (2 notes)",
            "on hold: waiting => \"\\\"on hold: waiting\\\"\" (1 note)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\nstatus: $0\n---\n"));
    // A checkbox offers true and false; a date today first.
    expect![[r#"
        [
            "false => \"false\" (1 note)",
            "true => \"true\" (1 note)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\ndone: $0\n---\n"));
    expect![[r#"
        [
            "2026-12-13 => \"2026-12-13\" ()",
            "2026-12-01 => \"2026-12-01\" (1 note)",
            "2026-12-03 => \"2026-12-03\" (1 note)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\ndue: 2026$0\n---\n"));
    // Items of a list, block or flow; `tags` offers the vault's tags.
    expect![[r#"
        [
            "work => \"work\" (2 notes)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\ntags:\n  - wo$0\n---\n"));
    expect![[r#"
        [
            "yaml => \"yaml\" (1 note)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\ntopics: [rust, y$0]\n---\n"));
    // A comment, an indented line that is no item, the body: nothing of
    // this kind (`#` in YAML is no tag).
    assert_eq!(props_at("---\n# sta$0\n---\n"), ["(no context)"]);
    assert_eq!(props_at("---\nmeta:\n  own$0\n---\n"), ["(no context)"]);
    expect![[r#"
        [
            "(no context)",
        ]
    "#]]
    .assert_debug_eq(&props_at("---\nstatus: x\n---\nstatus: $0\n"));
}

/// The task-date completions at `$0` in `text` on 2026-12-07, under a
/// global filter when one is given: `label (detail) @replace`.
fn task_dates_at(text: &str, global_filter: &str) -> Vec<String> {
    let index = fixture("");
    let daily = crate::complete::DailySettings {
        folder: String::new(),
        format: "YYYY-MM-DD".into(),
        today: Date {
            year: 2026,
            month: 12,
            day: 7,
        },
    };
    let settings = crate::tasks::TaskSettings {
        global_filter: global_filter.into(),
        ..Default::default()
    };
    let request = Request {
        path: "new.md",
        note: None,
        daily: Some(&daily),
        limit: 10,
        names: None,
        types: None,
        tasks: Some(&settings),
    };
    let Some(ctx) = at(text) else {
        return vec!["(no context)".into()];
    };
    let found = complete(&index, &ctx, &request, &NoSignals, &|_: &str| None);
    found
        .items
        .iter()
        .map(|i| {
            format!(
                "{} ({}) @{:?}",
                i.label,
                i.detail.as_deref().unwrap_or(""),
                found.replace
            )
        })
        .collect()
}

#[test]
fn a_tasks_date_field_completes_today_tomorrow_and_the_week_after() {
    expect![[r#"
        [
            "2026-12-07 (today) @15..15",
            "2026-12-08 (tomorrow) @15..15",
            "2026-12-09 (Wednesday) @15..15",
            "2026-12-10 (Thursday) @15..15",
            "2026-12-11 (Friday) @15..15",
            "2026-12-12 (Saturday) @15..15",
            "2026-12-13 (Sunday) @15..15",
            "2026-12-14 (Monday) @15..15",
            "2026-12-15 (Tuesday) @15..15",
        ]
    "#]]
    .assert_debug_eq(&task_dates_at("- [ ] pay 📅 $0", ""));
    // What is typed filters, by the date's digits or its name; the rest
    // of the word after the cursor is replaced too.
    expect![[r#"
        [
            "2026-12-10 (Thursday) @17..27",
            "2026-12-11 (Friday) @17..27",
            "2026-12-12 (Saturday) @17..27",
            "2026-12-13 (Sunday) @17..27",
            "2026-12-14 (Monday) @17..27",
            "2026-12-15 (Tuesday) @17..27",
        ]
    "#]]
    .assert_debug_eq(&task_dates_at("> - [/] x [due:: 2026-12-1$00] y", ""));
    expect![[r#"
        [
            "2026-12-15 (Tuesday) @17..19",
        ]
    "#]]
    .assert_debug_eq(&task_dates_at("1. [ ] a ⏳\u{fe0f}  tu$0", ""));
    // Each field: scheduled, start, created, in both formats, the
    // alternative emoji too.
    for text in [
        "- [ ] a ⌛ $0",
        "- [ ] a 🛫 $0",
        "- [ ] a ➕ $0",
        "- [ ] a 🗓 $0",
        "- [ ] a (scheduled:: $0",
        "- [ ] a [ start::$0]",
        "- [ ] a [created:: $0] [due:: 2026-01-01]",
    ] {
        assert_eq!(task_dates_at(text, "").len(), 9, "{text}");
    }
    // Not a task's date: done and cancelled (they come with a status), a
    // line that is no task or not under the global filter, the checkbox,
    // and words after the emoji.
    for text in [
        "- [ ] a ✅ $0",
        "- [ ] a ❌ $0",
        "- a 📅 $0",
        "📅 $0",
        "- [📅 $0] a",
        "- [ ] a 📅 later $0",
        "- [ ] a [due:: x $0",
        "- [ ] a due:: $0",
    ] {
        let found = task_dates_at(text, "");
        assert!(
            found.is_empty() || found == ["(no context)"],
            "{text}: {found:?}"
        );
    }
    assert!(task_dates_at("- [ ] a 📅 $0", "#task").is_empty());
    assert_eq!(task_dates_at("- [ ] #task a 📅 $0", "#task").len(), 9);
}
