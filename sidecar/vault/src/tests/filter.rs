//! The one note filter on fixture vaults: folders with their boundary
//! however written, nested tags, typed property values (dates, numbers,
//! `[[links]]` by where they lead, lists), links both ways, and/or/not,
//! and the reproductions of issue 39 that the vault can answer.

use super::fixture;
use crate::filter::{
    Cmp, FileMeta, Filter, FilterError, Folder, MAX_DEPTH, SizeRange, Test, TimeRange, Value,
    select,
};

const VAULT: &str = r#"
//- /projects/weft.md
---
type: project
status: active
due: 2026-12-20
priority: 3
part_of: "[[Hub]]"
related: ["[[ideas/spark]]", "plain"]
---
# Weft
#work/coding [[Hub]]
//- /projects/old.md
---
type: project
status: done
due: 2026-11-02
priority: 1
part_of: "[[Elsewhere]]"
---
#work
//- /projects/sub/deep.md
---
due: 2027-01-15
priority: "high"
---
[[projects/weft]]
//- /proj.md
---
type: project
status: active
due: 2026-12-27T18:00
---
# Proj
//- /Hub.md
# Hub
[[projects/weft]] #working
//- /ideas/spark.md
---
part_of: Hub
tags: [idea, work/writing]
---
//- /Other/Hub.md
# Other hub
"#;

fn paths(filter: &Filter) -> Vec<String> {
    filter.check().expect("a usable filter");
    let index = fixture(VAULT);
    select(&index, filter, |note| FileMeta {
        modified: Some(i64::from(note.len)),
        created: None,
    })
    .into_iter()
    .map(|id| index.note(id).path.to_string())
    .collect()
}

fn folder(text: &str) -> Filter {
    Filter::Folder(Folder::new(text).expect("a folder"))
}

fn prop(key: &str, test: Test) -> Filter {
    Filter::Property(key.into(), test)
}

#[test]
fn a_folder_has_a_boundary_however_it_is_written() {
    let projects = [
        "projects/weft.md",
        "projects/old.md",
        "projects/sub/deep.md",
    ];
    for written in [
        "projects",
        "projects/",
        "/projects",
        "./projects",
        "projects\\",
        "Projects",
        " projects/ ",
    ] {
        let mut found = paths(&folder(written));
        found.sort();
        let mut want = projects.to_vec();
        want.sort();
        assert_eq!(found, want, "{written:?}");
    }
    // `proj` is the note proj.md, never the folder `projects`.
    assert_eq!(paths(&folder("proj")), ["proj.md"]);
    assert_eq!(paths(&folder("projects/sub")), ["projects/sub/deep.md"]);
    assert_eq!(paths(&folder("")).len(), 7);
    assert!(Folder::new("../elsewhere").is_err());
    assert!(Folder::new("C:\\notes").is_err());
}

#[test]
fn tags_are_hierarchical_and_never_a_prefix_of_a_word() {
    assert_eq!(
        paths(&Filter::Tag("work".into())),
        ["ideas/spark.md", "projects/old.md", "projects/weft.md"]
    );
    assert_eq!(
        paths(&Filter::Tag("#Work/Coding".into())),
        ["projects/weft.md"]
    );
    assert_eq!(paths(&Filter::Tag("working".into())), ["Hub.md"]);
}

/// Issue 39: `part_of: "[[Hub]]"` is found by `Hub`, whichever way either
/// is written, and by where the link leads: `[[Hub]]` from `projects/` is
/// the root's Hub.md, which `Other/Hub` is not.
#[test]
fn link_values_compare_by_the_note_they_lead_to() {
    for want in ["Hub", "[[Hub]]", "hub", "[[Hub|the hub]]"] {
        assert_eq!(
            paths(&prop("part_of", Test::Equals(Value::of_text(want)))),
            ["ideas/spark.md", "projects/weft.md"],
            "{want:?}"
        );
    }
    assert_eq!(
        paths(&prop("part_of", Test::Equals(Value::of_text("Other/Hub")))),
        Vec::<String>::new()
    );
    // An unresolved link compares by its target.
    assert_eq!(
        paths(&prop("part_of", Test::Equals(Value::of_text("elsewhere")))),
        ["projects/old.md"]
    );
    // A list's items: one of them.
    assert_eq!(
        paths(&prop(
            "related",
            Test::Contains(Value::of_text("ideas/spark"))
        )),
        ["projects/weft.md"]
    );
    assert_eq!(
        paths(&prop("related", Test::Equals(Value::of_text("PLAIN")))),
        ["projects/weft.md"]
    );
}

