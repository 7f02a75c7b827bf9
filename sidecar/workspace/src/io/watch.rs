//! Watching a vault for changes made outside Weft: notify's debounced
//! events (creations, removals, modifications, renames; never opens or
//! reads) become [`LiveVault::apply_paths`] calls; lost events (an error, a
//! queue overflow) become one [`LiveVault::rescan`].
//!
//! This module must not know what a note is or how the index changes; it
//! only turns file system events into paths.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use notify::event::ModifyKind;
use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventResult, Debouncer, RecommendedCache, new_debouncer_opt, notify,
};

use super::live::LiveVault;

/// How long events settle before they are applied.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// A running watcher. Dropping it stops watching (and waits for a batch in
/// progress to finish). It does not keep the vault alive.
pub struct Watcher {
    debouncer: Option<Debouncer<notify::RecommendedWatcher, RecommendedCache>>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        if let Some(debouncer) = self.debouncer.take() {
            debouncer.stop();
        }
    }
}

impl fmt::Debug for Watcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watcher").finish_non_exhaustive()
    }
}

/// Why watching could not start.
#[derive(Debug)]
pub struct WatchError {
    pub root: PathBuf,
    pub source: notify::Error,
}

impl fmt::Display for WatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot watch {} for changes: {}",
            self.root.display(),
            self.source
        )?;
        if let Some(hint) = hint(&self.source) {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for WatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn hint(error: &notify::Error) -> Option<&'static str> {
    match error.kind {
        notify::ErrorKind::MaxFilesWatch => Some(
            "the system's limit of watched folders is reached: raise it \
             (sysctl fs.inotify.max_user_watches=524288) or exclude large folders",
        ),
        _ => None,
    }
}

impl LiveVault {
    /// Keeps the index equal to the disk until the returned [`Watcher`] is
    /// dropped.
    pub fn watch(self: &Arc<Self>) -> Result<Watcher, WatchError> {
        self.watch_with(|_| {})
    }

    /// [`LiveVault::watch`], calling `on_change` after each batch with the
    /// vault paths whose index entries changed (never empty). It runs on the
    /// watcher's thread: keep it short, and do not drop the [`Watcher`] in it.
    pub(crate) fn watch_with(
        self: &Arc<Self>,
        on_change: impl Fn(&[String]) + Send + 'static,
    ) -> Result<Watcher, WatchError> {
        let vault: Weak<LiveVault> = Arc::downgrade(self);
        let handler = move |result: DebounceEventResult| {
            let Some(vault) = vault.upgrade() else {
                return;
            };
            // A panic must not silently end the watcher thread.
            let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                apply_batch(&vault, result)
            }));
            match applied {
                Ok(changed) if !changed.is_empty() => on_change(&changed),
                Ok(_) => {}
                Err(_) => tracing::error!("updating the index from file events panicked"),
            }
        };
        let error = |source| WatchError {
            root: self.root.clone(),
            source,
        };
        // Symbolic links are not followed, as the vault's walk does not
        // follow them: a linked folder's files are no notes, and following
        // would stat every file of the vault while the watches are set
        // (about 0.8 s of CPU at 169k notes) instead of reading folders.
        // Opening and reading are not asked of the kernel at all: counted
        // or not, every file anyone reads (Weft's own full-text build and
        // history baseline, a backup, a `grep -r`) was one event in the
        // kernel's queue (16,384 by default), which at 169k notes overflowed
        // it again and again, each overflow a rescan of the vault.
        let config = notify::Config::default()
            .with_follow_symlinks(false)
            .with_event_kinds(notify::EventKindMask::CORE);
        let mut debouncer = new_debouncer_opt::<_, RecommendedWatcher, RecommendedCache>(
            DEBOUNCE,
            None,
            handler,
            RecommendedCache::new(),
            config,
        )
        .map_err(error)?;
        debouncer
            .watch(&self.root, RecursiveMode::Recursive)
            .map_err(error)?;
        Ok(Watcher {
            debouncer: Some(debouncer),
        })
    }
}

