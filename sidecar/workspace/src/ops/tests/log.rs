//! The write log (history's seam): what each operation wrote, once.

use std::sync::Mutex;

use super::TestVault;
use crate::ops::{DeleteNote, EditNote, LinkPolicy, MoveNote, WriteLog, WriteOptions, Written};
use weft_vault::edit::EditOp;

/// (actor, tool, path, what was written) per call.
type Entry = (String, String, String, Vec<Written>);

#[derive(Default)]
struct Recorder(Mutex<Vec<Entry>>);

impl WriteLog for Recorder {
    fn record(&self, actor: &str, tool: &str, path: &str, written: &[Written]) {
        self.0.lock().expect("lock").push((
            actor.to_string(),
            tool.to_string(),
            path.to_string(),
            written.to_vec(),
        ));
    }
}

fn write(path: &str, bytes: &str) -> Written {
    Written::Write {
        path: path.into(),
        bytes: bytes.as_bytes().to_vec(),
    }
}

#[test]
fn every_operation_logs_what_it_wrote_once() {
    let v = TestVault::new(&[
        ("f/a.md", "[[./b]]\n"),
        ("f/b.md", "b\n"),
        ("c.md", "[[a]] [[f/b]]\n"),
    ]);
    let log = Recorder::default();
    let ops = v.ops().with_log(&log);
    ops.edit_note(&EditNote {
        path: "c".into(),
        ops: vec![EditOp::Append {
            content: "more".into(),
        }],
        options: WriteOptions::default(),
    })
    .expect("edits");
    // A dry run and a no-op log nothing.
    ops.edit_note(&EditNote {
        path: "c".into(),
        ops: vec![EditOp::Append {
            content: "x".into(),
        }],
        options: WriteOptions {
            expected_sha256: None,
            dry_run: true,
        },
    })
    .expect("dry run");
    ops.move_note(&MoveNote {
        path: "f/".into(),
        new_path: "g".into(),
        update_links: true,
        options: WriteOptions::default(),
    })
    .expect("moves");
    ops.delete_note(&DeleteNote {
        path: "g/b".into(),
        link_policy: LinkPolicy::MarkDeleted,
        options: WriteOptions::default(),
    })
    .expect("deletes");

    let entries = log.0.lock().expect("lock").clone();
    let summary: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|(a, t, p, _)| (a.as_str(), t.as_str(), p.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            ("test", "edit_note", "c.md"),
            ("test", "move_note", "f"),
            ("test", "delete_note", "g/b.md"),
        ]
    );
    assert_eq!(entries[0].3, [write("c.md", "[[a]] [[f/b]]\nmore\n")]);
    assert_eq!(
        entries[1].3,
        [
            write("c.md", "[[a]] [[g/b]]\nmore\n"),
            Written::Move {
                from: "f/a.md".into(),
                to: "g/a.md".into(),
                bytes: b"[[./b]]\n".to_vec(),
            },
            Written::Move {
                from: "f/b.md".into(),
                to: "g/b.md".into(),
                bytes: b"b\n".to_vec(),
            },
        ]
    );
    assert_eq!(
        entries[2].3,
        [
            write("c.md", "[[a]] [[b (deleted)]]\nmore\n"),
            write("g/a.md", "[[b (deleted)]]\n"),
            Written::Delete {
                path: "g/b.md".into()
            },
        ]
    );
}
