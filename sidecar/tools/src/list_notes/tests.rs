use expect_test::{Expect, expect};

use super::{ListSort, Listing, NoFolder, Query, Row, Shape, View, compute};
use crate::testing::{access, file_times, path, vault};
use weft_search::clock::Zone;
use weft_vault::VaultIndex;
use weft_vault::filter::{Filter, Folder, TimeRange};

const VAULT: &str = r#"
//- /Home.md @500
# Home
#start
//- /Projects.md @400
# Projects
//- /Projects/Weft.md @300
# Weft
#project
//- /Projects/Weft/Design.md @700
# Design
#project/design #Project
//- /Projects/Old/Legacy.md @100
# Legacy
#project
//- /Journal/2024-01-01.md @200
# Day
//- /private/Secret.md @900
# Secret
#project
"#;

fn query(folder: &str, shape: Shape) -> Query {
    Query {
        folder: Folder::new(folder).unwrap(),
        wanted: Filter::All,
        sort: ListSort::Alpha,
        shape,
        offset: 0,
        limit: 50,
    }
}

const LIST: Shape = Shape::List { depth: 0 };
const ALL: Shape = Shape::List { depth: u32::MAX };

/// The answer with ids shown as paths.
fn dump(index: &VaultIndex, answer: &Result<Listing, NoFolder>) -> String {
    let listing = match answer {
        Ok(listing) => listing,
        Err(NoFolder { close }) => return format!("no folder; close {close:?}\n"),
    };
    let time = |t: Option<i64>| t.map(|t| format!(" @{t}")).unwrap_or_default();
    let mut out = String::new();
    if let Some(here) = &listing.here {
        out.push_str(&format!(
            "here {}{}\n",
            path(index, here.note),
            time(here.modified)
        ));
    }
    match &listing.view {
        View::List {
            folders,
            total,
            page,
        } => {
            for (folder, n) in folders {
                out.push_str(&format!("folder {folder} ({n})\n"));
            }
            out.push_str(&format!("total {total}\n"));
            for item in page {
                out.push_str(&format!(
                    "note {}{}\n",
                    path(index, item.note),
                    time(item.modified)
                ));
            }
        }
        View::Tree { total, rows, more } => {
            out.push_str(&format!("total {total}, {more} more\n"));
            for row in rows {
                let (line, depth) = match row {
                    Row::Folder { path, depth, notes } => (format!("{path}/ ({notes})"), depth),
                    Row::Note { note, depth } => (path(index, *note).to_string(), depth),
                };
                out.push_str(&format!("{}{line}\n", "  ".repeat(*depth as usize)));
            }
        }
    }
    out
}

fn check(deny: &[&str], query: &Query, expect: Expect) {
    let index = vault(VAULT);
    let times = file_times(VAULT);
    let answer = compute(&index, &access(deny), &times, query);
    expect.assert_eq(&dump(&index, &answer));
}

#[test]
fn the_root_lists_its_folders_and_the_notes_at_its_level() {
    check(
        &["private/"],
        &query("", LIST),
        expect![[r#"
            folder Journal (1)
            folder Projects (3)
            total 2
            note Home @500
            note Projects @400
        "#]],
    );
}

#[test]
fn a_folder_that_is_also_a_note_lists_it_apart_and_counts_every_note_below() {
    check(
        &[],
        &query("/projects/", LIST),
        expect![[r#"
        here Projects @400
        folder Projects/Old (1)
        folder Projects/Weft (1)
        total 1
        note Projects/Weft @300
    "#]],
    );
}

#[test]
fn tags_and_time_qualify_notes_below_newest_first_and_pages_follow_the_order() {
    let mut q = query("", ALL);
    q.wanted = Filter::all_of(vec![
        Filter::Tag("project".into()),
        Filter::Modified(TimeRange {
            from: Some(150),
            to: None,
        }),
    ]);
    q.sort = ListSort::Modified;
    q.offset = 1;
    q.limit = 2;
    check(
        &[],
        &q,
        expect![[r#"
        folder Journal (1)
        folder Projects (3)
        folder private (1)
        total 3
        note Projects/Weft/Design @700
        note Projects/Weft @300
    "#]],
    );
}

#[test]
fn a_depth_limits_the_notes_but_not_the_folder_counts() {
    let mut q = query("", Shape::List { depth: 1 });
    q.sort = ListSort::Created;
    check(
        &["private/"],
        &q,
        expect![[r#"
        folder Journal (1)
        folder Projects (3)
        total 4
        note Home @500
        note Projects @400
        note Projects/Weft @300
        note Journal/2024-01-01 @200
    "#]],
    );
}

#[test]
fn a_tree_shows_its_levels_and_counts_what_the_limit_leaves_out() {
    let mut q = query("", Shape::Tree { depth: 2 });
    q.limit = 6;
    check(
        &["private/"],
        &q,
        expect![[r#"
        total 6, 2 more
        Home
        Journal/ (1)
          Journal/2024-01-01
        Projects
        Projects/ (3)
          Projects/Old/ (1)
    "#]],
    );
}

#[test]
fn a_folder_with_no_visible_note_names_the_closest() {
    check(
        &[],
        &query("Project", LIST),
        expect![[r#"
        no folder; close ["projects", "projects/old", "projects/weft"]
    "#]],
    );
    check(
        &["private/"],
        &query("private", LIST),
        expect![[r#"
        no folder; close []
    "#]],
    );
}

/// The words of a listing: the note here with its time, folders, notes
/// with their times and tags, the page line.
#[test]
fn the_listing_in_words() {
    let index = vault(VAULT);
    let times = file_times(VAULT);
    let mut q = query("Projects", ALL);
    q.limit = 2;
    let listing = compute(&index, &access(&[]), &times, &q).unwrap();
    let out = super::render::out(&index, Zone::UTC, "Projects", listing, Some("c".into()));
    expect![[r#"
        Browsing `Projects/`

        Note at this path: **Projects** (`Projects`) — modified 1970-01-01T00:06:40+00:00

        Folders:
        - `Projects/Old/` (1 note)
        - `Projects/Weft/` (1 note)

        Notes here and below (3):
        - **Legacy** (`Projects/Old/Legacy`) — 1970-01-01T00:01:40+00:00 #project
        - **Weft** (`Projects/Weft`) — 1970-01-01T00:05:00+00:00 #project

        Showing 1–2 of 3. Next page: same arguments with `cursor: "c"`."#]]
    .assert_eq(&super::render::markdown(&out, 0, true));
}
