use serde_json::json;

use super::*;
use crate::testing::Disk;

const VAULT: &str = r#"
//- /Projects/Weft.md
---
status: active
due: 2026-12-20
priority: 3
tags: [project]
---
# Weft
//- /Projects/Loom.md
---
status: done
due: 2026-11-02
priority: 1
tags: [project]
---
//- /Projects/Shuttle.md
---
status: active
due: 2027-01-15
priority: 2
tags: [project]
---
//- /Projects.base
filters: 'file.inFolder("Projects")'
formulas:
  score: 'priority * 10'
views:
  - type: table
    name: Active
    filters: 'status == "active"'
    order: [file.name, due, formula.score]
    sort: [{property: due, direction: ASC}]
  - type: table
    name: By status
    groupBy: {property: status, direction: ASC}
    order: [file.name]
    summaries: {priority: Sum}
//- /Hub.md
# Hub
```base
filters: 'file.hasLink(this)'
views: [{type: table, name: Here, order: [file.name]}]
```
//- /Projects/Linker.md
---
status: idea
---
[[Hub]]
"#;

fn call(args: serde_json::Value) -> (String, serde_json::Value) {
    let disk = Disk::new(VAULT);
    let args: QueryNotesArgs = serde_json::from_value(args).expect("arguments");
    let reply = run(&disk.state, args).unwrap_or_else(|e| panic!("{}", e.text()));
    (reply.text, reply.structured)
}

fn error(args: serde_json::Value) -> String {
    let disk = Disk::new(VAULT);
    let args: QueryNotesArgs = serde_json::from_value(args).expect("arguments");
    match run(&disk.state, args) {
        Ok(reply) => panic!("expected an error, got {}", reply.text),
        Err(e) => e.text(),
    }
}

#[test]
fn a_base_file_runs_its_views() {
    let (text, v) = call(json!({"base": "Projects.base"}));
    assert_eq!(v["view"], "Active");
    assert_eq!(v["columns"], json!(["file.name", "due", "formula.score"]));
    assert_eq!(
        v["rows"],
        json!([["Weft", "2026-12-20", 30], ["Shuttle", "2027-01-15", 20]])
    );
    assert_eq!(
        v["paths"],
        json!(["Projects/Weft.md", "Projects/Shuttle.md"])
    );
    assert!(
        text.contains("| file.name | due | formula.score |"),
        "{text}"
    );
    assert!(text.contains("Views: Active, By status."), "{text}");
    let (_, v) = call(json!({"base": "Projects.base", "view": "by status"}));
    assert_eq!(v["groups"][0]["key"], "active");
    assert_eq!(v["groups"][0]["summaries"]["priority"], 5);
    assert_eq!(v["groups"][1]["key"], "done");
}

#[test]
fn a_block_runs_with_its_note_as_this() {
    let (_, v) = call(json!({"base": "Hub"}));
    assert_eq!(v["rows"], json!([["Linker"]]));
    assert!(error(json!({"base": "Hub", "block": 2})).contains("1 to 1"));
    assert!(error(json!({"base": "Projects/Weft"})).contains("no ```base block"));
}

#[test]
fn a_query_is_a_filter_expression_with_columns_sort_and_pages() {
    let (text, v) = call(json!({
        "filter": "file.hasTag(\"project\") && priority >= 2",
        "columns": ["file.name", "priority"],
        "sort": "-priority",
        "limit": 1
    }));
    assert_eq!(v["rows"], json!([["Weft", 3]]));
    assert_eq!(v["total"], 2);
    let cursor = v["next_cursor"].as_str().expect("a next page").to_string();
    assert!(text.contains("Showing 1–1 of 2."), "{text}");
    let (_, v) = call(json!({
        "filter": "file.hasTag(\"project\") && priority >= 2",
        "columns": ["file.name", "priority"],
        "sort": "-priority",
        "limit": 1,
        "cursor": cursor
    }));
    assert_eq!(v["rows"], json!([["Shuttle", 2]]));
}

#[test]
fn mistakes_are_named() {
    assert!(error(json!({"filter": "status =="})).contains("ends"));
    let e = error(json!({"filter": "frobnicate(status)"}));
    assert!(e.contains("unknown function `frobnicate`"), "{e}");
    assert!(error(json!({"base": "Projects.base", "view": "Nope"})).contains("Active, By status"));
    assert!(error(json!({"base": "Missing.base"})).contains("No base"));
    assert!(error(json!({"base": "Projects.base", "filter": "x"})).contains("own view"));
    // A method a value lacks: the rows are named, not silently dropped.
    let (text, v) = call(json!({"filter": "status.frob()"}));
    assert!(v["error_count"].as_u64().unwrap_or(0) >= 4, "{v:#}");
    assert!(text.contains("could not be computed"), "{text}");
}
