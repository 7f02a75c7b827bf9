//! `update_frontmatter`: set, unset and merge properties, the title, and
//! tags and aliases (replaced, or added/removed idempotently, removals
//! first), keeping the rest of the frontmatter as written; the tag policy
//! and per-tag rules apply.
//!
//! An adapter over `ops::Ops::update_frontmatter`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::args::lenient;
use super::format::{Reply, ToolResult, code_list};
use super::state::ToolState;
use super::writing::{
    ChangeOut, Changes, lenient_object, notify, one_change_text, op_error, options, shown,
    vault_input, warning_texts, warnings_text,
};
use weft_workspace::ops::{FrontmatterReport, UpdateFrontmatter};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateFrontmatterArgs {
    /// Path, title or alias.
    #[serde(alias = "note", alias = "name", alias = "file")]
    pub path: String,
    /// Keys to set (replacing values).
    #[serde(
        default,
        alias = "frontmatter",
        alias = "properties",
        deserialize_with = "lenient_object"
    )]
    pub set: Option<Map<String, Value>>,
    /// Keys to remove.
    #[serde(default, alias = "remove", deserialize_with = "lenient::strings")]
    pub unset: Option<Vec<String>>,
    /// Objects merged key by key.
    #[serde(default, deserialize_with = "lenient_object")]
    pub merge: Option<Map<String, Value>>,
    /// "" removes it.
    #[serde(default)]
    pub title: Option<String>,
    /// Replaces all tags.
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
    pub path: String,
    /// False when nothing needed changing (adding a tag it has).
    pub changed: bool,
    pub dry_run: bool,
    pub change: ChangeOut,
    /// The frontmatter after the change.
    pub frontmatter: Map<String, Value>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub warnings: Vec<String>,
}

pub fn run(state: &ToolState, actor: &str, args: UpdateFrontmatterArgs) -> ToolResult {
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
    let request = request(state, args);
    let report = state
        .ops(actor)?
        .update_frontmatter(&request)
        .map_err(|e| op_error(state, "update_frontmatter", e))?;
    if report.changed && !report.dry_run {
        notify(state, std::slice::from_ref(&report.change));
    }
    Ok(render(&report, names_asked))
}

/// The arguments as `ops` takes them.
fn request(state: &ToolState, args: UpdateFrontmatterArgs) -> UpdateFrontmatter {
    UpdateFrontmatter {
        path: vault_input(state, &args.path),
        set: args.set.unwrap_or_default(),
        unset: args.unset.unwrap_or_default(),
        merge: args.merge.unwrap_or_default(),
        title: args.title,
        tags: args.tags,
        add_tags: args.add_tags.unwrap_or_default(),
        remove_tags: args.remove_tags.unwrap_or_default(),
        aliases: args.aliases,
        add_aliases: args.add_aliases.unwrap_or_default(),
        remove_aliases: args.remove_aliases.unwrap_or_default(),
        options: options(args.expected_sha256, args.dry_run),
    }
}

/// The report as the structured answer and its Markdown, naming the tags
/// and aliases when the call asked to change them.
fn render(report: &FrontmatterReport, names_asked: bool) -> Reply {
    let mut changes = Changes::new();
    let out = UpdateFrontmatterOut {
        path: shown(&report.change.path),
        changed: report.changed,
        dry_run: report.dry_run,
        change: changes.out(&report.change),
        frontmatter: report.frontmatter.clone(),
        tags: report.tags.clone(),
        aliases: report.aliases.clone(),
        warnings: warning_texts(&report.warnings),
    };
    let mut text = one_change_text(
        &out.change,
        out.changed,
        changes.omitted,
        out.dry_run,
        &format!(
            "`{}` already has this frontmatter; nothing changed",
            out.path
        ),
    );
    if names_asked {
        text.push_str(&format!(
            "Tags: {}. Aliases: {}.\n",
            if out.tags.is_empty() {
                "none".to_string()
            } else {
                code_list(&out.tags)
            },
            if out.aliases.is_empty() {
                "none".to_string()
            } else {
                code_list(&out.aliases)
            }
        ));
    }
    text.push_str(&warnings_text(&out.warnings));
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
}
