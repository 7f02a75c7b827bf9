//! The resources Zed lends an extension: a worktree (root, files, `which`
//! over its shell's `PATH`, shell environment) and a project (worktree ids
//! only). Tests build them; the host pushes a copy into the resource table
//! for each call, as Zed hands out borrows.

use std::path::{Path, PathBuf};

/// A worktree as Zed's `WorktreeDelegate` presents it.
#[derive(Debug, Clone)]
pub struct FakeWorktree {
    pub id: u64,
    pub root: PathBuf,
    /// The shell environment Zed captured in the worktree (`shell-env`);
    /// its `PATH` is what `which` searches.
    pub shell_env: Vec<(String, String)>,
}

impl FakeWorktree {
    /// A worktree whose shell finds nothing on `PATH` (an empty folder).
    pub fn new(id: u64, root: &Path) -> FakeWorktree {
        FakeWorktree {
            id,
            root: root.to_path_buf(),
            shell_env: vec![
                ("HOME".into(), root.display().to_string()),
                ("PATH".into(), String::new()),
            ],
        }
    }

    /// The same worktree with `dir` at the front of its shell's `PATH`.
    pub fn with_path_dir(mut self, dir: &Path) -> FakeWorktree {
        let path = self.var("PATH").unwrap_or_default();
        let path = std::env::join_paths(
            std::iter::once(dir.to_path_buf())
                .chain(std::env::split_paths(&path).filter(|p| !p.as_os_str().is_empty())),
        )
        .expect("PATH entries")
        .into_string()
        .expect("UTF-8 PATH");
        self.set_var("PATH", &path);
        self
    }

    pub fn with_var(mut self, name: &str, value: &str) -> FakeWorktree {
        self.set_var(name, value);
        self
    }

    fn var(&self, name: &str) -> Option<String> {
        self.shell_env
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    }

    fn set_var(&mut self, name: &str, value: &str) {
        match self.shell_env.iter_mut().find(|(key, _)| key == name) {
            Some(slot) => slot.1 = value.to_string(),
            None => self.shell_env.push((name.to_string(), value.to_string())),
        }
    }

    /// `which(name)` over the shell's `PATH`: the first executable file.
    pub fn which(&self, name: &str) -> Option<String> {
        let path = self.var("PATH")?;
        std::env::split_paths(&path)
            .filter(|dir| !dir.as_os_str().is_empty())
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
            .map(|found| found.display().to_string())
    }

    /// `read-text-file`: a path relative to the root, never outside it.
    pub fn read_text_file(&self, path: &str) -> Result<String, String> {
        if Path::new(path).is_absolute() || path.split('/').any(|part| part == "..") {
            return Err(format!("{path} is not a path inside the worktree"));
        }
        std::fs::read_to_string(self.root.join(path)).map_err(|e| e.to_string())
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// A project as Zed's `ProjectDelegate` presents it: worktree ids only.
#[derive(Debug, Clone)]
pub struct FakeProject {
    pub worktree_ids: Vec<u64>,
}

/// The docs database of `index-docs`; Weft never gets one.
pub struct FakeKeyValueStore;

/// A streamed HTTP body; the host has no network, so none is ever made.
pub struct FakeResponseStream;
