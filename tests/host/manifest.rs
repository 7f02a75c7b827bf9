//! `extension.toml` as Zed reads it, and Zed's capability checks: which
//! process and download calls the manifest declares and the user grants
//! (`granted_extension_capabilities`). The matching rules follow Zed's
//! `ProcessExecCapability::allows` and `DownloadFileCapability::allows`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

/// The parts of `extension.toml` the host uses.
#[derive(Debug, Deserialize)]
pub struct Manifest {
    pub id: String,
    pub name: String,
    pub version: String,
    pub schema_version: u32,
    pub description: Option<String>,
    pub repository: Option<String>,
    #[serde(default)]
    pub authors: Vec<String>,
    #[serde(default)]
    pub language_servers: BTreeMap<String, LanguageServerEntry>,
    #[serde(default)]
    pub context_servers: BTreeMap<String, toml::Table>,
    #[serde(default)]
    pub slash_commands: BTreeMap<String, SlashCommandEntry>,
    #[serde(default)]
    pub capabilities: Vec<Capability>,
}

#[derive(Debug, Deserialize)]
pub struct LanguageServerEntry {
    pub name: Option<String>,
    #[serde(default)]
    pub languages: Vec<String>,
}

#[derive(Debug, Deserialize)]
pub struct SlashCommandEntry {
    pub description: String,
    #[serde(default)]
    pub requires_argument: bool,
}

/// One `[[capabilities]]` entry (or one granted by the user).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind")]
pub enum Capability {
    #[serde(rename = "process:exec")]
    ProcessExec { command: String, args: Vec<String> },
    #[serde(rename = "download_file")]
    DownloadFile { host: String, path: Vec<String> },
    /// Weft installs no npm package; the entry is only recognised.
    #[serde(rename = "npm:install")]
    NpmInstall {},
}

impl Manifest {
    pub fn read(path: &Path) -> Manifest {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is invalid: {e}", path.display()))
    }
}

impl Capability {
    /// What Zed grants when the user restricts nothing.
    pub fn zed_defaults() -> Vec<Capability> {
        vec![
            Capability::ProcessExec {
                command: "*".into(),
                args: vec!["**".into()],
            },
            Capability::DownloadFile {
                host: "*".into(),
                path: vec!["**".into()],
            },
            Capability::NpmInstall {},
        ]
    }

    pub fn allows_exec(&self, command: &str, args: &[String]) -> bool {
        match self {
            Capability::ProcessExec {
                command: pattern,
                args: arg_patterns,
            } => (pattern == "*" || pattern == command) && segments_match(arg_patterns, args),
            _ => false,
        }
    }

    pub fn allows_download(&self, url: &str) -> bool {
        let Capability::DownloadFile { host, path } = self else {
            return false;
        };
        let Some((url_host, url_path)) = split_url(url) else {
            return false;
        };
        (host == "*" || *host == url_host) && segments_match(path, &url_path)
    }
}

/// Zed's pattern rule: `*` matches one segment, a final `**` any rest, and
/// otherwise the counts must agree.
fn segments_match(patterns: &[String], values: &[String]) -> bool {
    for (index, pattern) in patterns.iter().enumerate() {
        if pattern == "**" {
            return true;
        }
        let Some(value) = values.get(index) else {
            return false;
        };
        if pattern != "*" && pattern != value {
            return false;
        }
    }
    patterns.len() >= values.len()
}

/// `https://host/a/b?q` → (`host`, [`a`, `b`]), as `Url::host_str` and
/// `Url::path_segments` give them.
fn split_url(url: &str) -> Option<(String, Vec<String>)> {
    let rest = url.split_once("://")?.1;
    let rest = rest.split(['?', '#']).next()?;
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = authority.rsplit('@').next()?.split(':').next()?;
    Some((
        host.to_ascii_lowercase(),
        path.split('/').map(String::from).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exec_patterns_follow_zed() {
        let capability = Capability::ProcessExec {
            command: "*".into(),
            args: strings(&["query", "*", "**"]),
        };
        assert!(capability.allows_exec("/bin/weft", &strings(&["query", "backlinks"])));
        assert!(capability.allows_exec("weft", &strings(&["query", "graph", "--depth", "2"])));
        assert!(!capability.allows_exec("weft", &strings(&["query"])));
        assert!(!capability.allows_exec("weft", &strings(&["lsp", "x"])));
        let exact = Capability::ProcessExec {
            command: "ls".into(),
            args: strings(&["-la"]),
        };
        assert!(exact.allows_exec("ls", &strings(&["-la"])));
        assert!(!exact.allows_exec("ls", &strings(&["-la", "/"])));
    }

    #[test]
    fn download_patterns_follow_zed() {
        let capability = Capability::DownloadFile {
            host: "github.com".into(),
            path: strings(&["o", "r", "releases", "download", "**"]),
        };
        assert!(capability.allows_download("https://github.com/o/r/releases/download/v1/a.tar.gz"));
        assert!(!capability.allows_download("https://github.com/o/other/releases/download/v1/a"));
        assert!(!capability.allows_download("https://example.com/o/r/releases/download/v1/a"));
    }
}
