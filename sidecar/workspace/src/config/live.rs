//! The configuration of a running vault, kept up to date: the files'
//! metadata (a `stat` each) is compared on every [`LiveConfig::refresh`],
//! and a file that changed is read again. A file that no longer loads keeps
//! the last good configuration and the error is reported; a start with a bad
//! file has no good configuration, which callers treat as "cannot serve"
//! until it is fixed.
//!
//! Must not know what a setting does, who asks, or any protocol.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use tokio::sync::watch;

use super::{CONFIG_FILE, Config, OBSIDIAN_DAILY_NOTES, OBSIDIAN_TYPES, TASKS_PLUGIN_DATA};
use crate::sync::{lock, read, write};

/// One file's metadata, enough to tell that it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    changed: (i64, i64),
    #[cfg(unix)]
    inode: u64,
}

/// The four files' stamps (`None`: the file does not exist or cannot be read).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp([Option<FileStamp>; 4]);

impl Stamp {
    fn of(root: &Path) -> Stamp {
        Stamp(
            [
                CONFIG_FILE,
                OBSIDIAN_DAILY_NOTES,
                OBSIDIAN_TYPES,
                TASKS_PLUGIN_DATA,
            ]
            .map(|file| {
                let metadata = std::fs::metadata(root.join(file)).ok()?;
                Some(FileStamp {
                    len: metadata.len(),
                    modified: metadata.modified().ok(),
                    #[cfg(unix)]
                    changed: {
                        use std::os::unix::fs::MetadataExt;
                        (metadata.ctime(), metadata.ctime_nsec())
                    },
                    #[cfg(unix)]
                    inode: {
                        use std::os::unix::fs::MetadataExt;
                        metadata.ino()
                    },
                })
            }),
        )
    }
}

/// What the configuration is now.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The last configuration that loaded (defaults when none ever did).
    pub config: Arc<Config>,
    /// Why the files do not load now, when they do not.
    pub error: Option<String>,
    /// Whether [`Snapshot::config`] came from the files (false when they
    /// have not loaded since the start).
    pub loaded: bool,
    /// Counts changes of `config` or `error`.
    pub generation: u64,
}

/// A change [`LiveConfig::refresh`] made.
#[derive(Debug, Clone)]
pub struct Reloaded {
    pub old: Arc<Config>,
    pub new: Arc<Config>,
}

/// A vault's configuration, reloaded when its files change.
pub struct LiveConfig {
    root: PathBuf,
    /// The stamp last read, under the lock that serialises reloads.
    stamp: Mutex<Stamp>,
    now: RwLock<Snapshot>,
    /// [`Snapshot::generation`], readable without the lock.
    generation: AtomicU64,
    changes: watch::Sender<u64>,
}

impl std::fmt::Debug for LiveConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveConfig")
            .field("root", &self.root)
            .field("now", &self.snapshot())
            .finish()
    }
}

impl LiveConfig {
    /// Loads the configuration of the vault at `root` (which must exist);
    /// a file that does not load is reported by [`LiveConfig::error`].
    pub fn load(root: &Path) -> LiveConfig {
        Self::load_reporting(root).0
    }

    /// [`LiveConfig::load`], failing when the files do not load.
    pub(crate) fn try_load(root: &Path) -> Result<LiveConfig, super::ConfigError> {
        match Self::load_reporting(root) {
            (_, Some(error)) => Err(error),
            (live, None) => Ok(live),
        }
    }

    fn load_reporting(root: &Path) -> (LiveConfig, Option<super::ConfigError>) {
        let stamp = Stamp::of(root);
        let (config, error) = match Config::load(root) {
            Ok(config) => (Some(config), None),
            Err(e) => {
                tracing::warn!("{e}");
                (None, Some(e))
            }
        };
        let live = LiveConfig {
            root: root.to_path_buf(),
            stamp: Mutex::new(stamp),
            now: RwLock::new(Snapshot {
                loaded: config.is_some(),
                config: Arc::new(config.unwrap_or_default()),
                error: error.as_ref().map(ToString::to_string),
                generation: 0,
            }),
            generation: AtomicU64::new(0),
            changes: watch::channel(0).0,
        };
        (live, error)
    }

