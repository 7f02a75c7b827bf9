//! `update_frontmatter`: set, unset, merge and rename properties, the
//! title, and tags and aliases (replaced, or added/removed idempotently,
//! removals first), keeping the rest of the frontmatter as written; the tag
//! policy and per-tag rules apply. One note (`path`), several (`paths`) or
//! every note a query of filters selects (`where`), all or nothing; keys
//! renamed, and tags (`#tag`) wherever they are written.
//!
//! An adapter over `ops::Ops::update_frontmatter`, `update_many` and
//! `rename_tags`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::args::lenient;
use super::format::{Reply, ToolError, ToolResult, code_list};
use super::scope::{seen_passing, selected};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, changes_text, lenient_object, notify, one_change_text, op_error, options,
    shown, vault_input, warning_texts, warnings_text,
};
use weft_vault::filter::{Filter, Test};
use weft_workspace::ops::{
    FrontmatterChange, FrontmatterReport, ManyReport, RenameTags, UpdateFrontmatter, UpdateMany,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateFrontmatterArgs {
    /// Path, title or alias.
    #[serde(default, alias = "note", alias = "name", alias = "file")]
    pub path: Option<String>,
    #[serde(default, alias = "notes", deserialize_with = "lenient::strings")]
    pub paths: Option<Vec<String>>,
    /// Filters: tag:x folder:x key:value, AND/OR/-.
    #[serde(default, rename = "where", alias = "filter")]
    pub selection: Option<String>,
    #[serde(
        default,
        alias = "frontmatter",
        alias = "properties",
        deserialize_with = "lenient_object"
    )]
    pub set: Option<Map<String, Value>>,
    #[serde(default, alias = "remove", deserialize_with = "lenient::strings")]
    pub unset: Option<Vec<String>>,
    /// Merged key by key.
    #[serde(default, deserialize_with = "lenient_object")]
    pub merge: Option<Map<String, Value>>,
    /// {key: new_key} or {#tag: new_tag} (inline too); alone: everywhere.
    #[serde(default, deserialize_with = "lenient_object")]
    pub rename: Option<Map<String, Value>>,
    /// "" removes it.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub add_tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub remove_tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub aliases: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub add_aliases: Option<Vec<String>>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub remove_aliases: Option<Vec<String>>,
    #[serde(default, alias = "sha256")]
    pub expected_sha256: Option<String>,
    #[serde(default, deserialize_with = "lenient::bool")]
    pub dry_run: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct UpdateFrontmatterOut {
    /// One note: its path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// False when nothing needed changing (adding a tag it has).
    pub changed: bool,
    pub dry_run: bool,
    /// One note: its change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeOut>,
    /// One note: its frontmatter after the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<Map<String, Value>>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub warnings: Vec<String>,
    /// Several notes: each note that changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<ChangeOut>>,
    /// Several notes: those already as asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<Vec<String>>,
}

/// Change lines listed in a batch's answer; the rest are counted.
const LISTED_CHANGES: usize = 50;

pub fn run(state: &ToolState, actor: &str, args: UpdateFrontmatterArgs) -> ToolResult {
    let renames = match &args.rename {
        Some(map) => pairs(map)?,
        None => Vec::new(),
    };
    let (tags, keys): (Vec<_>, Vec<_>) = renames
        .into_iter()
        .partition(|(old, _)| old.trim_start().starts_with('#'));
    if !tags.is_empty() {
        return rename_tags(state, actor, tags, keys.is_empty(), &args);
    }
    let batch = args.paths.is_some() || args.selection.is_some();
    if args.path.is_some() {
        if batch {
            return Err(ToolError::new(
                "give `path` for one note, or `paths` or `where` for several; not both",
            ));
        }
        return one(state, actor, args, keys);
    }
    if args.expected_sha256.is_some() {
        return Err(ToolError::new(
            "`expected_sha256` is one note's; a change to several notes checks each note \
             against the text it read",
        ));
    }
    let change = change_of(&args, keys);
    let (notes, label) = match (&args.paths, &args.selection) {
        (Some(_), Some(_)) => {
            return Err(ToolError::new("give `paths` or `where`, not both"));
        }
        (Some(paths), None) => (
            paths.iter().map(|p| vault_input(state, p)).collect(),
            format!("{} notes", paths.len()),
        ),
        (None, Some(query)) => (
            selected(state, &state.index(), query)?,
            format!("where {query}"),
        ),
        (None, None) if !change.rename.is_empty() && only_renames(&change) => {
            // Every note the agent sees with one of the keys.
            let having = change
                .rename
                .iter()
                .map(|(old, _)| Filter::Property(old.as_str().into(), Test::Exists))
                .collect();
            let notes = seen_passing(state, &state.index(), Filter::any_of(having));
            let keys: Vec<&str> = change.rename.iter().map(|(old, _)| old.as_str()).collect();
            (notes, format!("rename {}", keys.join(", ")))
        }
        (None, None) => {
            return Err(ToolError::new(
                "name the notes: `path` (one), `paths` (several) or `where` (tag:x folder:x key:value)",
            ));
        }
    };
    let request = UpdateMany {
        notes,
        change,
        label,
        // A rename across the vault takes its declared type and the bases
        // that name the key along.
        declared_too: !batch,
        dry_run: args.dry_run.unwrap_or(false),
    };
    let report = state
        .ops(actor)?
        .update_many(&request)
        .map_err(|e| op_error(state, "update_frontmatter", e))?;
    Ok(render_many(state, &report))
}

