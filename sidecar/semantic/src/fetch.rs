//! Fetching a pinned model into the user's cache, only when asked (`weft
//! model fetch`, or `[semantic] download = true`): each file from
//! `{mirror}/{id}/resolve/{revision}/{file}`, refused past its pinned size,
//! checked against its pinned size and SHA-256, kept only then.
//!
//! Everything is written in a hidden folder beside the cached one and
//! renamed into place once every file was verified, so a failed, truncated
//! or interrupted download never leaves a folder that looks complete; a
//! later run starts again from nothing. A mirror (`WEFT_MODEL_MIRROR`)
//! can serve the files but cannot change what is loaded.
//!
//! Blocking, no async runtime; knows HTTP and files, not the configuration
//! or the hub.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::pinned::{PinnedFile, PinnedModel};

/// The environment variable naming another server to fetch from (its
/// base URL: `http://127.0.0.1:8080`); what it serves is still verified.
pub const MIRROR_VAR: &str = "WEFT_MODEL_MIRROR";
/// Where pinned models come from by default.
pub const HUGGING_FACE: &str = "https://huggingface.co";

/// Hugging Face answers a file with a redirect to its storage (a CDN) for
/// large files; a few more are allowed, never a loop.
const MAX_REDIRECTS: u32 = 5;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Without a byte for this long, a download is given up.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
/// Progress is told at most once per this many bytes (and at each file's end).
const PROGRESS_STEP: u64 = 1 << 20;
/// A hidden download folder older than this was left by a process that
/// died; it is removed by the next fetch of the same model.
const STALE_PARTIAL: Duration = Duration::from_secs(24 * 3600);

/// Why a model could not be fetched; the message names the file, the URL
/// and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchError(pub String);

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FetchError {}

/// How far a fetch is: bytes verified or being received, of all files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
}

/// The base URL to fetch from: `WEFT_MODEL_MIRROR` when set, else Hugging
/// Face.
pub fn mirror() -> String {
    std::env::var(MIRROR_VAR)
        .ok()
        .map(|v| v.trim().trim_end_matches('/').to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| HUGGING_FACE.to_string())
}

