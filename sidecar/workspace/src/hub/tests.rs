//! The registry (one hub per vault, gone when unused) and the buffer rules
//! (unsaved, stale, several sessions).

use std::sync::Arc;
use std::time::Duration;

use super::{Hub, Phase};
use crate::fixture::write_file;
use crate::ops::WriteGuard;

fn vault(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (rel, text) in files {
        write_file(dir.path(), rel, text);
    }
    dir
}

async fn loaded(dir: &tempfile::TempDir) -> Arc<Hub> {
    let hub = Hub::get(dir.path()).expect("hub");
    hub.start();
    let phase = tokio::time::timeout(Duration::from_secs(60), hub.wait_notes())
        .await
        .expect("loaded in time");
    assert_eq!(phase, Phase::FullText);
    // The load's own reconciliation, in the background, would otherwise
    // race with what a test does next.
    tokio::time::timeout(Duration::from_secs(60), hub.wait_reconciled())
        .await
        .expect("reconciled in time");
    hub
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_hub_per_vault_while_someone_holds_it() {
    let dir = vault(&[("a.md", "# A\n")]);
    let hub = loaded(&dir).await;
    let spelled = dir.path().join("sub").join("..");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert!(Arc::ptr_eq(&hub, &Hub::get(&spelled).unwrap()));
    let other = vault(&[]);
    assert!(!Arc::ptr_eq(&hub, &Hub::get(other.path()).unwrap()));
    // Loaded, watching, with full text asked for: still dropped when the
    // last session lets go (background work holds it weakly).
    hub.want_full();
    tokio::time::timeout(Duration::from_secs(60), hub.wait_ready())
        .await
        .expect("ready in time");
    let weak = Arc::downgrade(&hub);
    drop(hub);
    // Background work may hold it a moment (upgraded for one step); the
    // deadline only bounds a failing run on a loaded machine.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while weak.upgrade().is_some() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(weak.upgrade().is_none(), "a hub nobody holds stays alive");
    let fresh = Hub::get(dir.path()).unwrap();
    assert_eq!(fresh.phase(), Phase::Loading);
}

#[test]
fn roots_that_cannot_be_vaults_are_refused() {
    assert!(Hub::get(std::path::Path::new("/")).is_err());
    let dir = vault(&[("a.md", "# A\n")]);
    assert!(Hub::get(&dir.path().join("a.md")).is_err());
    assert!(Hub::get(&dir.path().join("missing")).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn buffers_are_indexed_guarded_and_go_stale() {
    let dir = vault(&[("a.md", "# A\n"), ("b.md", "# B\n"), ("f/c.md", "# C\n")]);
    let hub = loaded(&dir).await;
    let live = hub.live().cloned();
    let live = live.as_deref();
    let (one, two) = (hub.new_session(), hub.new_session());
    let links_to_b = |hub: &Hub| {
        let index = hub.index();
        let b = index.id_of("b.md").unwrap();
        index.backlinks(b).len()
    };
    // The same text as the disk: indexed, not unsaved.
    hub.buffers.set(live, one, "a.md", Arc::new("# A\n".into()));
    assert!(hub.check("a.md", false).is_ok());
    // Typed: in the index for everyone, and guarded.
    let reshaped = hub
        .buffers
        .set(live, one, "a.md", Arc::new("# A\n[[b]]\n".into()));
    assert!(reshaped.links && !reshaped.names);
    assert_eq!(links_to_b(&hub), 1);
    assert!(hub.check("a.md", false).is_err());
    assert!(hub.check("b.md", false).is_ok());
    // A folder move is guarded by the buffers under it.
    hub.buffers
        .set(live, two, "f/c.md", Arc::new("# C typed\n".into()));
    assert!(hub.check("f", true).is_err());
    assert!(hub.check("f", false).is_ok());
    // Two sessions on one note: closing one leaves the other's text.
    hub.buffers
        .set(live, two, "a.md", Arc::new("# A\n[[b]] [[b]]\n".into()));
    assert_eq!(links_to_b(&hub), 2);
    assert!(hub.buffers.close(live, two, "a.md"));
    assert_eq!(links_to_b(&hub), 1);
    // The disk catches up (saved); a write overtakes the buffer: stale,
    // so the disk is what counts and nothing is unsaved.
    std::fs::write(dir.path().join("a.md"), "# A\n[[b]]\n").unwrap();
    assert!(hub.check("a.md", false).is_ok());
    std::fs::write(dir.path().join("a.md"), "# A\nrewritten\n").unwrap();
    live.unwrap().apply_paths([dir.path().join("a.md")]);
    hub.written(&["a.md".to_string()]);
    hub.disk_changed(vec!["a.md".into()], false);
    assert_eq!(links_to_b(&hub), 0);
    assert!(hub.check("a.md", false).is_ok());
    assert_eq!(hub.buffers.text("a.md"), None);
    // The editor sends its text again: it counts again.
    hub.buffers
        .set(live, one, "a.md", Arc::new("# A\n[[b]] again\n".into()));
    assert!(hub.check("a.md", false).is_err());
    // A session that ends takes its buffers along; the disk is back.
    let closed = hub.buffers.close_session(live, one);
    assert_eq!(closed, ["a.md"]);
    assert_eq!(links_to_b(&hub), 0);
    assert!(hub.check("a.md", false).is_ok());
}

/// What the user is working on: open notes, most recently edited first;
/// unsaved changes by section; the last edit's place; hidden paths left
/// out; nothing once the editor closes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activity_lists_open_notes_with_their_unsaved_sections() {
    let plan = "# Plan\nintro\n## Goals\none\n## Risks\nnone\n";
    let dir = vault(&[
        ("plan.md", plan),
        ("b.md", "# B\n"),
        ("private/p.md", "# P\n"),
    ]);
    let hub = loaded(&dir).await;
    let live = hub.live().cloned();
    let live = live.as_deref();
    let session = hub.new_session();
    let shown = |rel: &str| !rel.starts_with("private/");
    assert!(hub.buffers.activity(dir.path(), shown, 10).is_empty());
    hub.buffers
        .set(live, session, "plan.md", Arc::new(plan.into()));
    hub.buffers
        .set(live, session, "b.md", Arc::new("# B\n".into()));
    hub.buffers.set(
        live,
        session,
        "private/p.md",
        Arc::new("# P\nsecret\n".into()),
    );
    std::thread::sleep(Duration::from_millis(5));
    // Typed under Goals and Risks: plan.md is now the most recent.
    let typed = "# Plan\nintro\n## Goals\none\ntwo\n## Risks\n";
    hub.buffers
        .set(live, session, "plan.md", Arc::new(typed.into()));
    let open = hub.buffers.activity(dir.path(), shown, 10);
    let paths: Vec<&str> = open.iter().map(|o| o.path.as_str()).collect();
    assert_eq!(paths, ["plan.md", "b.md"]);
    let plan_open = &open[0];
    assert_eq!(plan_open.title, "Plan");
    assert!(plan_open.unsaved && plan_open.edited.is_some());
    let changed: Vec<(Option<&str>, usize, usize)> = plan_open
        .changed
        .iter()
        .map(|c| (c.section.as_deref(), c.added, c.removed))
        .collect();
    assert_eq!(
        changed,
        [(Some("Plan::Goals"), 1, 0), (Some("Plan::Risks"), 0, 1)]
    );
    let last = plan_open.last_edit.as_ref().expect("a last edit");
    assert_eq!(
        (last.line, last.section.as_deref(), last.text.as_str()),
        (5, Some("Plan::Goals"), "two")
    );
    // b.md is open, unchanged: no edit, nothing unsaved.
    assert!(!open[1].unsaved && open[1].edited.is_none() && open[1].changed.is_empty());
    // The limit keeps the most recent.
    assert_eq!(hub.buffers.activity(dir.path(), shown, 1).len(), 1);
    // Closed: gone.
    hub.buffers.close(live, session, "plan.md");
    let open = hub.buffers.activity(dir.path(), shown, 10);
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].path, "b.md");
}

