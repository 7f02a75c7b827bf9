//! Writes the fuzz targets' seed corpora, `fuzz/corpus/<target>/seed-*`,
//! from the example vault (`examples/vault/`) and the inline fixtures of
//! the sidecar's tests (their string literals: notes, `//- /path` vaults,
//! queries). Run it again when fixtures change:
//!
//! ```sh
//! cargo run -p weft-props --example seeds
//! ```
//!
//! Each target gets at most [`PER_TARGET`] inputs of under [`MAX_SEED`]
//! bytes. Choices after a text (see `weft-props`' `input.rs`) are drawn
//! from a generator seeded by the text, and files are named by a hash of
//! their content, so a run writes the same files. Seeds of an earlier run
//! are replaced; inputs a campaign merged in (other names) stay.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use weft_vault::parse_note;
use weft_workspace::io::snapshot::{EntryRef, SnapshotRef, Stamp, encode};

const PER_TARGET: usize = 40;
const MAX_SEED: usize = 8 << 10;

/// Test files whose string literals are fixtures.
const FIXTURE_SOURCES: &[&str] = &[
    "sidecar/vault/src/tests",
    "sidecar/search/src/tests.rs",
    "sidecar/lsp/src/tests",
    "sidecar/lsp/src/convert.rs",
];
/// Test files whose short string literals are queries.
const QUERY_SOURCES: &[&str] = &[
    "sidecar/search/src/query/mod.rs",
    "sidecar/search/src/tests.rs",
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let examples = example_vault(&root.join("examples/vault"));
    let mut notes: Vec<String> = examples.iter().map(|(_, text)| text.clone()).collect();
    let mut vaults: Vec<String> = vec![as_fixture(&examples)];
    let mut literals = Vec::new();
    for source in FIXTURE_SOURCES {
        for file in rust_files(&root.join(source)) {
            literals.extend(string_literals(
                &fs::read_to_string(file).expect("a test file"),
            ));
        }
    }
    for literal in &literals {
        if literal.contains("//- /") {
            vaults.push(literal.clone());
            notes.extend(
                weft_vault::fixture::files(literal)
                    .into_iter()
                    .map(|f| f.text),
            );
        } else if literal.contains('\n') || !literal.is_ascii() {
            notes.push(literal.clone());
        }
    }
    let notes = distinct(notes);
    let vaults = distinct(vaults);
    let mut queries = Vec::new();
    for source in QUERY_SOURCES {
        let text = fs::read_to_string(root.join(source)).expect("a query source");
        queries.extend(
            string_literals(&text)
                .into_iter()
                .filter(|q| !q.trim().is_empty() && q.len() < 80 && !q.contains('\n')),
        );
    }

    let with_choices = |texts: &[String], len: usize| -> Vec<Vec<u8>> {
        texts.iter().map(|t| with_tail(t, len)).collect()
    };
    let has =
        |needles: &'static [&'static str]| move |t: &&String| needles.iter().any(|n| t.contains(n));
    let pick = |filter: &dyn Fn(&&String) -> bool| -> Vec<String> {
        notes.iter().filter(|t| filter(t)).cloned().collect()
    };
    let corpus = root.join("fuzz/corpus");
    write(
        &corpus.join("parse_note"),
        notes.iter().map(|t| t.as_bytes().to_vec()).collect(),
    );
    write(
        &corpus.join("headings"),
        with_choices(&pick(&has(&["# "])), 24),
    );
    write(&corpus.join("text_edit"), with_choices(&notes, 40));
    write(
        &corpus.join("frontmatter_edit"),
        with_choices(&pick(&has(&["---\n", ": "])), 40),
    );
    write(
        &corpus.join("complete_context"),
        pick(&|t| t.len() < 4 << 10 && has(&["[[", "](", "#"])(t))
            .into_iter()
            .map(String::into_bytes)
            .collect(),
    );
    write(
        &corpus.join("positions"),
        pick(&|t| !t.is_ascii() || t.contains('\r'))
            .into_iter()
            .map(String::into_bytes)
            .collect(),
    );
    let renames: Vec<Vec<u8>> = vaults
        .iter()
        .flat_map(|v| (0..3).map(move |n| with_tail(&format!("{v}{}", "\n".repeat(n)), 16)))
        .collect();
    write(&corpus.join("rename"), renames);
    write(
        &corpus.join("search_query"),
        distinct(queries)
            .into_iter()
            .map(String::into_bytes)
            .collect(),
    );
    write(&corpus.join("wire_framing"), frames(&notes));
    write(&corpus.join("snapshot_decode"), snapshots(&vaults));
}

/// The example vault's files: (vault path, text), notes and attachments.
fn example_vault(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).expect("the example vault") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = fs::read_to_string(&path) {
                let rel = path
                    .strip_prefix(dir)
                    .expect("inside")
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, text));
            }
        }
    }
    out.sort();
    out
}

/// Files as an inline fixture.
fn as_fixture(files: &[(String, String)]) -> String {
    files
        .iter()
        .map(|(path, text)| format!("//- /{path}\n{text}"))
        .collect()
}