/// Issue 39: `due:<2026-12-28` and `due:>=2026-12-01` compare dates (a
/// moment on a day too); `priority:>=2` numbers; a value of another kind
/// (`priority: "high"`) never qualifies.
#[test]
fn comparisons_are_typed_by_the_values() {
    let before = prop(
        "due",
        Test::Compare(Cmp::Less, Value::of_text("2026-12-28")),
    );
    assert_eq!(
        paths(&before),
        ["proj.md", "projects/old.md", "projects/weft.md"]
    );
    let since = prop(
        "due",
        Test::Compare(Cmp::GreaterOrEqual, Value::of_text("2026-12-01")),
    );
    assert_eq!(
        paths(&since),
        ["proj.md", "projects/sub/deep.md", "projects/weft.md"]
    );
    let within = Filter::all_of(vec![before, since]);
    assert_eq!(paths(&within), ["proj.md", "projects/weft.md"]);
    assert_eq!(
        paths(&prop(
            "priority",
            Test::Compare(Cmp::GreaterOrEqual, Value::of_text("2"))
        )),
        ["projects/weft.md"]
    );
    assert_eq!(
        paths(&prop(
            "priority",
            Test::Compare(Cmp::Greater, Value::of_text("0"))
        )),
        ["projects/old.md", "projects/weft.md"]
    );
    assert_eq!(
        paths(&prop("status", Test::Equals(Value::of_text("Active")))),
        ["proj.md", "projects/weft.md"]
    );
    assert_eq!(
        paths(&prop("priority", Test::Exists)),
        [
            "projects/old.md",
            "projects/sub/deep.md",
            "projects/weft.md"
        ]
    );
}

/// The query of issue 39 that answered nothing: `type:project
/// status:active due:<2026-12-28` — four notes qualify in the issue's
/// vault, two here.
#[test]
fn a_property_query_combines_its_tests() {
    let query = Filter::all_of(vec![
        prop("type", Test::Equals(Value::of_text("project"))),
        prop("status", Test::Equals(Value::of_text("active"))),
        prop(
            "due",
            Test::Compare(Cmp::Less, Value::of_text("2026-12-28")),
        ),
    ]);
    assert_eq!(paths(&query), ["proj.md", "projects/weft.md"]);
    let not_done = Filter::all_of(vec![
        folder("projects"),
        Filter::Not(Box::new(prop(
            "status",
            Test::Equals(Value::of_text("done")),
        ))),
    ]);
    assert_eq!(
        paths(&not_done),
        ["projects/sub/deep.md", "projects/weft.md"]
    );
    let either = Filter::any_of(vec![Filter::Tag("idea".into()), folder("Other")]);
    assert_eq!(paths(&either), ["Other/Hub.md", "ideas/spark.md"]);
}

#[test]
fn links_both_ways_names_sizes_times_and_paths() {
    let index = fixture(VAULT);
    let weft = index.id_of("projects/weft.md").expect("weft");
    let hub = index.id_of("Hub.md").expect("hub");
    assert_eq!(
        paths(&Filter::LinksTo(weft)),
        ["Hub.md", "projects/sub/deep.md"]
    );
    assert_eq!(paths(&Filter::LinkedFrom(hub)), ["projects/weft.md"]);
    assert_eq!(
        paths(&Filter::Name("HUB".into())),
        ["Hub.md", "Other/Hub.md"]
    );
    let small = Filter::Size(SizeRange {
        min: None,
        max: Some(20),
    });
    assert_eq!(paths(&small), ["Other/Hub.md"]);
    // The fixture's files were "modified" at their length.
    let modified = Filter::Modified(TimeRange {
        from: Some(0),
        to: Some(21),
    });
    assert_eq!(paths(&modified), ["Other/Hub.md"]);
    assert_eq!(
        paths(&Filter::Created(TimeRange::default())),
        Vec::<String>::new(),
        "an unknown time never qualifies"
    );
    let only = Filter::Paths(["Hub.md".into(), "nowhere.md".into()].into());
    assert_eq!(paths(&only), ["Hub.md"]);
}