/// One note's change.
fn one(
    state: &ToolState,
    actor: &str,
    args: UpdateFrontmatterArgs,
    keys: Vec<(String, String)>,
) -> ToolResult {
    // The answer names the tags and aliases when the call changed them.
    let names_asked = args.tags.is_some()
        || args.aliases.is_some()
        || [
            &args.add_tags,
            &args.remove_tags,
            &args.add_aliases,
            &args.remove_aliases,
        ]
        .iter()
        .any(|list| list.as_ref().is_some_and(|l| !l.is_empty()));
    let request = UpdateFrontmatter {
        path: vault_input(state, args.path.as_deref().unwrap_or_default()),
        change: change_of(&args, keys),
        options: options(args.expected_sha256, args.dry_run),
    };
    let report = state
        .ops(actor)?
        .update_frontmatter(&request)
        .map_err(|e| op_error(state, "update_frontmatter", e))?;
    if report.changed && !report.dry_run {
        notify(state, std::slice::from_ref(&report.change));
    }
    Ok(render(&report, names_asked))
}

/// Tags renamed wherever they are written, in every note or in those the
/// call names.
fn rename_tags(
    state: &ToolState,
    actor: &str,
    renames: Vec<(String, String)>,
    alone: bool,
    args: &UpdateFrontmatterArgs,
) -> ToolResult {
    if !alone
        || change_of(args, Vec::new()) != FrontmatterChange::default()
        || args.expected_sha256.is_some()
    {
        return Err(ToolError::new(
            "renaming a `#tag` rewrites it in the text as well as in frontmatter: give tag \
             renames alone (with `dry_run`, and `path`, `paths` or `where` to narrow them)",
        ));
    }
    let within = match (&args.path, &args.paths, &args.selection) {
        (None, None, None) => None,
        (Some(one), None, None) => Some(vec![one.clone()]),
        (None, Some(paths), None) => Some(paths.clone()),
        (None, None, Some(query)) => Some(selected(state, &state.index(), query)?),
        _ => {
            return Err(ToolError::new("give one of `path`, `paths` and `where`"));
        }
    };
    let request = RenameTags {
        renames,
        within: within.map(|notes| notes.iter().map(|n| vault_input(state, n)).collect()),
        dry_run: args.dry_run.unwrap_or(false),
    };
    let report = state
        .ops(actor)?
        .rename_tags(&request)
        .map_err(|e| op_error(state, "update_frontmatter", e))?;
    Ok(render_many(state, &report))
}

/// The change the arguments ask for, with these key renames.
fn change_of(args: &UpdateFrontmatterArgs, rename: Vec<(String, String)>) -> FrontmatterChange {
    FrontmatterChange {
        rename,
        set: args.set.clone().unwrap_or_default(),
        unset: args.unset.clone().unwrap_or_default(),
        merge: args.merge.clone().unwrap_or_default(),
        title: args.title.clone(),
        tags: args.tags.clone(),
        add_tags: args.add_tags.clone().unwrap_or_default(),
        remove_tags: args.remove_tags.clone().unwrap_or_default(),
        aliases: args.aliases.clone(),
        add_aliases: args.add_aliases.clone().unwrap_or_default(),
        remove_aliases: args.remove_aliases.clone().unwrap_or_default(),
    }
}

/// Whether a change only renames keys.
fn only_renames(change: &FrontmatterChange) -> bool {
    FrontmatterChange {
        rename: Vec::new(),
        ..change.clone()
    } == FrontmatterChange::default()
}

