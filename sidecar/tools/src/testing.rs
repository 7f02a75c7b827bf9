//! What the tests of the tools' computations share: the index of an inline
//! fixture (`//- /path.md` starts a file: `weft_vault::fixture`), the
//! agent's access as a configuration gives it, a fixture with its full
//! text and file times (`searchable`), ids shown as paths, what a name
//! means (`target`), and a fixture written to a temporary folder with its
//! history, for the write and history tools (`Disk`).

use std::path::Path;
use std::sync::Arc;

use crate::scope::Times;
use weft_search::fixture::MemFiles;
use weft_vault::{NoteId, VaultIndex};
use weft_workspace::access::Access;
use weft_workspace::config::AgentConfig;
use weft_workspace::hub::Hub;
use weft_workspace::io::LiveVault;

use crate::format::ToolResult;
use crate::policy::Profile;
use crate::state::ToolState;

pub(crate) use weft_search::fixture::fixture as searchable;
pub(crate) use weft_vault::fixture::index as vault;

/// The access of an agent that may not see what `deny` names.
pub(crate) fn access(deny: &[&str]) -> Access {
    let agent = AgentConfig {
        deny: deny.iter().map(|d| d.to_string()).collect(),
        ..AgentConfig::default()
    };
    Access::new(Path::new("/vault"), &agent)
}

/// A note's path, for readable snapshots.
pub(crate) fn path(index: &VaultIndex, id: NoteId) -> &str {
    index.note(id).id()
}

/// What a name means, as the tools find it: a note, or the links to a
/// note not written yet (hiding nothing).
pub(crate) fn target(index: &VaultIndex, name: &str) -> crate::common::Target {
    use weft_vault::query::{Lookup, lookup};
    match lookup(index, name) {
        Lookup::Found(id) => crate::common::Target::Note(id),
        Lookup::Unresolved { target, links } => crate::common::Target::Missing { target, links },
        Lookup::Ambiguous(ids) => panic!("`{name}` names {} notes", ids.len()),
        other => panic!("`{name}`: {other:?}"),
    }
}

/// A fixture's file times (`//- /path.md @SECONDS`).
impl Times for MemFiles {
    fn modified(&self, path: &str) -> Option<i64> {
        self.0.lock().unwrap().get(path)?.modified
    }

    fn created(&self, path: &str) -> Option<i64> {
        self.0.lock().unwrap().get(path)?.created
    }
}

/// A fixture's file times (`//- /path.md @SECONDS`) without its full
/// text: the one time given is the file's modified and its created time
/// (as where the file system keeps no creation time).
pub(crate) struct FileTimes(std::collections::HashMap<String, i64>);

pub(crate) fn file_times(src: &str) -> FileTimes {
    FileTimes(
        weft_vault::fixture::files(src)
            .into_iter()
            .filter_map(|f| Some((f.path, f.time?)))
            .collect(),
    )
}

impl Times for FileTimes {
    fn modified(&self, path: &str) -> Option<i64> {
        self.0.get(path).copied()
    }

    fn created(&self, path: &str) -> Option<i64> {
        self.0.get(path).copied()
    }
}

/// An inline fixture written to a temporary folder and opened as the
/// tools open a vault, with its note history (the files as written are
/// its first version): the write and history tools run on it for real.
pub(crate) struct Disk {
    pub(crate) state: Arc<ToolState>,
    dir: tempfile::TempDir,
}

impl Disk {
    pub(crate) fn new(src: &str) -> Disk {
        let dir = tempfile::tempdir().expect("temp dir");
        weft_workspace::fixture::write(dir.path(), src);
        let live = Arc::new(LiveVault::open(dir.path()).expect("the fixture opens"));
        let hub = Hub::detached_with_history(live).expect("a hub");
        Disk {
            state: ToolState::over(hub, Profile::default()),
            dir,
        }
    }

    /// A tool called on the fixture as the agent calls it (`args` as
    /// JSON): its answer, then each of `files` as it is now, made steady.
    pub(crate) fn call<A: serde::de::DeserializeOwned>(
        &self,
        run: impl FnOnce(&ToolState, A) -> ToolResult,
        args: serde_json::Value,
        files: &[&str],
    ) -> String {
        let args: A = serde_json::from_value(args).expect("valid arguments");
        let mut out = text(run(&self.state, args));
        for file in files {
            let now = self.read(file).unwrap_or_else(|| "(no file)".into());
            out.push_str(&format!("\n--- {file}\n{now}"));
        }
        steady(&out)
    }

    /// The ids of a note's versions, newest first.
    pub(crate) fn versions(&self, path: &str) -> Vec<String> {
        let history = self.state.history().expect("a history");
        let page = history.log(Some(path), None, 50, None).expect("a log");
        page.items.into_iter().map(|v| v.id).collect()
    }

    /// A file's text now; `None` when it is not there.
    pub(crate) fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join(rel)).ok()
    }
}

/// A tool's answer as the agent reads it, or its error.
pub(crate) fn text(result: ToolResult) -> String {
    match result {
        Ok(reply) => reply.text,
        Err(e) => e.text(),
    }
}

/// `text` with every word of 7 or more hex digits (sha256s, version ids)
/// and every date with a time of day blanked: they change from run to run.
pub(crate) fn steady(text: &str) -> String {
    untimed(&unhexed(text))
}

/// `text` with each `YYYY-MM-DD HH:MM` (or `T`, seconds, fraction and
/// offset following) as `<time>`.
fn untimed(text: &str) -> String {
    let b = text.as_bytes();
    let digits = |from: usize, n: usize| {
        b.get(from..from + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let stamp = digits(i, 4)
            && at(i + 4, b'-')
            && digits(i + 5, 2)
            && at(i + 7, b'-')
            && digits(i + 8, 2)
            && (at(i + 10, b' ') || at(i + 10, b'T'))
            && digits(i + 11, 2)
            && at(i + 13, b':')
            && digits(i + 14, 2);
        if !stamp {
            i += 1;
            continue;
        }
        let mut end = i + 16;
        while end < b.len() && (b[end].is_ascii_digit() || b":.+-Z".contains(&b[end])) {
            end += 1;
        }
        out.push_str(&text[copied..i]);
        out.push_str("<time>");
        copied = end;
        i = end;
    }
    out.push_str(&text[copied..]);
    out
}

fn unhexed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        let word_start = i == 0 || !chars[i - 1].is_ascii_alphanumeric();
        if run >= 7
            && word_start
            && chars
                .get(i + run)
                .is_none_or(|c| !c.is_ascii_alphanumeric())
        {
            out.push_str("<hex>");
            i += run;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The fixture of the history tools: `Plan` as first recorded, then
/// changed once by the agent (`claude`).
pub(crate) fn edited() -> Disk {
    let disk = Disk::new(
        r#"
//- /Plan.md
# Plan
First step.
//- /Home.md
[[Plan]]
"#,
    );
    let args = serde_json::from_value(serde_json::json!({
        "path": "Plan",
        "ops": [{"op": "replace_text", "find": "First", "replace": "Second"}]
    }))
    .expect("valid arguments");
    crate::edit_note::run(&disk.state, "claude", args).expect("the edit");
    disk
}
