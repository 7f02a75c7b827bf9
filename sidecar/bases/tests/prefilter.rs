//! The prefilter (`plan`) changes no answer: random vaults (notes in
//! folders, tags, properties of every type written every way, links to
//! notes and attachments, a `.MD` note, a `types.json` or none) and random
//! filters (what the prefilter translates, what it leaves, what fails,
//! nested `and` / `or` / `not`, `&&` / `||` / `!`), each view run with the
//! prefilter and evaluating every row: the same rows, paths, summaries,
//! total and errors. Deterministic (fixed seeds).

use chrono::NaiveDateTime;
use fastrand::Rng;
use serde_json::{Value as J, json};
use weft_bases::plan::Plan;
use weft_bases::run::run_evaluating_every_row;
use weft_bases::{Base, Context, Files, Request, RowMeta, render, run};
use weft_vault::VaultIndex;
use weft_vault::parse::parse_text;
use weft_vault::props::Types;

struct NoMeta;

impl Files for NoMeta {
    fn meta(&self, _: &str) -> RowMeta {
        RowMeta {
            modified: Some(1_700_000_000),
            created: Some(1_600_000_000),
            size: Some(10),
        }
    }
}

const FOLDERS: &[&str] = &["", "A/", "A/B/", "Books/", "books 2/", "Ab/"];
const NAMES: &[&str] = &[
    "Dune",
    "dune",
    "Done",
    "Note",
    "2024-01-05",
    "3",
    "Café",
    "x",
    "Foo",
    "cover.png",
];
const TAGS: &[&str] = &["a", "a/b", "B", "c/d", "Café", "#a"];
const STATUS: &[&str] = &[
    "done",
    "Done",
    "\"done \"",
    "active",
    "Dune",
    "\"[[Dune]]\"",
    "\"[[Books/Dune]]\"",
    "\"[[cover.png]]\"",
    "\"[[A/cover.png]]\"",
    "\"[[x.png]]\"",
    "cover.png",
    "2024-01-05",
    "3",
    "3.0",
    "true",
    "\"\"",
    "",
    "[done, active]",
    "[\"[[Dune]]\"]",
    "Café",
];
const RATING: &[&str] = &[
    "1", "2", "3", "3.0", "\"3\"", "4.5", "five", "", "[3]", "true",
];
const DONE: &[&str] = &["true", "false", "\"true\"", "yes", "True", ""];
const DUE: &[&str] = &[
    "2026-11-01",
    "2027-01-01",
    "2026-11-28T10:00",
    "soon",
    "\"\"",
];

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> &'a str {
    from[rng.usize(..from.len())]
}

/// A random vault: ~40 notes, some attachments, maybe a `types.json`.
fn vault(rng: &mut Rng) -> VaultIndex {
    let mut index = VaultIndex::new();
    if rng.bool() {
        let types = json!({"types": {
            "status": if rng.bool() { "text" } else { "multitext" },
            "rating": if rng.bool() { "number" } else { "text" },
            "done": "checkbox",
            "due": "date",
        }});
        index.set_types(&Types::parse(&types.to_string()).expect("types"));
    }
    for i in 0..rng.usize(20..50) {
        // Each name once (`Foo` sometimes `.MD`), then more of them.
        let path = match NAMES.get(i) {
            Some(name) => {
                let ext = if *name == "Foo" && rng.bool() {
                    "MD"
                } else {
                    "md"
                };
                format!("{}{name}.{ext}", pick(rng, FOLDERS))
            }
            None => {
                let ext = if rng.u8(..20) == 0 { "MD" } else { "md" };
                let (folder, name) = (pick(rng, FOLDERS), pick(rng, NAMES));
                format!("{folder}{name}-n{}.{ext}", i % 7)
            }
        };
        let mut text = String::from("---\n");
        let mut prop = |rng: &mut Rng, key: &str, values: &[&str]| {
            if rng.bool() {
                text.push_str(&format!("{key}: {}\n", pick(rng, values)));
            }
        };
        prop(rng, "status", STATUS);
        prop(rng, "Status", &["done", "active"]);
        prop(rng, "rating", RATING);
        prop(rng, "done", DONE);
        prop(rng, "due", DUE);
        if rng.bool() {
            let tags: Vec<&str> = (0..rng.usize(1..3)).map(|_| pick(rng, TAGS)).collect();
            text.push_str(&format!("tags: [{}]\n", tags.join(", ").replace('#', "")));
        }
        text.push_str("---\n\nText");
        for _ in 0..rng.usize(..3) {
            text.push_str(&format!(" #{}", pick(rng, TAGS).trim_start_matches('#')));
        }
        text.push('\n');
        index.upsert(parse_text(&path, &text));
    }
    for path in [
        "cover.png",
        "A/cover.png",
        "Books/scan.pdf",
        "A/B/x.png",
        "3",
    ] {
        index.add_attachment(path);
    }
    index
}