#[test]
fn values_are_typed_in_one_place() {
    use chrono::NaiveDate;
    let day = |y, m, d| {
        NaiveDate::from_ymd_opt(y, m, d)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .expect("a day")
    };
    assert_eq!(Value::of_text("2026-12-28"), Value::Date(day(2026, 12, 28)));
    assert!(matches!(Value::of_text("2026-12-28T09:30"), Value::Date(_)));
    assert_eq!(Value::of_text(" 2.5 "), Value::Number(2.5));
    assert_eq!(Value::of_text("true"), Value::Bool(true));
    assert_eq!(Value::of_text("[[A#B|c]]"), Value::Link("A".into()));
    assert_eq!(
        Value::of_text("[[a]] and [[b]]"),
        Value::Text("[[a]] and [[b]]".into())
    );
    for text in ["NaN", "inf", "-", "2026-13-45", "1e999"] {
        assert!(matches!(Value::of_text(text), Value::Text(_)), "{text}");
    }
    assert_eq!(
        Value::of_json(&serde_json::json!(["x", 2, null, [true]])),
        Value::List(vec![
            Value::Text("x".into()),
            Value::Number(2.0),
            Value::Empty,
            Value::List(vec![Value::Bool(true)]),
        ])
    );
}

#[test]
fn a_filter_nests_boundedly() {
    let nested =
        |levels: usize| (0..levels).fold(Filter::All, |inner, _| Filter::Not(Box::new(inner)));
    assert_eq!(nested(MAX_DEPTH).check(), Ok(()));
    assert_eq!(nested(MAX_DEPTH + 1).check(), Err(FilterError::TooDeep));
    assert!(Filter::All.is_all() && folder("/").is_all() && !folder("a").is_all());
}

/// A key the vault declares text (or a list) compares as text: its values
/// are never read as numbers, dates or yes/no, so `01234` and `1234`
/// differ, and order is the text's. Undeclared, the same values are typed
/// by what they look like.
#[test]
fn a_key_declared_text_compares_its_values_as_text() {
    let vault = r#"
//- /a.md
---
zip: "01234"
code: 2026-12-01
flag: "true"
---
//- /b.md
---
zip: 1234
code: "2026-12-1"
flag: true
---
"#;
    let mut index = fixture(vault);
    let select_paths = |index: &crate::VaultIndex, filter: &Filter| -> Vec<String> {
        select(index, filter, |_| FileMeta::default())
            .into_iter()
            .map(|id| index.note(id).path.to_string())
            .collect()
    };
    let equals = |index: &crate::VaultIndex, key: &str, text: &str| {
        let want = Value::of_text_as(text, index.types().fixed(key));
        select_paths(index, &prop(key, Test::Equals(want)))
    };
    assert_eq!(equals(&index, "zip", "1234"), ["a.md", "b.md"]);
    assert_eq!(equals(&index, "flag", "true"), ["a.md", "b.md"]);
    let types = crate::props::Types::parse(
        r#"{"types": {"zip": "text", "code": "multitext", "flag": "text"}}"#,
    )
    .expect("types.json");
    assert!(index.set_types(&types));
    assert!(!index.set_types(&types), "the same types change nothing");
    assert_eq!(equals(&index, "zip", "01234"), ["a.md"]);
    assert_eq!(equals(&index, "zip", "1234"), ["b.md"]);
    assert_eq!(
        equals(&index, "flag", "TRUE"),
        ["a.md", "b.md"],
        "as names compare"
    );
    assert_eq!(equals(&index, "code", "2026-12-1"), ["b.md"]);
    // Text order: `2026-12-01` < `2026-12-1`.
    let before = Value::of_text_as("2026-12-05", index.types().fixed("code"));
    assert_eq!(
        select_paths(&index, &prop("code", Test::Compare(Cmp::Less, before))),
        ["a.md"]
    );
    // `tags` is text whatever types.json says of it.
    assert!(crate::props::PropType::is_textual(
        index.types().fixed("tags").expect("reserved")
    ));
}
