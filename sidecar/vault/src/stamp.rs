//! A file's stamp: what tells, without reading the file again, whether it
//! changed since its note was read (size and modification time, and
//! whether that time was too close to the read to trust). Kept by the
//! persisted index and the full text alike, so both agree on what
//! "unchanged" means.
//!
//! Pure: computed from metadata the caller read; no IO here.

use std::fs;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// A file's state when its note was read: what tells, on the next start,
/// whether it changed since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// The file was modified so shortly before it was read that a later
    /// change in the same clock tick could keep its time and size: its
    /// content is compared on the next start.
    pub racy: bool,
}

/// How close to the read a modification time must be to count as racy: the
/// coarsest file time stamps in use (FAT) have two-second ticks.
const RACY_NS: i64 = 2_000_000_000;

impl Stamp {
    /// The stamp of a file whose metadata is `before` and `after` its read
    /// (the same when nothing wrote to it meanwhile), read at `now_ns`.
    pub fn of(before: &fs::Metadata, after: &fs::Metadata, now_ns: i64) -> Stamp {
        let (size, mtime) = (after.len(), mtime_ns(after));
        let changed = before.len() != size || mtime_ns(before) != mtime;
        Stamp {
            size,
            mtime_ns: mtime,
            racy: changed || now_ns.saturating_sub(mtime) < RACY_NS,
        }
    }

    /// Whether a file whose metadata is `now` still has this stamp's size
    /// and time. A racy stamp's content must be compared besides.
    pub fn matches(&self, now: &fs::Metadata) -> bool {
        self.size == now.len() && self.mtime_ns == mtime_ns(now)
    }
}

/// Nanoseconds since the Unix epoch.
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

fn mtime_ns(metadata: &fs::Metadata) -> i64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}