/// `{old: new}` as pairs; every new name a string.
fn pairs(map: &Map<String, Value>) -> Result<Vec<(String, String)>, ToolError> {
    map.iter()
        .map(|(old, new)| match new {
            Value::String(new) => Ok((old.clone(), new.clone())),
            other => Err(ToolError::new(format!(
                "`rename` maps each old name to its new name as a string; `{old}` maps to {other}"
            ))),
        })
        .collect()
}

/// The report as the structured answer and its Markdown, naming the tags
/// and aliases when the call asked to change them.
fn render(report: &FrontmatterReport, names_asked: bool) -> Reply {
    let mut changes = Changes::new();
    let change = changes.out(&report.change);
    let path = shown(&report.change.path);
    let mut text = one_change_text(
        &change,
        report.changed,
        changes.omitted,
        report.dry_run,
        &format!("`{path}` already has this frontmatter; nothing changed"),
    );
    if names_asked {
        text.push_str(&format!(
            "Tags: {}. Aliases: {}.\n",
            names(&report.tags),
            names(&report.aliases)
        ));
    }
    let warnings = warning_texts(&report.warnings);
    text.push_str(&warnings_text(&warnings));
    let out = UpdateFrontmatterOut {
        path: Some(path),
        changed: report.changed,
        dry_run: report.dry_run,
        change: Some(change),
        frontmatter: Some(report.frontmatter.clone()),
        tags: report.tags.clone(),
        aliases: report.aliases.clone(),
        warnings,
        changes: None,
        unchanged: None,
    };
    Reply::new(text.trim_end().to_string(), &out)
}

fn names(list: &[String]) -> String {
    if list.is_empty() {
        "none".to_string()
    } else {
        code_list(list)
    }
}

