//! Which vault paths Weft skips: dot-files and dot-folders, what `.gitignore`
//! and `.ignore` files inside the vault ignore (whether or not it is a git
//! repository), and the configured `exclude` globs.
//!
//! [`PathFilter`] answers for one path at a time, as the file watcher needs;
//! the full scan asks `ignore`'s walker, and a test keeps the two in step. It
//! must not know the index or how notes are parsed.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::overrides::{Override, OverrideBuilder};

use crate::config::{Config, unsafe_glob};
use crate::sync::lock;

/// The ignore files read in every folder, highest precedence first (as
/// `ignore`'s walker does: `.ignore` beats `.gitignore` at any depth).
pub(crate) const IGNORE_FILES: [&str; 2] = [".ignore", ".gitignore"];

/// Decides whether a vault path is skipped. Built once per vault; cheap to
/// clone (shared). Ignore files are read lazily, per folder, and cached until
/// [`PathFilter::clear_cache`].
#[derive(Clone)]
pub struct PathFilter(Arc<Inner>);

struct Inner {
    /// The vault root, canonical when it could be resolved.
    root: PathBuf,
    excludes: Override,
    /// The `exclude` globs it was built from.
    globs: Vec<String>,
    /// Exclude globs that did not compile: (pattern, message).
    problems: Vec<(String, String)>,
    /// Folder (absolute) → its ignore rules.
    folders: Mutex<HashMap<PathBuf, Arc<FolderRules>>>,
}

#[derive(Default)]
struct FolderRules {
    /// Matchers for [`IGNORE_FILES`], in that order.
    matchers: [Option<Gitignore>; 2],
    /// The folder holds `.git`: `.gitignore` files above it do not apply
    /// inside it.
    has_git: bool,
}

impl PathFilter {
    /// A filter for the vault at `root` with `config.exclude`. Globs that do
    /// not compile are skipped and listed by [`PathFilter::problems`]
    /// (`Config::load` already rejects them).
    pub fn new(root: &Path, config: &Config) -> PathFilter {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let mut builder = OverrideBuilder::new(&root);
        let mut problems = Vec::new();
        for glob in &config.exclude {
            if let Some(problem) = unsafe_glob(glob) {
                problems.push((glob.clone(), problem));
                continue;
            }
            if glob.starts_with('!') {
                problems.push((glob.clone(), "an exclude pattern cannot be negated".into()));
                continue;
            }
            // Overrides are whitelists; `!` turns the glob into an exclusion.
            if let Err(e) = builder.add(&format!("!{glob}")) {
                problems.push((glob.clone(), e.to_string()));
            }
        }
        let excludes = builder.build().unwrap_or_else(|e| {
            problems.push((config.exclude.join(", "), e.to_string()));
            Override::empty()
        });
        PathFilter(Arc::new(Inner {
            root,
            excludes,
            globs: config.exclude.clone(),
            problems,
            folders: Mutex::new(HashMap::new()),
        }))
    }

    /// The vault root the filter was built for.
    pub fn root(&self) -> &Path {
        &self.0.root
    }

    /// The `exclude` globs the filter was built from.
    pub(crate) fn exclude_globs(&self) -> &[String] {
        &self.0.globs
    }

    /// Exclude globs that were skipped because they do not compile.
    pub fn problems(&self) -> &[(String, String)] {
        &self.0.problems
    }

    /// The excludes as an `ignore` override, for the walker.
    pub(crate) fn overrides(&self) -> &Override {
        &self.0.excludes
    }

    /// Forgets every ignore file read; call when one changes.
    pub(crate) fn clear_cache(&self) {
        lock(&self.0.folders).clear();
    }

    /// Whether the vault path `rel` is skipped, given whether it is a folder.
    /// A path is skipped when it or any folder above it has a name starting
    /// with `.`, matches an exclude glob, or is ignored by an ignore file.
    pub(crate) fn is_excluded_as(&self, rel: &str, is_dir: bool) -> bool {
        let rel = rel.trim_matches('/');
        if rel.is_empty() {
            return false;
        }
        if rel.split('/').any(|part| part.starts_with('.')) {
            return true;
        }
        let mut abs = self.0.root.clone();
        let mut parts = rel.split('/').filter(|p| !p.is_empty()).peekable();
        while let Some(part) = parts.next() {
            let parent = abs.clone();
            abs.push(part);
            let dir = is_dir || parts.peek().is_some();
            if self.0.excludes.matched(&abs, dir).is_ignore() || self.ignored(&parent, &abs, dir) {
                return true;
            }
        }
        false
    }

    /// Whether the ignore files of `parent` and the folders above it (up to
    /// the root) ignore `path`. The deepest match of each kind wins, `.ignore`
    /// before `.gitignore`; `.gitignore` files above a nested repository do
    /// not apply inside it.
    fn ignored(&self, parent: &Path, path: &Path, is_dir: bool) -> bool {
        let mut found: [Match<()>; 2] = [Match::None, Match::None];
        let mut saw_git = false;
        let mut folder = Some(parent);
        while let Some(dir) = folder {
            let rules = self.rules(dir);
            for (kind, matcher) in rules.matchers.iter().enumerate() {
                let applies = kind == 0 || !saw_git;
                if let (Some(m), true, true) = (matcher, applies, found[kind].is_none()) {
                    found[kind] = m.matched(path, is_dir).map(|_| ());
                }
            }
            saw_git |= rules.has_git;
            if dir == self.0.root {
                break;
            }
            folder = dir.parent().filter(|p| p.starts_with(&self.0.root));
        }
        match found {
            [Match::None, m] | [m, _] => m.is_ignore(),
        }
    }