/// A random condition, as an expression.
fn atom(rng: &mut Rng) -> String {
    let text = |rng: &mut Rng| {
        pick(
            rng,
            &[
                "done",
                "Done",
                "done ",
                "active",
                "Dune",
                "Books/Dune",
                "cover.png",
                "2024-01-05",
                "3",
                "true",
                "",
                "Café",
                "[[Dune]]",
                "x",
                "A/cover.png",
                "A/B/x.png",
                "x.png",
            ],
        )
        .to_string()
    };
    let key = |rng: &mut Rng| {
        pick(
            rng,
            &["status", "Status", "rating", "done", "due", "nothing"],
        )
    };
    let prop = |rng: &mut Rng| {
        let k = key(rng);
        if rng.bool() {
            k.to_string()
        } else {
            format!("note.{k}")
        }
    };
    // Mostly what the prefilter translates; the rest it leaves or fails.
    let which = if rng.u8(..10) < 7 {
        rng.u8(..10)
    } else {
        rng.u8(10..22)
    };
    match which {
        0 => format!("file.hasTag({:?})", pick(rng, TAGS)),
        1 => format!("file.hasTag({:?}, {:?})", pick(rng, TAGS), pick(rng, TAGS)),
        2 => format!(
            "file.inFolder({:?})",
            pick(
                rng,
                &["A", "A/B", "Books", "books 2", "/", "a/", "../x", "Ab"]
            )
        ),
        3 => format!("file.hasProperty({:?})", key(rng)),
        4 => prop(rng),
        5 => format!("{} == {:?}", prop(rng), text(rng)),
        6 => format!("{:?} == {}", text(rng), prop(rng)),
        7 => format!(
            "{} == {}",
            prop(rng),
            pick(rng, &["3", "3.0", "1", "true", "false", "null"])
        ),
        8 => format!(
            "{} {} {}",
            prop(rng),
            pick(rng, &["<", "<=", ">", ">="]),
            pick(rng, &["2", "\"3\"", "today()", "\"2026-12-01\"", "rating"])
        ),
        9 => format!(
            "file.name == {:?}",
            pick(
                rng,
                &["Dune", "dune", "cover.png", "Foo.MD", "Foo", "3", "x1"]
            )
        ),
        10 => "file.ext == \"md\"".into(),
        11 => format!("{}.lower() == \"done\"", prop(rng)),
        12 => "formula.f > 2".into(),
        13 => "file.nosuch".into(),
        14 => format!("!{}", prop(rng)),
        15 => format!("{} != {:?}", prop(rng), text(rng)),
        16 => "file.tags.contains(\"a\")".into(),
        17 => format!("{}.contains(\"o\")", prop(rng)),
        18 => format!("list({}).contains(\"done\")", prop(rng)),
        19 => format!("{} * 2 > 4", prop(rng)),
        20 => format!("file.hasLink({:?})", text(rng)),
        _ => "true".into(),
    }
}

/// A random condition with `&&`, `||`, `!`.
fn expression(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.u8(..3) == 0 {
        return atom(rng);
    }
    match rng.u8(..5) {
        0 | 1 => format!(
            "({}) && ({})",
            expression(rng, depth - 1),
            expression(rng, depth - 1)
        ),
        2 | 3 => format!(
            "({}) || ({})",
            expression(rng, depth - 1),
            expression(rng, depth - 1)
        ),
        _ => format!("!({})", expression(rng, depth - 1)),
    }
}

/// A random `filters:` node.
fn filter(rng: &mut Rng, depth: usize) -> J {
    if depth == 0 || rng.u8(..3) == 0 {
        return J::String(expression(rng, 2));
    }
    let items: Vec<J> = (0..rng.usize(..4))
        .map(|_| filter(rng, depth - 1))
        .collect();
    json!({ pick(rng, &["and", "and", "or", "or", "not"]): items })
}

fn base(rng: &mut Rng) -> String {
    let formula = pick(rng, &["rating * 2", "status.lower()", "file.name", "due"]);
    let mut view = json!({
        "type": "table",
        "name": "V",
        "order": ["file.name", "status", "formula.f"],
    });
    if rng.u8(..4) > 0 {
        view["filters"] = filter(rng, 3);
    }
    if rng.bool() {
        view["sort"] = json!([{"property": pick(rng, &["formula.f", "rating", "file.name"]), "direction": "DESC"}]);
    }
    if rng.u8(..4) == 0 {
        view["groupBy"] = json!({"property": "status", "direction": "ASC"});
    }
    if rng.bool() {
        view["summaries"] = json!({"formula.f": "Filled"});
    }
    let mut doc = json!({"formulas": {"f": formula}, "views": [view]});
    if rng.bool() {
        doc["filters"] = filter(rng, 3);
    }
    doc.to_string()
}

/// The answer as compared.
fn answer(base: &Base, index: &VaultIndex, evaluate_every_row: bool) -> Result<J, String> {
    paged(base, index, evaluate_every_row, 0, None)
}

