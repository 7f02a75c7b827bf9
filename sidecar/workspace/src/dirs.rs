//! The user's folders for Weft, by the XDG base-directory rule: the
//! variable when it holds an absolute path, else the folder under `HOME`.
//! The one place this rule is written (the daemon's cache and the fetched
//! models, the HTTP token's config folder).

use std::path::PathBuf;

/// `$VAR/weft` (`var` holding an absolute path), else `~/HOME_DEFAULT/weft`;
/// `None` when neither is known.
pub fn user_dir(var: &str, home_default: &str) -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    env(var)
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .or_else(|| env("HOME").map(|home| PathBuf::from(home).join(home_default)))
        .map(|dir| dir.join("weft"))
}

/// The user's cache folder for Weft: `$XDG_CACHE_HOME/weft`, else
/// `~/.cache/weft`.
pub fn cache_dir() -> Option<PathBuf> {
    user_dir("XDG_CACHE_HOME", ".cache")
}

/// Where fetched models are kept: `<cache>/models`.
pub fn models_dir() -> Option<PathBuf> {
    cache_dir().map(|cache| cache.join("models"))
}
