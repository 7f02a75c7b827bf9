//! `fetch` against a local HTTP server serving a tiny model folder as
//! Hugging Face lays it out (`/{id}/resolve/{revision}/{file}`), with a
//! manifest pinned by the test: a good copy, a truncated one, a wrong
//! checksum, a body past its pinned size, a redirect.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::fetch::{FetchError, Progress, fetch};
use crate::pinned::{PinnedFile, PinnedModel};
use crate::tiny::write_model;
use crate::{Model, pinned};

const ID: &str = "weft-tests/tiny";
const REVISION: &str = "0123456789abcdef0123456789abcdef01234567";
const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// How the server answers one path.
#[derive(Clone)]
enum Reply {
    /// The bytes, with their true `Content-Length`.
    Body(Vec<u8>),
    /// `Content-Length` says `claimed`, then only `bytes` are sent and the
    /// connection is closed.
    Short { bytes: Vec<u8>, claimed: usize },
    /// The bytes with no `Content-Length`, ended by closing the connection.
    Unsized(Vec<u8>),
    /// A `302` to another path of the same server.
    Redirect(String),
}

/// A one-thread HTTP/1.1 server on 127.0.0.1 answering GETs from a table
/// (404 for the rest), one connection at a time, until the test ends.
struct Server {
    base: String,
    served: Arc<Mutex<Vec<String>>>,
}

impl Server {
    fn start(replies: HashMap<String, Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let served = Arc::new(Mutex::new(Vec::new()));
        let log = served.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let _ = answer(stream, &replies, &log);
            }
        });
        Server { base, served }
    }
}

fn answer(
    mut stream: TcpStream,
    replies: &HashMap<String, Reply>,
    log: &Mutex<Vec<String>>,
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
    let path = request.split(' ').nth(1).unwrap_or("").to_string();
    log.lock().unwrap().push(path.clone());
    let head = |status: &str, length: Option<usize>, extra: &str| {
        let length = length
            .map(|n| format!("Content-Length: {n}\r\n"))
            .unwrap_or_default();
        format!("HTTP/1.1 {status}\r\n{length}{extra}Connection: close\r\n\r\n")
    };
    match replies.get(&path) {
        Some(Reply::Body(bytes)) => {
            stream.write_all(head("200 OK", Some(bytes.len()), "").as_bytes())?;
            stream.write_all(bytes)?;
        }
        Some(Reply::Short { bytes, claimed }) => {
            stream.write_all(head("200 OK", Some(*claimed), "").as_bytes())?;
            stream.write_all(bytes)?;
        }
        Some(Reply::Unsized(bytes)) => {
            stream.write_all(head("200 OK", None, "").as_bytes())?;
            stream.write_all(bytes)?;
        }
        Some(Reply::Redirect(to)) => {
            let location = format!("Location: {to}\r\n");
            stream.write_all(head("302 Found", Some(0), &location).as_bytes())?;
        }
        None => stream.write_all(head("404 Not Found", Some(0), "").as_bytes())?,
    }
    stream.flush()
}

fn url_path(file: &str) -> String {
    format!("/{ID}/resolve/{REVISION}/{file}")
}

/// A tiny model's files, and the manifest pinning them.
struct Published {
    bytes: Vec<(&'static str, Vec<u8>)>,
    hashes: Vec<String>,
}

impl Published {
    fn new() -> Published {
        let dir = tempfile::tempdir().unwrap();
        write_model(dir.path(), &[("car", 0), ("automobile", 0), ("tree", 1)], 4).unwrap();
        let bytes: Vec<_> = FILES
            .iter()
            .map(|f| (*f, std::fs::read(dir.path().join(f)).unwrap()))
            .collect();
        let hashes = bytes
            .iter()
            .map(|(_, b)| {
                Sha256::digest(b)
                    .iter()
                    .map(|x| format!("{x:02x}"))
                    .collect()
            })
            .collect();
        Published { bytes, hashes }
    }

    fn files(&self) -> Vec<PinnedFile<'_>> {
        self.bytes
            .iter()
            .zip(&self.hashes)
            .map(|((name, bytes), sha256)| PinnedFile {
                name,
                size: bytes.len() as u64,
                sha256,
            })
            .collect()
    }

    /// Every file served as published, except `changed`.
    fn replies(&self, changed: &[(&str, Reply)]) -> HashMap<String, Reply> {
        let mut replies: HashMap<String, Reply> = self
            .bytes
            .iter()
            .map(|(name, bytes)| (url_path(name), Reply::Body(bytes.clone())))
            .collect();
        for (name, reply) in changed {
            replies.insert(url_path(name), reply.clone());
        }
        replies
    }

