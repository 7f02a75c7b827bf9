use std::time::{Duration, SystemTime};

use expect_test::expect;

use super::answer::EditorStateOut;
use super::render::{markdown, note_out};
use weft_search::clock::Zone;
use weft_workspace::hub::{EditPlace, OpenNote, SectionChange};

fn at(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)
}

/// Open notes as `Buffers::activity` gives them, in words.
fn words(open: Vec<OpenNote>) -> String {
    let out = EditorStateOut {
        notes: open.into_iter().map(|o| note_out(o, Zone::UTC)).collect(),
    };
    markdown(&out)
}

#[test]
fn edited_notes_tell_their_changed_sections_and_last_edit_saved_ones_when_opened() {
    let edited = OpenNote {
        path: "Plan.md".into(),
        title: "Plan *v2*".into(),
        opened: at(60),
        edited: Some(at(3_600)),
        last_edit: Some(EditPlace {
            line: 7,
            section: Some("Plan::Steps".into()),
            text: "Run `cargo test`".into(),
        }),
        unsaved: true,
        changed: vec![
            SectionChange {
                section: None,
                added: 1,
                removed: 0,
            },
            SectionChange {
                section: Some("Plan::Steps".into()),
                added: 2,
                removed: 3,
            },
        ],
    };
    let saved = OpenNote {
        path: "Home.md".into(),
        title: "Home".into(),
        opened: at(120),
        edited: None,
        last_edit: None,
        unsaved: false,
        changed: Vec::new(),
    };
    expect![[r#"
        2 notes open in the editor, most recently edited first:
        1. **Plan *v2*** (`Plan.md`) — unsaved changes in top (+1 −0), Plan::Steps (+2 −3); last edit 1970-01-01T01:00:00+00:00 at line 7 (Plan::Steps): `Run 'cargo test'`
        2. **Home** (`Home.md`) — saved; opened 1970-01-01T00:02:00+00:00
        read_note shows the editor's text, unsaved changes included."#]].assert_eq(&words(vec![edited, saved]));
}

#[test]
fn no_open_note_says_where_weft_sees_them() {
    expect!["No note is open in an editor on this vault (Weft sees the notes open in editors that run its language server, such as Zed)."].assert_eq(&words(Vec::new()));
}