/// The paths of an event that can change what the index holds. Opening or
/// reading a file or folder cannot, and must not count: reading a changed
/// folder opens it and its subfolders, which would report them again, for
/// ever. A metadata change matters for a file (permissions can make a note
/// readable or not) but says nothing about the notes in a folder.
fn content_paths(event: notify::Event) -> Vec<PathBuf> {
    match event.kind {
        EventKind::Access(_) => Vec::new(),
        EventKind::Modify(ModifyKind::Metadata(_)) => {
            event.paths.into_iter().filter(|p| !p.is_dir()).collect()
        }
        _ => event.paths,
    }
}

/// Applies one debounced batch; returns the changed vault paths.
fn apply_batch(vault: &LiveVault, result: DebounceEventResult) -> Vec<String> {
    match result {
        Ok(events) => {
            vault
                .events
                .fetch_add(events.len(), std::sync::atomic::Ordering::Relaxed);
            if events.iter().any(|e| e.need_rescan()) {
                tracing::info!("file events were lost; rescanning {}", vault.root.display());
                return vault.rescan();
            }
            vault.apply_paths(events.into_iter().flat_map(|e| content_paths(e.event)))
        }
        Err(errors) => {
            for error in &errors {
                match hint(error) {
                    Some(hint) => {
                        tracing::warn!("watching {}: {error}; {hint}", vault.root.display())
                    }
                    None => tracing::warn!("watching {}: {error}", vault.root.display()),
                }
            }
            vault.rescan()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::write_file;
    use crate::io::live::tests::{Dump, dump_disk, dump_index};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Instant;

    /// Bounds a failing run only: a loaded machine may take long to apply a
    /// burst, and the comparison is made whenever a batch has been applied.
    const DEADLINE: Duration = Duration::from_secs(120);

    /// Watches `vault`; each applied batch is a message on the receiver.
    fn watch(vault: &Arc<LiveVault>) -> (Watcher, mpsc::Receiver<()>) {
        let (tx, rx) = mpsc::channel();
        let watcher = vault
            .watch_with(move |changed| {
                assert!(!changed.is_empty());
                let _ = tx.send(());
            })
            .expect("watches");
        (watcher, rx)
    }

    /// Waits until the index equals a fresh scan of the disk, comparing
    /// again after each batch the watcher applies (only a batch changes the
    /// index), or the deadline passes.
    fn wait_until_converged(
        vault: &LiveVault,
        batches: &mpsc::Receiver<()>,
        deadline: Duration,
    ) -> Result<(), (Dump, Dump)> {
        let start = Instant::now();
        loop {
            // Batches applied so far are in what is compared now.
            while batches.try_recv().is_ok() {}
            let (index, disk) = (dump_index(vault), dump_disk(vault));
            if index == disk {
                return Ok(());
            }
            let left = deadline.saturating_sub(start.elapsed());
            if left.is_zero() || batches.recv_timeout(left).is_err() {
                return Err((dump_index(vault), dump_disk(vault)));
            }
        }
    }

    fn assert_converges(vault: &LiveVault, batches: &mpsc::Receiver<()>) {
        if let Err((index, disk)) = wait_until_converged(vault, batches, DEADLINE) {
            let only_index: Vec<_> = index.0.iter().filter(|n| !disk.0.contains(n)).collect();
            let only_disk: Vec<_> = disk.0.iter().filter(|n| !index.0.contains(n)).collect();
            let att_index: Vec<_> = index.1.iter().filter(|a| !disk.1.contains(a)).collect();
            let att_disk: Vec<_> = disk.1.iter().filter(|a| !index.1.contains(a)).collect();
            panic!(
                "the index did not converge to the disk:\n notes only in the index: {only_index:?}\n \
                 notes only on disk: {only_disk:?}\n attachments only in the index: {att_index:?}\n \
                 attachments only on disk: {att_disk:?}"
            );
        }
    }

    fn note(i: usize, version: u32) -> String {
        format!(
            "# Note {i}\nversion {version}, links to [[n{}]] #tag{}\n",
            (i + 7) % 500,
            i % 13
        )
    }

    /// Reading a folder (the watcher's own reading included) is no change:
    /// counting it re-read whole folders every debounce period, for ever.
    #[test]
    fn opening_or_reading_is_not_a_change() {
        use notify::event::{AccessKind, AccessMode, CreateKind, MetadataKind};
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("notes");
        std::fs::create_dir(&folder).expect("folder");
        let file = folder.join("a.md");
        std::fs::write(&file, "# A\n").expect("note");
        let event = |kind, path: &PathBuf| notify::Event::new(kind).add_path(path.clone());
        let opened = EventKind::Access(AccessKind::Open(AccessMode::Any));
        let closed = EventKind::Access(AccessKind::Close(AccessMode::Read));
        let chmod = EventKind::Modify(ModifyKind::Metadata(MetadataKind::Permissions));
        for (kind, path) in [(opened, &folder), (closed, &file), (chmod, &folder)] {
            assert!(
                content_paths(event(kind, path)).is_empty(),
                "{kind:?} {path:?}"
            );
        }
        let created = EventKind::Create(CreateKind::Folder);
        for (kind, path) in [(chmod, &file), (created, &folder)] {
            assert_eq!(
                content_paths(event(kind, path)),
                std::slice::from_ref(path),
                "{kind:?}"
            );
        }
    }

    /// Reading files is not even asked of the kernel: reads by anyone
    /// (here 40,000, over twice the kernel's default queue) are no events,
    /// so they can neither fill its queue, which costs a rescan of the
    /// vault, nor reach the index; a change made after them is seen as
    /// usual.
    #[test]
    fn reading_files_costs_no_rescan() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for i in 0..200 {
            write_file(root, &format!("n{i}.md"), note(i, 0));
        }
        let vault = Arc::new(LiveVault::open(root).expect("opens"));
        let (_watcher, batches) = watch(&vault);
        for _ in 0..200 {
            for i in 0..200 {
                std::fs::read(root.join(format!("n{i}.md"))).expect("read");
            }
        }
        write_file(root, "n0.md", note(0, 1));
        assert_converges(&vault, &batches);
        assert_eq!(vault.rescans.load(Ordering::Relaxed), 0);
        // The write's own events only.
        let events = vault.events.load(Ordering::Relaxed);
        assert!(events <= 10, "{events} events");
    }

    #[test]
    fn a_burst_of_changes_converges() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        write_file(root, ".gitignore", "build/\n");
        for i in 0..300 {
            write_file(root, &format!("old/n{i}.md"), note(i, 0));
        }
        for i in 300..500 {
            write_file(root, &format!("keep/sub{}/n{i}.md", i % 4), note(i, 0));
        }
        for i in 0..40 {
            write_file(root, &format!("keep/img{i}.png"), "png");
        }
        let vault = Arc::new(LiveVault::open(root).expect("opens"));
        let root = vault.root.clone();
        let count = Arc::new(AtomicUsize::new(0));
        let counted = count.clone();
        let (tx, batches) = mpsc::channel();
        let watcher = vault
            .watch_with(move |changed| {
                assert!(!changed.is_empty());
                counted.fetch_add(1, Ordering::SeqCst);
                let _ = tx.send(());
            })
            .expect("watches");

        let mut ops = 0;
        // Creates, in new and nested folders.
        for i in 500..1500 {
            write_file(
                &root,
                &format!("new/d{}/deeper/n{i}.md", i % 10),
                note(i, 0),
            );
            ops += 1;
        }
        // Modifies of files created a moment ago.
        for i in 1000..1200 {
            write_file(
                &root,
                &format!("new/d{}/deeper/n{i}.md", i % 10),
                note(i, 1),
            );
            ops += 1;
        }
        // Modifies, including through an atomic write (temp file + rename).
        for i in 300..500 {
            let rel = format!("keep/sub{}/n{i}.md", i % 4);
            if i % 2 == 0 {
                write_file(&root, &rel, note(i, 1));
            } else {
                let tmp = root.join(format!("keep/.n{i}.md.tmp"));
                std::fs::write(&tmp, note(i, 2)).expect("write");
                std::fs::rename(&tmp, root.join(&rel)).expect("rename");
            }
            ops += 1;
        }
        // A folder rename, then changes inside the renamed folder.
        std::fs::rename(root.join("old"), root.join("renamed")).expect("rename");
        ops += 1;
        for i in 0..150 {
            write_file(&root, &format!("renamed/n{i}.md"), note(i, 3));
            ops += 1;
        }
        // File renames and deletes.
        for i in 150..300 {
            let from = root.join(format!("renamed/n{i}.md"));
            if i % 2 == 0 {
                std::fs::rename(&from, root.join(format!("keep/moved{i}.md"))).expect("rename");
            } else {
                std::fs::remove_file(&from).expect("rm");
            }
            ops += 1;
        }
        for i in 500..700 {
            std::fs::remove_file(root.join(format!("new/d{}/deeper/n{i}.md", i % 10))).expect("rm");
            ops += 1;
        }
        // Attachments, ignored and hidden files.
        for i in 0..40 {
            if i % 2 == 0 {
                std::fs::remove_file(root.join(format!("keep/img{i}.png"))).expect("rm");
            } else {
                write_file(&root, &format!("new/img{i}.jpg"), "jpg");
            }
            ops += 1;
        }
        for i in 0..50 {
            write_file(&root, &format!("build/out{i}.md"), "ignored");
            write_file(&root, &format!(".git/objects/o{i}"), "hidden");
            ops += 2;
        }
        // A whole folder deleted, and one created and deleted at once.
        std::fs::remove_dir_all(root.join("keep/sub3")).expect("rm");
        write_file(&root, "flash/n.md", "gone soon");
        std::fs::remove_dir_all(root.join("flash")).expect("rm");
        ops += 3;
        assert!(ops >= 2_000, "{ops} operations");

        assert_converges(&vault, &batches);
        assert!(count.load(Ordering::SeqCst) > 0, "the callback ran");

        // A second, small change after the burst still arrives.
        write_file(&root, "renamed/n0.md", "# after");
        assert_converges(&vault, &batches);

        // Folders renamed with their subfolders keep reporting the right
        // paths afterwards (watches follow the move).
        std::fs::rename(root.join("keep"), root.join("kept")).expect("rename");
        std::fs::rename(root.join("new/d1"), root.join("d1-moved")).expect("rename");
        assert_converges(&vault, &batches);
        for i in (300..500).filter(|i| i % 4 != 3) {
            write_file(&root, &format!("kept/sub{}/n{i}.md", i % 4), note(i, 4));
        }
        write_file(&root, "d1-moved/deeper/n1201.md", "# moved");
        write_file(&root, "d1-moved/deeper/fresh.md", "# fresh");
        std::fs::remove_file(root.join("d1-moved/deeper/n1211.md")).expect("rm");
        assert_converges(&vault, &batches);

        // After the watcher stops, nothing changes any more: dropping it
        // ended its thread, and the callback with it (the channel's sender
        // is gone once the last batch is delivered), so no batch can come.
        drop(watcher);
        let start = Instant::now();
        loop {
            match batches.recv_timeout(DEADLINE.saturating_sub(start.elapsed())) {
                Ok(()) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => panic!("the callback outlives the watcher"),
            }
        }
        let before = dump_index(&vault);
        write_file(&root, "late.md", "late");
        assert_eq!(dump_index(&vault), before);
    }

    #[test]
    fn a_changed_gitignore_is_followed() {
        let dir = tempfile::tempdir().expect("temp dir");
        write_file(dir.path(), "a.md", "a");
        write_file(dir.path(), "drafts/b.md", "b");
        let vault = Arc::new(LiveVault::open(dir.path()).expect("opens"));
        let (_watcher, batches) = watch(&vault);
        write_file(dir.path(), ".gitignore", "drafts/\n");
        assert_converges(&vault, &batches);
        assert!(dump_index(&vault).0.iter().all(|n| n.0 == "a.md"));
    }
}