/// Fetches `model` from `base` into `models_dir` (made when missing),
/// telling `progress` as bytes arrive (at least once per MiB; `Break`
/// stops the fetch); its folder once every file is in place and verified.
/// A model already present is not fetched again.
pub fn fetch(
    model: &PinnedModel<'_>,
    models_dir: &Path,
    base: &str,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<PathBuf, FetchError> {
    let folder = model.folder_in(models_dir);
    if model.is_present(models_dir) {
        return Ok(folder);
    }
    for file in model.files {
        if !is_plain_relative(file.name) {
            return Err(FetchError(format!(
                "{}: the file name {:?} is not a plain relative path",
                model.id, file.name
            )));
        }
    }
    fs::create_dir_all(models_dir).map_err(|e| {
        FetchError(format!(
            "cannot make the models folder {}: {e}",
            models_dir.display()
        ))
    })?;
    let prefix = format!(".{}.partial-", model.folder_name());
    remove_stale_partials(models_dir, &prefix);
    let partial = models_dir.join(format!(
        "{prefix}{}-{}",
        std::process::id(),
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    fs::create_dir(&partial).map_err(|e| {
        FetchError(format!(
            "cannot make the download folder {}: {e}",
            partial.display()
        ))
    })?;
    let fetched = fetch_into(model, base, &partial, progress)
        .and_then(|()| install(model, models_dir, &partial, &folder));
    if fetched.is_err() {
        let _ = fs::remove_dir_all(&partial);
    }
    fetched.map(|()| folder)
}

/// Every file of `model` into `partial`, each verified.
fn fetch_into(
    model: &PinnedModel<'_>,
    base: &str,
    partial: &Path,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<(), FetchError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(CONNECT_TIMEOUT))
        .timeout_recv_response(Some(READ_TIMEOUT))
        .timeout_per_read(Some(READ_TIMEOUT))
        .max_redirects(MAX_REDIRECTS)
        .user_agent(concat!("weft/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let total = model.total_size();
    let mut done = 0;
    if progress(Progress { done, total }).is_break() {
        return Err(FetchError(format!("{}: the fetch was stopped", model.id)));
    }
    for file in model.files {
        let url = format!(
            "{}/{}/resolve/{}/{}",
            base.trim_end_matches('/'),
            model.id,
            model.revision,
            file.name
        );
        let target = partial.join(file.name);
        download(&agent, &url, file, &target, &mut |received| {
            progress(Progress {
                done: done + received,
                total,
            })
        })
        .map_err(|why| {
            FetchError(format!(
                "{}: {} ({url}) {why}; nothing was kept, run the fetch again",
                model.id, file.name
            ))
        })?;
        done += file.size;
    }
    Ok(())
}

/// One file to `target` through `target.part`: refused past its pinned
/// size, renamed only once its size and SHA-256 match. Errors say what
/// went wrong in words that follow the file's name.
fn download(
    agent: &ureq::Agent,
    url: &str,
    file: &PinnedFile<'_>,
    target: &Path,
    progress: &mut dyn FnMut(u64) -> ControlFlow<()>,
) -> Result<(), String> {
    let mut response = agent.get(url).call().map_err(|e| match e {
        ureq::Error::StatusCode(code) => format!("was answered with HTTP status {code}"),
        other => format!("could not be fetched: {other}"),
    })?;
    if let Some(length) = response.body().content_length()
        && length > file.size
    {
        return Err(format!(
            "is announced as {length} bytes, more than its pinned {} bytes: refused",
            file.size
        ));
    }
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("cannot be written: {e}"))?;
    }
    let mut part_name = target.as_os_str().to_owned();
    part_name.push(".part");
    let part = PathBuf::from(part_name);
    let mut out = File::create(&part).map_err(|e| format!("cannot be written: {e}"))?;
    let mut reader = response
        .body_mut()
        .with_config()
        .limit(file.size.saturating_add(1))
        .reader();
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut received: u64 = 0;
    let mut told: u64 = 0;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(format!(
                    "broke off after {received} of its pinned {} bytes (truncated): {e}",
                    file.size
                ));
            }
        };
        received += n as u64;
        if received > file.size {
            return Err(format!(
                "is longer than its pinned {} bytes: refused",
                file.size
            ));
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n])
            .map_err(|e| format!("cannot be written: {e}"))?;
        if received - told >= PROGRESS_STEP {
            told = received;
            if progress(received).is_break() {
                return Err("was stopped".into());
            }
        }
    }
    if received != file.size {
        return Err(format!(
            "ended after {received} of its pinned {} bytes (truncated)",
            file.size
        ));
    }
    let digest: String = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if !digest.eq_ignore_ascii_case(file.sha256) {
        return Err(format!(
            "has SHA-256 {digest}, not its pinned {}: refused",
            file.sha256
        ));
    }
    out.sync_all()
        .map_err(|e| format!("cannot be written: {e}"))?;
    drop(out);
    fs::rename(&part, target).map_err(|e| format!("cannot be put in place: {e}"))?;
    let _ = progress(received);
    Ok(())
}

/// The verified `partial` folder becomes `folder`. An incomplete folder of
/// that name (files deleted by hand) is replaced; one that another fetch
/// completed meanwhile is kept.
fn install(
    model: &PinnedModel<'_>,
    models_dir: &Path,
    partial: &Path,
    folder: &Path,
) -> Result<(), FetchError> {
    sync_dir(partial);
    if folder.exists() {
        if model.is_present(models_dir) {
            let _ = fs::remove_dir_all(partial);
            return Ok(());
        }
        fs::remove_dir_all(folder).map_err(|e| {
            FetchError(format!(
                "{}: the incomplete folder {} cannot be replaced: {e}",
                model.id,
                folder.display()
            ))
        })?;
    }
    match fs::rename(partial, folder) {
        Ok(()) => {
            sync_dir(models_dir);
            Ok(())
        }
        Err(_) if model.is_present(models_dir) => {
            let _ = fs::remove_dir_all(partial);
            Ok(())
        }
        Err(e) => Err(FetchError(format!(
            "{}: the verified files cannot be moved to {}: {e}",
            model.id,
            folder.display()
        ))),
    }
}

/// Makes a rename in `dir` durable where the platform allows.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Removes this model's download folders left (more than a day ago) by
/// fetches that died; a fetch running now is left alone.
fn remove_stale_partials(models_dir: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(models_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_PARTIAL);
        if stale && entry.file_name().to_string_lossy().starts_with(prefix) {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// A relative path of plain names (`a/b.json`), nothing that climbs out.
fn is_plain_relative(name: &str) -> bool {
    let path = Path::new(name);
    !name.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}
