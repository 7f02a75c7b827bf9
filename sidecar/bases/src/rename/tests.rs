use super::*;

/// The base with `old` renamed `new`.
fn renamed(yaml: &str, old: &str, new: &str) -> String {
    let edits = rename_in_base(yaml, old, new).unwrap_or_else(|e| panic!("{e}"));
    apply(yaml, &edits)
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = text.to_string();
    for e in edits.iter().rev() {
        out.replace_range(e.range.clone(), &e.new_text);
    }
    out
}

/// The shapes of a products base: plain expressions, `properties:`
/// keys, `order`, `sort` and `columnSize`; `formula.*` and `file.*` are
/// no properties, nor a property whose name only starts the same.
#[test]
fn a_products_base_renames_every_place_and_nothing_else() {
    let yaml = "\
filters:
  and:
    - note.categories.contains(link(\"Products\"))
    - '!file.name.contains(\"Template\")'
formulas:
  Owned: ((now() - acquired).months).round()
  totalUses: monthlyUses * formula.Owned.round()
  acquiredAt: acquiredAt + 1 # a comment stays
properties:
  note.acquired:
    displayName: Acquired
  formula.Owned:
    displayName: Months
  file.name:
    displayName: Product
views:
  - type: table
    name: Products
    order:
      - file.name
      - acquired
      - formula.Owned
    sort:
      - property: acquired
        direction: DESC
      - column: note.acquired
        direction: ASC
    groupBy:
      property: note.acquired
      direction: ASC
    summaries:
      acquired: Earliest
    columnSize:
      file.name: 209
      note.acquired: 112
";
    let expected = "\
filters:
  and:
    - note.categories.contains(link(\"Products\"))
    - '!file.name.contains(\"Template\")'
formulas:
  Owned: ((now() - bought).months).round()
  totalUses: monthlyUses * formula.Owned.round()
  acquiredAt: acquiredAt + 1 # a comment stays
properties:
  note.bought:
    displayName: Acquired
  formula.Owned:
    displayName: Months
  file.name:
    displayName: Product
views:
  - type: table
    name: Products
    order:
      - file.name
      - bought
      - formula.Owned
    sort:
      - property: bought
        direction: DESC
      - column: note.bought
        direction: ASC
    groupBy:
      property: note.bought
      direction: ASC
    summaries:
      bought: Earliest
    columnSize:
      file.name: 209
      note.bought: 112
";
    assert_eq!(renamed(yaml, "Acquired", "bought"), expected);
}

/// Single and double quotes, flow collections, nested `and`/`or`/`not`,
/// `note["x"]`, `this.x`, keys that differ in case; a list lambda's
/// `value` is no property, but `status` inside it is.
#[test]
fn quoting_styles_nesting_and_the_forms_of_a_reference() {
    let yaml = r#"filters:
  or:
    - 'status == "done"'
    - and: ["Status != 'x'", { not: [ 'note["status"] == this.status' ] }]
    - not:
        - or:
            - "this.note.status.contains(\"a\")"
formulas:
  left: 'tags.filter(value == status).map(value.length)'
  value: 'value + status'
summaries:
  doneCount: 'values.filter(value == "done").length'
views:
  - type: cards
    name: Library
    order: [cover, "note.status", 'status']
    image: note.status
    markerColor: status
"#;
    let expected = r#"filters:
  or:
    - 'state == "done"'
    - and: ["state != 'x'", { not: [ 'note["state"] == this.state' ] }]
    - not:
        - or:
            - "this.note.state.contains(\"a\")"
formulas:
  left: 'tags.filter(value == state).map(value.length)'
  value: 'value + state'
summaries:
  doneCount: 'values.filter(value == "done").length'
views:
  - type: cards
    name: Library
    order: [cover, "note.state", 'state']
    image: note.state
    markerColor: state
"#;
    assert_eq!(renamed(yaml, "status", "state"), expected);
}

/// A name that is no identifier is written `note["…"]` in expressions
/// (`.x` becomes `["…"]`), as it is in columns; quotes and `'` are escaped
/// as each style escapes them.
#[test]
fn a_name_with_a_space_is_written_note_bracket_in_expressions() {
    let yaml = r#"filters: 'status != "done" && note.status != "x" && note["status"] != ""'
formulas:
  f: "if(status, this.status, \"-\")"
views:
  - type: table
    order: [note.status, file.name]
    sort:
      - property: status
"#;
    let expected = r#"filters: 'note["it''s state"] != "done" && note["it''s state"] != "x" && note["it''s state"] != ""'
formulas:
  f: "if(note[\"it's state\"], this[\"it's state\"], \"-\")"
views:
  - type: table
    order: [note.it's state, file.name]
    sort:
      - property: it's state
"#;
    let after = renamed(yaml, "status", "it's state");
    assert_eq!(after, expected);
    let base = Base::parse(&after).expect("the renamed base reads");
    assert_eq!(base.views[0].order[0], "note.it's state");
}

/// A name that is no valid expression name as a bare reference (a
/// function, a bound name) stays a property: `note["…"]`.
#[test]
fn a_bare_name_that_would_mean_something_else_is_written_note_bracket() {
    assert_eq!(
        renamed("filters: status > 1\n", "status", "date"),
        "filters: note[\"date\"] > 1\n"
    );
    assert_eq!(
        renamed("filters: note.status > 1\n", "status", "value"),
        "filters: note.value > 1\n"
    );
    assert_eq!(
        renamed("filters: note.status > 1\n", "status", "file"),
        "filters: note[\"file\"] > 1\n"
    );
}

/// `this.note.x` keeps its `this.note`; an escape in double quotes maps
/// to the bytes it reads.
#[test]
fn this_note_and_escapes() {
    assert_eq!(
        renamed("filters: this.note.status == 1\n", "status", "my state"),
        "filters: this.note[\"my state\"] == 1\n"
    );
    assert_eq!(
        renamed(
            "filters: \"note[\\\"st\\u0061tus\\\"] == \\\"\\u00e9\\\"\"\n",
            "status",
            "état"
        ),
        "filters: \"note[\\\"état\\\"] == \\\"\\u00e9\\\"\"\n"
    );
}

/// A plain scalar that would no longer read as written is quoted whole.
#[test]
fn a_plain_scalar_that_cannot_hold_the_new_name_is_quoted() {
    assert_eq!(
        renamed("views:\n  - order: [status, file.name]\n", "status", "a, b"),
        "views:\n  - order: ['a, b', file.name]\n"
    );
    assert_eq!(
        renamed("filters: status == 1\n", "status", "x: y"),
        "filters: 'note[\"x: y\"] == 1'\n"
    );
}

/// Literal blocks and multi-line plain scalars map back to their bytes.
#[test]
fn block_scalars_and_folded_lines() {
    let yaml = "formulas:\n  a: |\n    if(status,\n       status + 1)\n  b: status &&\n    status > 2\n  c: |- # note\n\n      status\n\n  d: >\n    status\n";
    assert_eq!(
        renamed(yaml, "status", "state"),
        "formulas:\n  a: |\n    if(state,\n       state + 1)\n  b: state &&\n    state > 2\n  c: |- # note\n\n      state\n\n  d: >\n    state\n"
    );
}

/// What cannot be edited safely is refused, naming the place; a base
/// that does not mention the key is left alone whatever it holds.
#[test]
fn what_cannot_be_renamed_safely_is_refused_with_its_place() {
    let folded = "formulas:\n  a: >\n    status\n    + 1\n";
    let e = rename_in_base(folded, "status", "state").unwrap_err();
    assert_eq!(e.at, "formulas.a");
    assert!(e.message.contains("by hand"), "{e}");

    let broken = "filters: 'status == (1'\n";
    let e = rename_in_base(broken, "status", "state").unwrap_err();
    assert_eq!(e.at, "filters");

    let alias = "formulas:\n  a: &x status\nviews:\n  - order: [*x]\n";
    let e = rename_in_base(alias, "status", "state").unwrap_err();
    assert_eq!(e.at, "formulas.a");

    let both = "properties:\n  note.status: {displayName: S}\n  note.state: {displayName: T}\n";
    let e = rename_in_base(both, "status", "state").unwrap_err();
    assert_eq!(e.at, "properties");

    let not_yaml = "filters: [status\n";
    assert!(rename_in_base(not_yaml, "status", "state").is_err());

    assert_eq!(
        rename_in_base("filters: [oops\n", "status", "x"),
        Ok(Vec::new())
    );
}

/// Only the case changes: every place is written anew.
#[test]
fn a_change_of_case_renames_too() {
    assert_eq!(
        renamed(
            "filters: status == 1\nviews:\n  - order: [note.status]\n",
            "status",
            "Status"
        ),
        "filters: Status == 1\nviews:\n  - order: [note.Status]\n"
    );
}

/// The blocks of a note, edited where they stand; an error names the block.
#[test]
fn the_base_blocks_of_a_note() {
    let text = "---\nstatus: x\n---\n# Note\n\n```base\nfilters: status == \"x\"\n```\n\ntext status\n\n```base\nviews:\n  - order: [status]\n```\n";
    let edits = rename_in_blocks(text, "status", "state").expect("renamed");
    assert_eq!(
        apply(text, &edits),
        "---\nstatus: x\n---\n# Note\n\n```base\nfilters: state == \"x\"\n```\n\ntext status\n\n```base\nviews:\n  - order: [state]\n```\n"
    );
    let broken =
        "```base\nfilters: ok\n```\n\n```base\nformulas:\n  a: >\n    status\n    + 1\n```\n";
    let e = rename_in_blocks(broken, "status", "state").unwrap_err();
    assert_eq!(e.at, "```base block 2, formulas.a");
}