    fn rules(&self, dir: &Path) -> Arc<FolderRules> {
        let mut folders = lock(&self.0.folders);
        if let Some(rules) = folders.get(dir) {
            return rules.clone();
        }
        let rules = Arc::new(read_rules(dir));
        folders.insert(dir.to_path_buf(), rules.clone());
        rules
    }

    /// Where a symlink at `abs` points, when that is a file inside the vault.
    /// Symlinks to folders and out of the vault are not followed.
    pub(crate) fn symlink_file_in_vault(&self, abs: &Path) -> Option<PathBuf> {
        let target = abs.canonicalize().ok()?;
        if !target.starts_with(&self.0.root) {
            tracing::debug!("skipping {}: a symlink out of the vault", abs.display());
            return None;
        }
        target.is_file().then_some(target)
    }
}

fn read_rules(dir: &Path) -> FolderRules {
    let mut rules = FolderRules {
        has_git: dir.join(".git").exists(),
        ..FolderRules::default()
    };
    for (slot, name) in rules.matchers.iter_mut().zip(IGNORE_FILES) {
        let file = dir.join(name);
        if !file.is_file() {
            continue;
        }
        let text = match std::fs::read(&file) {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!("{}: {e}", file.display());
                continue;
            }
        };
        let mut builder = GitignoreBuilder::new(dir);
        for (i, line) in String::from_utf8_lossy(&text).lines().enumerate() {
            let line = if i == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            // A line the glob compiler cannot take safely is skipped.
            if let Some(problem) = unsafe_glob(line) {
                tracing::warn!("{}:{}: line skipped: {problem}", file.display(), i + 1);
                continue;
            }
            if let Err(e) = builder.add_line(Some(file.clone()), line) {
                tracing::warn!("{}:{}: {e}", file.display(), i + 1);
            }
        }
        match builder.build() {
            Ok(gitignore) => *slot = Some(gitignore),
            Err(e) => tracing::warn!("{}: {e}", file.display()),
        }
    }
    rules
}

/// The first line of `dir`'s ignore files that the glob compiler cannot
/// take safely, as (file, line number, problem): the walker reads these
/// files itself, so a folder holding one is not given to it.
pub(crate) fn unsafe_ignore_file(dir: &Path) -> Option<(PathBuf, usize, String)> {
    for name in IGNORE_FILES {
        let file = dir.join(name);
        let Ok(text) = std::fs::read(&file) else {
            continue;
        };
        for (i, line) in String::from_utf8_lossy(&text).lines().enumerate() {
            if let Some(problem) = unsafe_glob(line) {
                return Some((file, i + 1, problem));
            }
        }
    }
    None
}

/// The vault path of `abs` under `root`: `/` separators, no `.` or `..`.
/// `None` when `abs` is not under `root` or a name is not UTF-8. The root
/// itself gives `Some("")`.
pub fn relative_path(root: &Path, abs: &Path) -> Option<String> {
    let rest = abs.strip_prefix(root).ok()?;
    let mut out = String::with_capacity(rest.as_os_str().len());
    for component in rest.components() {
        match component {
            Component::Normal(name) => {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(name.to_str()?);
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let root = Path::new("/v");
        assert_eq!(
            relative_path(root, Path::new("/v/a/b.md")).as_deref(),
            Some("a/b.md")
        );
        assert_eq!(relative_path(root, Path::new("/v")).as_deref(), Some(""));
        assert_eq!(relative_path(root, Path::new("/w/a.md")), None);
        assert_eq!(relative_path(root, Path::new("/v/../a.md")), None);
    }

    #[test]
    fn dot_components_excludes_and_ignore_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub/deep")).expect("mkdir");
        std::fs::write(root.join(".gitignore"), "*.log\nbuild/\n/top.md\n").expect("write");
        std::fs::write(root.join("sub/.gitignore"), "!keep.log\nlocal.md\n").expect("write");
        std::fs::write(root.join("sub/deep/.ignore"), "x.md\n").expect("write");
        let config = Config {
            exclude: vec!["drafts/".into(), "*.tmp".into()],
            ..Config::default()
        };
        let filter = PathFilter::new(root, &config);
        let excluded = |rel: &str| filter.is_excluded_as(rel, false);
        assert!(excluded(".obsidian/app.json"));
        assert!(excluded("a/.trash/n.md"));
        assert!(excluded(".hidden.md"));
        assert!(excluded("a.log"));
        assert!(excluded("sub/deep/a.log"));
        assert!(
            !excluded("sub/keep.log"),
            "re-included by a deeper .gitignore"
        );
        assert!(excluded("build/x.md"));
        assert!(excluded("sub/build/x.md"));
        assert!(!excluded("sub/top.md"), "anchored to the root");
        assert!(excluded("top.md"));
        assert!(excluded("sub/local.md"));
        assert!(excluded("sub/deep/local.md"));
        assert!(!excluded("local.md"));
        assert!(excluded("sub/deep/x.md"));
        assert!(!excluded("sub/x.md"));
        assert!(excluded("drafts/a.md"));
        assert!(excluded("sub/drafts/a.md"));
        assert!(filter.is_excluded_as("drafts", true));
        assert!(
            !filter.is_excluded_as("drafts", false),
            "a dir-only pattern"
        );
        assert!(excluded("n.tmp"));
        assert!(!excluded("notes/n.md"));
        assert!(!excluded(""));

        // A changed ignore file counts after clear_cache.
        std::fs::write(root.join(".gitignore"), "").expect("write");
        assert!(excluded("a.log"), "cached");
        filter.clear_cache();
        assert!(!excluded("a.log"));
    }
}