/// A guard over the hub's that lets the watcher's news of a write arrive
/// at the worst moment: when the guard is told of the write (the watcher
/// runs on its own thread, so it can arrive there).
struct WatcherArrivesFirst<'h>(&'h Hub);

impl WriteGuard for WatcherArrivesFirst<'_> {
    fn check(&self, path: &str, folder: bool) -> Result<(), crate::ops::OpError> {
        self.0.check(path, folder)
    }

    fn written(&self, paths: &[String]) {
        if let Some(live) = self.0.live() {
            live.apply_paths(paths.iter().map(|p| live.root.join(p)));
        }
        self.0.disk_changed(paths.to_vec(), true);
        self.0.written(paths);
    }
}

/// A write over a saved buffer: whenever the watcher's news of it comes,
/// the index ends with the disk's text, never the buffer's older one (the
/// buffer went stale before the index took the write; the watcher's
/// overlay could otherwise land between them).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_over_a_saved_buffer_ends_with_the_disk_in_the_index() {
    let dir = vault(&[("a.md", "# A\n[[b]]\n"), ("b.md", "# B\n")]);
    let hub = loaded(&dir).await;
    let live = hub.live().cloned().expect("loaded");
    let session = hub.new_session();
    hub.buffers.set(
        Some(&live),
        session,
        "a.md",
        Arc::new("# A\n[[b]]\n".into()),
    );
    let guard = WatcherArrivesFirst(&hub);
    crate::ops::Ops::new(&live, "test")
        .with_guard(&guard)
        .write_note(&crate::ops::WriteNote {
            path: Some("a.md".into()),
            content: "# A\nrewritten\n".into(),
            overwrite: true,
            ..crate::ops::WriteNote::default()
        })
        .expect("writes over a saved buffer");
    let index = hub.index();
    let a = index.id_of("a.md").expect("a.md indexed");
    let b = index.id_of("b.md").expect("b.md indexed");
    assert!(
        index.backlinks(b).is_empty(),
        "the index holds the buffer's older text of {:?}",
        index.note(a).path
    );
    drop(index);
    assert_eq!(hub.buffers.text("a.md"), None, "the buffer is stale");
}
