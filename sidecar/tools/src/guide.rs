//! The words the server says about itself: the `instructions` of the
//! handshake (the essentials) and the longer usage guide (`vault_info`,
//! `weft://guide`, the `context` prompt).
//!
//! Text only; must not know the vault.

/// Sent in the handshake. Tool descriptions repeat what matters, because
/// many clients ignore instructions.
pub const INSTRUCTIONS: &str = "Weft serves a Markdown vault with [[wikilinks]]. \
Name notes by vault path without .md (projects/weft/ideas), title or alias; an ambiguous name fails with the candidates. \
Find notes with search_notes (words, \"phrases\", tag:, folder:, key:value, -exclude, modified:[now-7d TO now]) or resolve_note; \
read with read_note (view: outline lists the sections; section: \"Parent::Child\"). \
get_links shows backlinks with line context; get_context returns evidence passages for a question. \
Checklist tasks (- [ ] …, due dates, recurrence): list_tasks (due: \"this week\", overdue: true). \
Lists page with limit and the returned cursor. \
Before editing, read the note and pass its sha256 as expected_sha256; use dry_run before destructive changes. \
vault_info has the full guide.";

/// The usage guide.
pub const GUIDE: &str = "\
## Weft usage guide

**Naming notes.** Every `path`/`note` parameter takes a vault path with or without `.md`, a title, an alias or a `[[wikilink]]` target. \
A name several notes share fails with the candidates: pass the path. Paths are shown without `.md`.

**Finding.**
- `search_notes`: full text (BM25). Query syntax: `word`, `\"a phrase\"`, `title:x`, `alias:x`, `body:x`, `tag:x` or `#x` (hierarchical: `tag:a` matches `a/b`), \
`folder:a/b` or `path:a/b` (prefix), `file:x`, any frontmatter key `status:draft` (`status:*` = has the key), \
`AND`, `OR`, `-x` / `NOT x`, `( … )`, dates `modified:[now-7d TO now]`, `created:>=2024-01-01`, `modified:2024-05`. \
Filters (`tags_all`, `tags_any`, `path_prefix`, `backlinks_to`, `links_from`, `frontmatter`, `modified_since`) combine with the query. \
`mode: name` matches titles, aliases and paths (fuzzy); `mode: tag` lists notes with the tags in `query`.
- `resolve_note`: what a name or link target points to, with ranked candidates and why.
- `list_notes`: browse a folder (subfolders with counts, notes); `sort: modified` + `modified_since: 7d` for recent notes; `format: tree`.
- `list_tags`: tags with counts and roll-ups; `facet: keys|values|rels` for frontmatter keys, a key's values, typed-link keys.
- `query_notes`: notes as a table of their properties (Obsidian Bases): a `.base` file and view, or a filter expression with columns.
- `list_tasks`: checklist tasks as the Tasks plugin reads them (emoji `📅 2024-05-01` or Dataview `[due:: 2024-05-01]` fields): \
`status` (default not done), `due`/`scheduled`/`start`/`done`/`happens` (`before today`, `this week`, `none`), `overdue: true`, \
`priority`, `tags`, `text`, `folder`; each task with its path and 1-based line.

**Reading.** `read_note` views: `full` (default), `body`, `metadata` (frontmatter and backlinks with context, no body), \
`outline` (headings as `A::B` section paths, block ids, frontmatter keys), `section` (`section: \"Plan::Next\"`). \
Long notes page: pass `offset` = the `next_offset` you got. Every read reports the note's `sha256`.

**Links.** `get_links` direction `in` (backlinks with line numbers and context; works for a note that does not exist yet), `out`, `both`; \
`depth` for a bounded walk; `format: graph` for nodes and edges; `rel: part_of` for typed links (frontmatter keys whose values are links). \
`related_notes` ranks notes by links, shared tags and similar wording, with the reasons.

**Evidence.** `get_context` answers \"what do my notes say about X\": the best notes for `query` with their best passages and neighbouring \
paragraphs, within `max_chars`; `around: note` adds its link neighbourhood.

**Health.** `check_vault` lists broken and ambiguous links, missing headings and block ids, orphans, duplicate titles/aliases, tag rule \
violations and parse problems, each with a fix.

**Editing (when write tools are offered).** Read first and pass `expected_sha256`; use `dry_run` to preview; sections are addressed as `A::B`; \
a missing or ambiguous heading is an error, never created silently.

**History.** Every change is a version: Weft's tools (author: the client) and edits made outside Weft (source `external`); \
the vault's own git commits are listed too, read only. `note_history` with `path` (a deleted note by its old path) or without \
(`since: today` for the day's changes); `read_note` with `version`; `diff_note` `from`/`to` (`to` defaults to the current text); \
`restore_note` writes a version back as a new version (`dry_run`, `expected_sha256`).

**Paging.** Lists return `total` and a `next_cursor`; call again with the same arguments plus `cursor`.";