    /// A fixed configuration that never reloads (a vault opened with
    /// settings of its own, benchmarks).
    pub fn fixed(root: &Path, config: Config) -> LiveConfig {
        LiveConfig {
            root: root.to_path_buf(),
            stamp: Mutex::new(Stamp([None, None, None, None])),
            now: RwLock::new(Snapshot {
                config: Arc::new(config),
                error: None,
                loaded: true,
                generation: 0,
            }),
            generation: AtomicU64::new(0),
            changes: watch::channel(0).0,
        }
    }

    /// The configuration now.
    pub fn current(&self) -> Arc<Config> {
        self.snapshot().config
    }

    pub fn snapshot(&self) -> Snapshot {
        read(&self.now).clone()
    }

    /// [`Snapshot::generation`] now, without copying anything.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Why the files do not load now, when they do not.
    pub fn error(&self) -> Option<String> {
        self.snapshot().error
    }

    /// Told the new generation whenever the configuration or its error
    /// changes.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Whether the files' metadata differs from what was last read (two
    /// `stat`s): [`LiveConfig::refresh`] would read them again.
    pub fn stale(&self) -> bool {
        *lock(&self.stamp) != Stamp::of(&self.root)
    }

    /// Looks at the files' metadata and, when either changed, reads them
    /// again: a configuration that loads replaces the current one (returned
    /// when it differs), one that does not is reported and changes nothing.
    /// Costs two `stat`s when nothing changed.
    pub fn refresh(&self) -> Option<Reloaded> {
        let mut stamp = lock(&self.stamp);
        let fresh = Stamp::of(&self.root);
        if *stamp == fresh {
            return None;
        }
        *stamp = fresh;
        let loaded = Config::load(&self.root);
        let mut now = write(&self.now);
        let (reloaded, error) = match loaded {
            Ok(config) if !now.loaded || *now.config != config => {
                let new = Arc::new(config);
                let old = std::mem::replace(&mut now.config, new.clone());
                now.loaded = true;
                tracing::info!("{}: the configuration changed; applied", CONFIG_FILE);
                (Some(Reloaded { old, new }), None)
            }
            Ok(_) => (None, None),
            Err(e) => {
                let message = e.to_string();
                tracing::warn!(
                    "{message}; {}",
                    if now.loaded {
                        "keeping the last configuration that loaded"
                    } else {
                        "the vault is not served until it loads"
                    }
                );
                (None, Some(message))
            }
        };
        if reloaded.is_some() || now.error != error {
            now.error = error;
            now.generation += 1;
            self.generation.store(now.generation, Ordering::Release);
            self.changes.send_replace(now.generation);
        }
        reloaded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_apply_and_a_bad_file_keeps_the_last_good_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let live = LiveConfig::load(root);
        assert!(live.snapshot().loaded && live.error().is_none());
        assert!(live.refresh().is_none(), "nothing changed");
        std::fs::write(root.join(CONFIG_FILE), "[agent]\ndeny = [\"private/**\"]\n").unwrap();
        let reloaded = live.refresh().expect("a new deny rule applies");
        assert!(reloaded.old.agent.deny.is_empty());
        assert_eq!(live.current().agent.deny, ["private/**"]);
        let generation = live.snapshot().generation;
        std::fs::write(root.join(CONFIG_FILE), "[agent]\ndenny = 1\n").unwrap();
        assert!(live.refresh().is_none());
        let now = live.snapshot();
        assert!(now.error.as_deref().unwrap().contains("denny"), "{now:?}");
        assert_eq!(now.config.agent.deny, ["private/**"], "the last good one");
        assert!(now.generation > generation);
        std::fs::write(root.join(CONFIG_FILE), "[agent]\nread_only = true\n").unwrap();
        assert!(live.refresh().is_some());
        assert!(live.current().agent.read_only && live.error().is_none());
        std::fs::remove_file(root.join(CONFIG_FILE)).unwrap();
        assert!(live.refresh().is_some());
        assert_eq!(*live.current(), Config::default());
    }

    #[test]
    fn a_start_with_a_bad_file_is_not_loaded_until_it_is_fixed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), "exclude = 3\n").unwrap();
        let live = LiveConfig::load(dir.path());
        let now = live.snapshot();
        assert!(!now.loaded && now.error.is_some());
        std::fs::write(dir.path().join(CONFIG_FILE), "exclude = []\n").unwrap();
        assert!(
            live.refresh().is_some(),
            "defaults that loaded are a change"
        );
        assert!(live.snapshot().loaded);
    }
}