/// The `.rs` files of a file or folder, sorted.
fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files: Vec<PathBuf> = fs::read_dir(path)
        .expect("a source folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

/// The string literals of Rust source, escapes read, raw strings as they
/// are; not the expected outputs of `expect![[…]]` snapshots.
fn string_literals(source: &str) -> Vec<String> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &source[at..];
        if rest.starts_with("//") {
            at += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("'\"'") || rest.starts_with("'\\\"'") {
            // The character `"`, not a string.
            at += rest[1..].find('\'').map_or(1, |i| i + 2);
        } else if let Some(hashes) = raw_start(rest) {
            let open = 2 + hashes;
            let close = format!("\"{}", "#".repeat(hashes));
            let end = rest[open..].find(&close).map_or(rest.len(), |i| open + i);
            if !source[..at].trim_end().ends_with("expect![[") {
                out.push(rest[open..end].to_string());
            }
            at += (end + close.len()).min(rest.len());
        } else if let Some(inner) = rest.strip_prefix('"') {
            let (literal, len) = unescape(inner);
            out.push(literal);
            at += 1 + len;
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// `r"`, `r#"`, … at the start of `s` (not inside a name): the number of `#`.
fn raw_start(s: &str) -> Option<usize> {
    let hashes = s
        .strip_prefix('r')?
        .bytes()
        .take_while(|&b| b == b'#')
        .count();
    s[1 + hashes..].starts_with('"').then_some(hashes)
}

/// A string literal's text up to its closing quote, and the bytes read.
fn unescape(s: &str) -> (String, usize) {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, i + 1),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 't')) => out.push('\t'),
                Some((_, '0')) => out.push('\0'),
                Some((_, 'u')) => {
                    let hex: String = chars
                        .by_ref()
                        .map(|(_, c)| c)
                        .skip(1)
                        .take_while(|&c| c != '}')
                        .collect();
                    out.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
                }
                // A line continuation: the line break and the next line's
                // leading white space are not part of the string.
                Some((_, '\n')) => {
                    let mut ahead = chars.clone().peekable();
                    while ahead.peek().is_some_and(|(_, c)| c.is_whitespace()) {
                        ahead.next();
                        chars.next();
                    }
                }
                Some((_, other)) => out.push(other),
                None => {}
            },
            c => out.push(c),
        }
    }
    (out, s.len())
}

/// Texts once each, in their first order, none too large.
fn distinct(texts: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    texts
        .into_iter()
        .filter(|t| !t.is_empty() && t.len() < MAX_SEED - 64 && seen.insert(t.clone()))
        .collect()
}

/// `text`, a NUL, and `len` bytes of choices drawn from a generator seeded
/// by the text.
fn with_tail(text: &str, len: usize) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(fnv(text.as_bytes()));
    let mut out = text.as_bytes().to_vec();
    out.push(0);
    out.extend((0..len).map(|_| rng.u8(..)));
    out
}

/// LSP and MCP streams carrying notes in JSON-RPC messages, under each
/// limit and a few read buffers (the first byte picks them).
fn frames(notes: &[String]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (n, note) in notes.iter().take(10).enumerate() {
        let open = serde_json::json!({
            "jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": { "textDocument": { "uri": "file:///v/a.md", "text": note } }
        })
        .to_string();
        let call = serde_json::json!({
            "jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": { "name": "write_note", "arguments": { "path": "a.md", "content": note } }
        })
        .to_string();
        let ping = format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"ping"}}"#);
        let knobs = (n as u8) << 1;
        let mut lsp = vec![knobs];
        for body in [&ping, &open] {
            lsp.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).bytes());
        }
        out.push(lsp);
        out.push(
            [
                vec![knobs | 1],
                format!("{ping}\n\n{call}\r\n{ping}").into_bytes(),
            ]
            .concat(),
        );
    }
    out
}

/// Snapshots of the vaults, as whole files (first byte 0) and as payloads
/// (first byte 1: the target puts the header around them).
fn snapshots(vaults: &[String]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (n, vault) in vaults.iter().enumerate() {
        let files = weft_vault::fixture::files(vault);
        let notes: Vec<_> = files
            .iter()
            .filter(|f| weft_vault::note::is_note_path(&f.path))
            .map(|f| parse_note(&f.path, f.text.as_bytes()))
            .collect();
        let stamp = Stamp {
            size: n as u64,
            mtime_ns: 1_700_000_000_000_000_000 + n as i64,
            racy: n % 2 == 0,
        };
        let file = encode(&SnapshotRef {
            build: weft_props::SNAPSHOT_BUILD,
            root: weft_props::SNAPSHOT_ROOT,
            notes: notes
                .iter()
                .enumerate()
                .map(|(i, note)| EntryRef {
                    note,
                    stamp: (i % 3 != 0).then_some(stamp),
                })
                .collect(),
            attachments: files
                .iter()
                .map(|f| f.path.as_str())
                .filter(|p| !weft_vault::note::is_note_path(p))
                .collect(),
        })
        .expect("a snapshot encodes");
        out.push([&[0u8][..], &file].concat());
        out.push([&[1u8][..], &file[24..]].concat());
    }
    out
}

/// Replaces the `seed-*` files of `dir` with `inputs` (the first
/// [`PER_TARGET`] small ones, each once).
fn write(dir: &Path, inputs: Vec<Vec<u8>>) {
    fs::create_dir_all(dir).expect("a corpus folder");
    for entry in fs::read_dir(dir).expect("a corpus folder") {
        let path = entry.expect("an entry").path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("seed-"))
        {
            fs::remove_file(path).expect("an old seed removed");
        }
    }
    let mut seen = BTreeSet::new();
    let kept: Vec<Vec<u8>> = inputs
        .into_iter()
        .filter(|input| input.len() < MAX_SEED && seen.insert(input.clone()))
        .take(PER_TARGET)
        .collect();
    for input in &kept {
        fs::write(dir.join(format!("seed-{:016x}", fnv(input))), input).expect("a seed written");
    }
    let target = dir.file_name().unwrap_or_default().to_string_lossy();
    println!("fuzz/corpus/{target}: {} seeds", kept.len());
}

/// FNV-1a: a hash that stays the same across Rust versions.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