    fn of(&self, name: &str) -> Vec<u8> {
        self.bytes
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap()
            .1
            .clone()
    }
}

fn model<'a>(files: &'a [PinnedFile<'a>]) -> PinnedModel<'a> {
    PinnedModel {
        id: ID,
        revision: REVISION,
        files,
    }
}

/// Fetches through a server answering `replies` into a fresh cache; the
/// result, the progress told and the cache's entries afterwards.
fn run(
    published: &Published,
    replies: HashMap<String, Reply>,
) -> (
    Result<std::path::PathBuf, FetchError>,
    Vec<Progress>,
    tempfile::TempDir,
) {
    let server = Server::start(replies);
    let cache = tempfile::tempdir().unwrap();
    let files = published.files();
    let mut told = Vec::new();
    let got = fetch(&model(&files), cache.path(), &server.base, &mut |p| {
        told.push(p);
        ControlFlow::Continue(())
    });
    (got, told, cache)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A fetch that failed left nothing in the cache: no folder of the model,
/// complete-looking or not, and no download folder.
fn assert_nothing_kept(cache: &Path) {
    assert_eq!(entries(cache), Vec::<String>::new(), "left in the cache");
}

#[test]
fn a_good_download_is_verified_put_in_place_and_loads() {
    let published = Published::new();
    let (got, told, cache) = run(&published, published.replies(&[]));
    let folder = got.unwrap();
    let files = published.files();
    let pinned = model(&files);
    assert_eq!(
        folder,
        cache
            .path()
            .join("weft-tests--tiny@".to_string() + REVISION)
    );
    assert_eq!(entries(cache.path()), vec![pinned.folder_name()]);
    assert_eq!(entries(&folder), {
        let mut f = FILES.map(String::from).to_vec();
        f.sort();
        f
    });
    assert!(pinned.is_present(cache.path()));
    let total = pinned.total_size();
    assert_eq!(told.first(), Some(&Progress { done: 0, total }));
    assert_eq!(told.last(), Some(&Progress { done: total, total }));
    assert!(told.windows(2).all(|w| w[0].done <= w[1].done));
    let loaded = Model::load(&folder).unwrap();
    assert_eq!(loaded.dim, 4);
}

#[test]
fn a_model_already_fetched_is_used_without_the_network() {
    let published = Published::new();
    let (got, _, cache) = run(&published, published.replies(&[]));
    let folder = got.unwrap();
    // A server that knows nothing: the folder is used as it is.
    let (again, server) = fetch_again(&published, cache.path(), HashMap::new());
    assert_eq!(again, folder);
    assert!(server.served.lock().unwrap().is_empty());
}

/// Fetches again into `cache`, from a new server answering `replies`.
fn fetch_again(
    published: &Published,
    cache: &Path,
    replies: HashMap<String, Reply>,
) -> (std::path::PathBuf, Server) {
    let server = Server::start(replies);
    let files = published.files();
    let got = fetch(&model(&files), cache, &server.base, &mut |_| {
        ControlFlow::Continue(())
    });
    (got.unwrap(), server)
}

#[test]
fn a_truncated_body_fails_and_keeps_nothing() {
    let published = Published::new();
    let full = published.of("model.safetensors");
    let short = Reply::Short {
        bytes: full[..full.len() / 2].to_vec(),
        claimed: full.len(),
    };
    let (got, _, cache) = run(
        &published,
        published.replies(&[("model.safetensors", short)]),
    );
    let err = got.unwrap_err();
    assert!(err.0.contains("model.safetensors"), "{err}");
    assert!(
        err.0.contains("broke off") || err.0.contains("truncated"),
        "{err}"
    );
    assert!(err.0.contains("nothing was kept"), "{err}");
    assert_nothing_kept(cache.path());
}

#[test]
fn a_body_ended_early_without_a_length_fails_and_keeps_nothing() {
    let published = Published::new();
    let full = published.of("tokenizer.json");
    let cut = Reply::Unsized(full[..full.len() - 1].to_vec());
    let (got, _, cache) = run(&published, published.replies(&[("tokenizer.json", cut)]));
    let err = got.unwrap_err();
    assert!(err.0.contains("tokenizer.json"), "{err}");
    assert!(err.0.contains("truncated"), "{err}");
    assert_nothing_kept(cache.path());
}

#[test]
fn a_wrong_checksum_fails_and_keeps_nothing() {
    let published = Published::new();
    let mut changed = published.of("model.safetensors");
    let last = changed.len() - 1;
    changed[last] ^= 0x55;
    let (got, _, cache) = run(
        &published,
        published.replies(&[("model.safetensors", Reply::Body(changed))]),
    );
    let err = got.unwrap_err();
    assert!(err.0.contains("model.safetensors"), "{err}");
    assert!(err.0.contains("SHA-256"), "{err}");
    assert!(err.0.contains("refused"), "{err}");
    assert_nothing_kept(cache.path());
}

#[test]
fn a_body_larger_than_pinned_is_refused() {
    let published = Published::new();
    let mut longer = published.of("config.json");
    longer.extend_from_slice(b"          ");
    // Announced: refused before a byte is read.
    let (got, _, cache) = run(
        &published,
        published.replies(&[("config.json", Reply::Body(longer.clone()))]),
    );
    let err = got.unwrap_err();
    assert!(err.0.contains("more than its pinned"), "{err}");
    assert_nothing_kept(cache.path());
    // Not announced: refused once past the pinned size.
    let (got, _, cache) = run(
        &published,
        published.replies(&[("config.json", Reply::Unsized(longer))]),
    );
    let err = got.unwrap_err();
    assert!(err.0.contains("longer than its pinned"), "{err}");
    assert_nothing_kept(cache.path());
}

#[test]
fn a_missing_file_names_the_status_and_keeps_nothing() {
    let published = Published::new();
    let mut replies = published.replies(&[]);
    replies.remove(&url_path("tokenizer.json"));
    let (got, _, cache) = run(&published, replies);
    let err = got.unwrap_err();
    assert!(err.0.contains("HTTP status 404"), "{err}");
    assert!(err.0.contains(&url_path("tokenizer.json")), "{err}");
    assert_nothing_kept(cache.path());
}

#[test]
fn redirects_are_followed_as_hugging_face_sends_large_files_elsewhere() {
    let published = Published::new();
    let mut replies =
        published.replies(&[("model.safetensors", Reply::Redirect("/cdn/blob".into()))]);
    replies.insert(
        "/cdn/blob".into(),
        Reply::Body(published.of("model.safetensors")),
    );
    let (got, _, _cache) = run(&published, replies);
    assert!(got.is_ok(), "{got:?}");
    // A redirect loop is given up.
    let replies = published.replies(&[(
        "model.safetensors",
        Reply::Redirect(url_path("model.safetensors")),
    )]);
    let (got, _, cache) = run(&published, replies);
    assert!(got.unwrap_err().0.contains("model.safetensors"));
    assert_nothing_kept(cache.path());
}

#[test]
fn an_incomplete_folder_is_not_taken_for_a_fetched_one() {
    let published = Published::new();
    let (got, _, cache) = run(&published, published.replies(&[]));
    let folder = got.unwrap();
    std::fs::remove_file(folder.join("tokenizer.json")).unwrap();
    let files = published.files();
    assert!(!model(&files).is_present(cache.path()));
    let (again, _server) = fetch_again(&published, cache.path(), published.replies(&[]));
    assert_eq!(again, folder);
    assert!(model(&files).is_present(cache.path()));
}

#[test]
fn a_fetch_stopped_by_its_caller_keeps_nothing() {
    let published = Published::new();
    let server = Server::start(published.replies(&[]));
    let cache = tempfile::tempdir().unwrap();
    let files = published.files();
    let err = fetch(&model(&files), cache.path(), &server.base, &mut |_| {
        ControlFlow::Break(())
    })
    .unwrap_err();
    assert!(err.0.contains("stopped"), "{err}");
    assert_nothing_kept(cache.path());
}

#[test]
fn the_pinned_table_is_well_formed() {
    for m in pinned::PINNED {
        assert!(pinned::looks_like_id(m.id), "{}", m.id);
        assert_eq!(m.revision.len(), 40);
        assert!(m.revision.chars().all(|c| c.is_ascii_hexdigit()));
        for f in m.files {
            assert_eq!(f.sha256.len(), 64);
            assert!(f.sha256.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
            assert!(f.size > 0);
        }
        assert_eq!(pinned::pinned(m.id), Some(m));
        assert!(!m.folder_name().contains('/'));
    }
    assert!(pinned::pinned("sentence-transformers/all-MiniLM-L6-v2").is_some());
    assert!(pinned::looks_like_id("BAAI/bge-small-en-v1.5"));
    for not_id in [
        "models/",
        "/abs/path",
        "~/models/x",
        "a/b/c",
        "../x",
        "x",
        "./a",
    ] {
        assert!(!pinned::looks_like_id(not_id), "{not_id}");
    }
}