/// A change to many notes: how many change, the first ones' lines (and,
/// in a dry run, their diffs within the budget), what each noticed.
fn render_many(state: &ToolState, report: &ManyReport) -> Reply {
    if !report.dry_run {
        notify(state, &report.changes);
    }
    let mut budget = Changes::new();
    let changes = budget.all(&report.changes);
    let unchanged: Vec<String> = report.unchanged.iter().map(|p| shown(p)).collect();
    let mut text = format!(
        "{} {} file(s){}.\n",
        if report.dry_run {
            "Would change"
        } else {
            "Changed"
        },
        changes.len(),
        match unchanged.len() {
            0 => String::new(),
            n => format!("; {n} already as asked"),
        }
    );
    if changes.is_empty() && unchanged.is_empty() {
        text = "No note matches; nothing changed.\n".to_string();
    }
    let listed = &changes[..changes.len().min(LISTED_CHANGES)];
    text.push_str(&changes_text(listed, budget.omitted, report.dry_run));
    if changes.len() > listed.len() {
        text.push_str(&format!(
            "… and {} more; `changes` lists them all.\n",
            changes.len() - listed.len()
        ));
    }
    let warnings: Vec<String> = report
        .warnings
        .iter()
        .map(|(path, w)| {
            let said = warning_texts(std::slice::from_ref(w)).remove(0);
            if path.is_empty() {
                said
            } else {
                format!("`{}`: {said}", shown(path))
            }
        })
        .collect();
    text.push_str(&warnings_text(&warnings));
    let out = UpdateFrontmatterOut {
        path: None,
        changed: !changes.is_empty(),
        dry_run: report.dry_run,
        change: None,
        frontmatter: None,
        tags: Vec::new(),
        aliases: Vec::new(),
        warnings,
        changes: Some(changes),
        unchanged: Some(unchanged),
    };
    Reply::new(text.trim_end().to_string(), &out)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};
    use serde_json::json;

    use super::*;
    use crate::testing::Disk;

    const VAULT: &str = "//- /Plan.md\n---\n# kept comment\nstatus: 'draft'\ntags: [plan, work]\nmeta: {owner: ana}\n---\n# Plan\n";

    /// Updates `Plan` with `args` on the fixture: the answer, then the file.
    fn update(mut args: serde_json::Value, expect: Expect) {
        let disk = Disk::new(VAULT);
        args["path"] = json!("Plan");
        expect.assert_eq(&disk.call(|s, a| run(s, "test", a), args, &["Plan.md"]));
    }

    #[test]
    fn set_and_tags_keep_the_rest_as_written() {
        update(
            json!({"set": {"status": "done"}, "add_tags": ["done"], "remove_tags": ["work"]}),
            expect![[r#"
                Changed `Plan`: 84 → 81 bytes, sha256 `<hex>`
                Tags: `plan`, `done`. Aliases: none.
                --- Plan.md
                ---
                # kept comment
                status: done
                tags: [plan, done]
                meta: {owner: ana}
                ---
                # Plan
            "#]],
        );
    }

    #[test]
    fn merge_goes_into_objects_key_by_key() {
        update(
            json!({"merge": {"meta": {"due": "2026-12-01"}}}),
            expect![[r#"
            Changed `Plan`: 84 → 102 bytes, sha256 `<hex>`
            --- Plan.md
            ---
            # kept comment
            status: 'draft'
            tags: [plan, work]
            meta:
              due: 2026-12-01
              owner: ana
            ---
            # Plan
        "#]],
        );
        update(
            json!({"merge": {"meta": 3}}),
            expect![[r#"
                Error: the value to merge into `meta` must be an object of properties: only objects merge key by key
                Use set to replace a value.
                --- Plan.md
                ---
                # kept comment
                status: 'draft'
                tags: [plan, work]
                meta: {owner: ana}
                ---
                # Plan
            "#]],
        );
        update(
            json!({"merge": {"status": {"x": 1}}}),
            expect![[r#"
            Error: `Plan.md`: cannot merge into `status`: its value is not a mapping
            Use set to replace the value.
            --- Plan.md
            ---
            # kept comment
            status: 'draft'
            tags: [plan, work]
            meta: {owner: ana}
            ---
            # Plan
        "#]],
        );
    }

    /// The issue's case: a tag replaced in a block list stays in its place,
    /// in the list as written.
    #[test]
    fn a_tag_replaced_in_a_block_list_takes_its_place() {
        let disk =
            Disk::new("//- /Project.md\n---\ntags:\n  - project/alpha\n  - checklist\n---\n");
        let args = serde_json::from_value(json!({
            "path": "Project",
            "remove_tags": ["project/alpha"],
            "add_tags": ["project/apollo"]
        }))
        .unwrap();
        run(&disk.state, "test", args).unwrap();
        expect![[r#"
            ---
            tags:
              - project/apollo
              - checklist
            ---
        "#]]
        .assert_eq(&disk.read("Project.md").unwrap());
    }

    #[test]
    fn what_is_already_there_changes_nothing() {
        update(
            json!({"add_tags": ["plan"]}),
            expect![[r#"
            `Plan` already has this frontmatter; nothing changed (sha256 `<hex>`).
            Tags: `plan`, `work`. Aliases: none.
            --- Plan.md
            ---
            # kept comment
            status: 'draft'
            tags: [plan, work]
            meta: {owner: ana}
            ---
            # Plan
        "#]],
        );
    }

    const MANY: &str = "//- /Plan.md\n---\nstatus: draft\ntags: [plan, work]\n---\n# Plan #work/q1\n//- /notes/Idea.md\n---\nStatus: idea\ntags:\n  - work\n---\nText\n//- /notes/Log.md\nNo frontmatter #work\n";

    /// Runs `args` over the fixture of several notes: the answer, then the
    /// files it changed.
    fn batch(args: serde_json::Value, expect: Expect) {
        let disk = Disk::new(MANY);
        let files = ["Plan.md", "notes/Idea.md", "notes/Log.md"];
        let before: Vec<Option<String>> = files.iter().map(|f| disk.read(f)).collect();
        let mut out = disk.call(|s, a| run(s, "test", a), args, &[]);
        for (file, was) in files.iter().zip(before) {
            if let Some(now) = disk.read(file).filter(|now| Some(now) != was.as_ref()) {
                out.push_str(&format!("\n--- {file}\n{now}"));
            }
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn a_property_set_on_every_note_a_query_selects() {
        batch(
            json!({"where": "folder:notes -tag:nothing", "set": {"reviewed": "2026-11-29"}}),
            expect![[r#"
                Changed 2 file(s).
                Changed `notes/Idea`: 41 → 62 bytes, sha256 `<hex>`
                Changed `notes/Log`: 21 → 50 bytes, sha256 `<hex>`
                --- notes/Idea.md
                ---
                Status: idea
                tags:
                  - work
                reviewed: 2026-11-29
                ---
                Text

                --- notes/Log.md
                ---
                reviewed: 2026-11-29
                ---
                No frontmatter #work
            "#]],
        );
        batch(
            json!({"where": "tag:work budget", "set": {"x": 1}}),
            expect![[r#"
                Error: `where` selects notes by tag:, folder:, key:value and dates; `budget` is a word, which only the full text judges.
                Find the notes with search_notes and pass their `paths`, or select them by tags, folders or properties."#]],
        );
    }

    #[test]
    fn a_key_renamed_in_every_note_that_has_it_in_a_dry_run() {
        batch(
            json!({"rename": {"status": "state"}, "dry_run": true}),
            expect![[r#"
                Would change 2 file(s).
                **Dry run: nothing was written.**
                Would change `Plan`: 57 → 56 bytes, sha256 `<hex>`
                Would change `notes/Idea`: 41 → 40 bytes, sha256 `<hex>`

                ```diff
                --- a/Plan.md
                +++ b/Plan.md
                @@ -1,5 +1,5 @@
                 ---
                -status: draft
                +state: draft
                 tags: [plan, work]
                 ---
                 # Plan #work/q1
                ```

                ```diff
                --- a/notes/Idea.md
                +++ b/notes/Idea.md
                @@ -1,5 +1,5 @@
                 ---
                -Status: idea
                +state: idea
                 tags:
                   - work
                 ---
                ```"#]],
        );
    }

    #[test]
    fn a_tag_renamed_wherever_it_is_written() {
        batch(
            json!({"rename": {"#work": "job"}, "paths": ["Plan", "notes/Log"]}),
            expect![[r#"
                Changed 2 file(s).
                Changed `Plan`: 57 → 55 bytes, sha256 `<hex>`
                Changed `notes/Log`: 21 → 20 bytes, sha256 `<hex>`
                --- Plan.md
                ---
                status: draft
                tags: [plan, job]
                ---
                # Plan #job/q1

                --- notes/Log.md
                No frontmatter #job
            "#]],
        );
        batch(
            json!({"rename": {"#work": "job"}, "add_tags": ["x"]}),
            expect![
                "Error: renaming a `#tag` rewrites it in the text as well as in frontmatter: give tag renames alone (with `dry_run`, and `path`, `paths` or `where` to narrow them)"
            ],
        );
    }

    /// A rename across the vault: notes, the declared type, the `.base`
    /// files and ```` ```base ```` blocks that name the key.
    #[test]
    fn a_key_renamed_across_the_vault_takes_its_declared_type_and_its_bases_along() {
        let disk = Disk::new(
            "//- /.obsidian/types.json\n{\"types\": {\"status\": \"text\", \"due\": \"date\"}}\n//- /A.md\n---\nstatus: x\n---\n//- /Tasks.base\nfilters: 'status != \"done\"'\nviews:\n  - type: table\n    order: [file.name, note.status]\n//- /B.md\n```base\nfilters: status\n```\n",
        );
        expect![[r#"
            Changed 4 file(s).
            Changed `.obsidian/types.json`: 45 → 44 bytes, sha256 `<hex>`
            Changed `A`: 18 → 17 bytes, sha256 `<hex>`
            Changed `B`: 28 → 27 bytes, sha256 `<hex>`
            Changed `Tasks.base`: 87 → 85 bytes, sha256 `<hex>`
            --- .obsidian/types.json
            {"types": {"state": "text", "due": "date"}}

            --- A.md
            ---
            state: x
            ---

            --- B.md
            ```base
            filters: state
            ```

            --- Tasks.base
            filters: 'state != "done"'
            views:
              - type: table
                order: [file.name, note.state]
        "#]]
        .assert_eq(&disk.call(
            |s, a| run(s, "test", a),
            json!({"rename": {"status": "state"}}),
            &[".obsidian/types.json", "A.md", "B.md", "Tasks.base"],
        ));
    }

    /// A batch is one version in the vault's history, whatever it touches;
    /// a selection of no note says so and changes nothing.
    #[test]
    fn a_batch_is_one_history_entry_and_an_empty_selection_changes_nothing() {
        let disk = Disk::new(MANY);
        let history = disk.state.history().expect("a history");
        let count = || {
            history
                .log(None, None, 50, None)
                .expect("a log")
                .items
                .len()
        };
        let before = count();
        disk.call(
            |s, a| run(s, "test", a),
            json!({"paths": ["Plan", "notes/Idea", "notes/Log"], "set": {"x": 1}}),
            &[],
        );
        assert_eq!(count(), before + 1);
        expect!["No note matches; nothing changed."].assert_eq(&disk.call(
            |s, a| run(s, "test", a),
            json!({"where": "tag:nothing-like-this", "set": {"x": 2}}),
            &[],
        ));
        assert_eq!(count(), before + 1);
    }
}