/// The answer of one page.
fn paged(
    base: &Base,
    index: &VaultIndex,
    evaluate_every_row: bool,
    offset: usize,
    page: Option<usize>,
) -> Result<J, String> {
    let now = NaiveDateTime::parse_from_str("2026-11-28T12:00:00", "%Y-%m-%dT%H:%M:%S").unwrap();
    let local = |t: i64| chrono::DateTime::from_timestamp(t, 0).unwrap().naive_utc();
    let cx = Context {
        index,
        files: &NoMeta,
        now,
        local: &local,
        this: None,
        sees: &|_| true,
    };
    let request = Request {
        offset,
        page,
        ..Request::default()
    };
    let table = match evaluate_every_row {
        true => run_evaluating_every_row(base, &cx, &request),
        false => run(base, &cx, &request),
    }
    .map_err(|e| e.to_string())?;
    let mut out = render::json(&table, index, true);
    out["total"] = json!(table.total);
    out["errors"] = json!(table.errors);
    out["error_count"] = json!(table.error_count);
    Ok(out)
}

#[test]
fn random_filters_answer_the_same_with_and_without_the_prefilter() {
    let (mut pruned, mut with_errors, mut runs) = (0, 0, 0);
    for seed in 0..40 {
        let mut rng = Rng::with_seed(seed);
        let mut pages = Rng::with_seed(seed + 1_000);
        let index = vault(&mut rng);
        let notes = index.notes().count();
        for _ in 0..60 {
            let yaml = base(&mut rng);
            let base = match Base::parse(&yaml) {
                Ok(b) => b,
                Err(e) => panic!("{yaml}: {e}"),
            };
            let with = answer(&base, &index, false);
            let without = answer(&base, &index, true);
            assert_eq!(with, without, "seed {seed}: {yaml}");
            // A page is the rows of the whole table there.
            let (offset, size) = (pages.usize(..12), pages.usize(..8));
            if let (Ok(page), Ok(whole)) =
                (paged(&base, &index, false, offset, Some(size)), &without)
                && whole.get("rows").is_some()
            {
                let slice = |key: &str| -> Vec<J> {
                    let all = whole[key].as_array().unwrap();
                    all.iter().skip(offset).take(size).cloned().collect()
                };
                assert_eq!(
                    page["rows"].as_array().unwrap(),
                    &slice("rows"),
                    "seed {seed}: {yaml}"
                );
                assert_eq!(page["paths"].as_array().unwrap(), &slice("paths"), "{yaml}");
                assert_eq!(page["total"], whole["total"], "{yaml}");
            }
            let view = base.view(None).unwrap();
            let plan = Plan::of(&base, &view, &index);
            let kept = index
                .notes()
                .filter(|(id, _)| plan.note_may_pass(&index, *id))
                .count();
            pruned += usize::from(kept < notes);
            with_errors += usize::from(without.is_ok_and(|j| j["error_count"] != json!(0)));
            runs += 1;
        }
    }
    // The check is not vacuous: the prefilter left notes out in many runs,
    // and many runs had rows that failed.
    assert!(
        pruned * 4 > runs,
        "the prefilter pruned in {pruned} of {runs} runs"
    );
    assert!(
        with_errors * 10 > runs,
        "{with_errors} of {runs} runs had errors"
    );
}

/// The corners each guard of the prefilter is for, on a fixed vault: each
/// filter answers the same both ways.
#[test]
fn the_corners_answer_the_same() {
    let mut index = VaultIndex::new();
    let notes = [
        ("A/Link to x.md", "status: \"[[x.png]]\""),
        ("Books/Dune.md", "status: Dune\nrating: 3.0"),
        ("Books/Link.md", "status: \"[[Dune]]\"\nrating: \"3\""),
        ("Dated.md", "status: 2024-01-05\ndone: \"true\""),
        ("Foo.MD", "status: done"),
        ("Upper.md", "Status: done\nstatus: Done"),
        ("Empty.md", "status:\ndone: false"),
    ];
    for (path, fm) in notes {
        index.upsert(parse_text(path, &format!("---\n{fm}\n---\nText #a\n")));
    }
    for path in ["A/B/x.png", "A/cover.png", "cover.png"] {
        index.add_attachment(path);
    }
    let filters = [
        "status == \"A/B/x.png\"",
        "status == \"x.png\"",
        "file.name == \"Foo.MD\"",
        "file.name == \"cover.png\"",
        "status == \"2024-01-05\"",
        "rating == \"3\"",
        "rating == 3",
        "status == \"Dune\"",
        "status == \"Books/Dune\"",
        "status == \"done\"",
        "done == true",
        "status == null",
        "file.inFolder(\"A\")",
        "file.hasTag(\"a\") && status.lower() == \"dune\"",
        "status.lower() == \"dune\" && file.hasTag(\"b\")",
        "file.inFolder(\"..\") || file.hasTag(\"a\")",
    ];
    for f in filters {
        let yaml = format!(
            "filters: {}\nviews: [{{type: table, name: V, order: [file.name, status]}}]",
            J::String(f.into())
        );
        let base = Base::parse(&yaml).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(
            answer(&base, &index, false),
            answer(&base, &index, true),
            "{f}"
        );
    }
}
