//! `weft bench lsp DIR`: request latency of the language server on a vault,
//! measured as an editor sees it: the whole server in process over a pipe,
//! JSON-RPC framing and serialization included.
//!
//! It reports p50/p95/max for completion (typing `[[` and a few letters),
//! property completion in the frontmatter (a few letters of a key the
//! vault uses; the values of a key, nothing typed yet), definition,
//! references and hover (on links picked at random), workspace symbols (a
//! few letters of a note name), the time to the first answer and to a
//! loaded vault, and a floor (a request that does nothing). Timings are
//! printed, never asserted; answers are counted, so that an empty answer
//! is seen, not timed unnoticed. This module must not know the CLI.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fastrand::Rng;
use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::sync::oneshot;

use crate::index::Summary;
use tower_lsp_server::ls_types::Uri;
use weft_vault::note::is_note_path;
use weft_vault::parse_note;
use weft_wire::Framing;

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LspBenchOptions {
    /// Requests of each kind.
    pub samples: usize,
    pub seed: u64,
}

impl Default for LspBenchOptions {
    fn default() -> Self {
        LspBenchOptions {
            samples: 300,
            seed: 1,
        }
    }
}

/// Latencies in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub struct LspBenchReport {
    pub vault: String,
    pub notes: usize,
    pub cores: usize,
    /// From sending `initialize` to its answer.
    pub initialize_ms: f64,
    /// From `initialized` to the vault loaded (requests are answered
    /// meanwhile, from what is indexed).
    pub loaded_ms: f64,
    /// ... and to the backlink counts that rank completions and the line
    /// indexes of every note (for references to much-linked notes).
    pub ranked_ms: f64,
    /// Resident memory then (server and this client, one process), MB.
    pub rss_mb: f64,
    /// Of which the cache of line indexes, MB.
    pub position_cache_mb: f64,
    /// A request that does nothing: the cost of the pipe and JSON-RPC.
    pub floor: Summary,
    pub completion: Summary,
    /// A property's name typed at the start of a frontmatter line.
    pub property_keys: Summary,
    /// A property's value asked for after `key: `.
    pub property_values: Summary,
    pub definition: Summary,
    pub references: Summary,
    pub hover: Summary,
    pub workspace_symbols: Summary,
    /// References to the most-linked note seen in the samples, and a rename
    /// of it (the edits computed, not applied), with how many each found.
    pub hub_references: Summary,
    pub hub_rename: Summary,
    pub hub_backlinks: usize,
    pub hub_edits: usize,
    /// Load averages before and after the run: the machine is shared, and
    /// figures taken under load are longer.
    pub load_before: String,
    pub load_after: String,
    /// Average items per answer, to show answers are not empty.
    pub completion_items: f64,
    pub property_key_items: f64,
    pub property_value_items: f64,
    /// Property completions answered with no item (each should have some).
    pub property_empty_answers: usize,
    /// The keys whose values were asked for, in turn.
    pub property_value_keys: Vec<String>,
    pub references_found: f64,
}

/// Targets from PRODUCT.md for completion, definition, references and
/// hover (p95, ms): at 10k notes, and at 170k (used past 20k notes).
pub const TARGET_P95_MS: f64 = 10.0;
pub const TARGET_P95_LARGE_MS: f64 = 30.0;
/// Target for property key and value completion (issue 42), at any size.
pub const TARGET_PROPERTY_P95_MS: f64 = 10.0;

/// The keys whose values are asked for, those the vault has in turn: text
/// with few values, tags, a link, a date, a checkbox, a list, a number.
const VALUE_KEYS: &[&str] = &[
    "status", "tags", "related", "due", "draft", "topics", "rating", "author",
];

type Writer = Arc<tokio::sync::Mutex<tokio::io::WriteHalf<tokio::io::DuplexStream>>>;
type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Vec<u8>>>>>;

/// A minimal JSON-RPC client of the server.
struct Client {
    writer: Writer,
    pending: Pending,
    next: i64,
}

impl Client {
    async fn send(&self, message: &Value) -> io::Result<()> {
        let body = serde_json::to_string(message)?;
        let mut w = self.writer.lock().await;
        Framing::Lsp.write(&mut *w, body.as_bytes()).await
    }

    /// Sends a request; returns the raw response (parsed by the caller,
    /// outside any timing).
    async fn request_raw(&mut self, method: &str, params: Value) -> io::Result<Vec<u8>> {
        self.next += 1;
        let id = self.next;
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .insert(id, tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        tokio::time::timeout(Duration::from_secs(120), rx)
            .await
            .map_err(|_| io::Error::other(format!("no answer to {method}")))?
            .map_err(|_| io::Error::other("server gone"))
    }

    async fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        let raw = self.request_raw(method, params).await?;
        result_of(method, &raw)
    }

    async fn notify(&self, method: &str, params: Value) -> io::Result<()> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Times one request, in wall-clock milliseconds (the response is parsed
    /// after the clock stops).
    async fn timed(&mut self, method: &str, params: Value) -> io::Result<(f64, Value)> {
        let start = Instant::now();
        let raw = self.request_raw(method, params).await?;
        let wall = start.elapsed().as_secs_f64() * 1000.0;
        Ok((wall, result_of(method, &raw)?))
    }
}

/// The `result` of a raw response, or its error.
fn result_of(method: &str, raw: &[u8]) -> io::Result<Value> {
    let mut response: Value = serde_json::from_slice(raw)?;
    if let Some(error) = response.get("error") {
        return Err(io::Error::other(format!("{method}: {error}")));
    }
    Ok(response["result"].take())
}

/// What the read loop looks at in a message; the rest is skipped unparsed.
#[derive(serde::Deserialize)]
struct Envelope {
    id: Option<Value>,
    method: Option<String>,
}

/// The 1-, 5- and 15-minute load averages (Linux), to judge the figures.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Reads the server's messages: answers go to whoever waits for them,
/// requests get a null answer, notifications are dropped.
async fn read_loop(
    read: tokio::io::ReadHalf<tokio::io::DuplexStream>,
    writer: Writer,
    pending: Pending,
) {
    let mut reader = BufReader::new(read);
    while let Ok(Some(body)) = Framing::Lsp.read(&mut reader, usize::MAX).await {
        let Ok(envelope) = serde_json::from_slice::<Envelope>(&body) else {
            continue;
        };
        match (envelope.method.is_some(), envelope.id) {
            (false, Some(id)) => {
                let sender = pending
                    .lock()
                    .ok()
                    .and_then(|mut p| p.remove(&id.as_i64().unwrap_or(-1)));
                if let Some(sender) = sender {
                    let _ = sender.send(body);
                }
            }
            (true, Some(id)) => {
                let answer = json!({"jsonrpc": "2.0", "id": id, "result": null});
                let mut w = writer.lock().await;
                let _ = Framing::Lsp
                    .write(&mut *w, answer.to_string().as_bytes())
                    .await;
            }
            _ => {}
        }
    }
}

/// A place to ask about: a note, its text and a link in it.
struct Sample {
    uri: String,
    position: Value,
}

/// Runs the benchmark on the vault at `root`.
pub fn lsp_bench(root: &Path, options: &LspBenchOptions) -> io::Result<LspBenchReport> {
    let root = root.canonicalize()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run(&root, options))
}

async fn run(root: &Path, options: &LspBenchOptions) -> io::Result<LspBenchReport> {
    let load_before = load_average();
    let (client_side, server_side) = tokio::io::duplex(1 << 22);
    let (server_read, server_write) = tokio::io::split(server_side);
    tokio::spawn(weft_lsp::serve(
        server_read,
        server_write,
        Some(root.to_path_buf()),
    ));
    let (client_read, client_write) = tokio::io::split(client_side);
    let writer: Writer = Arc::new(tokio::sync::Mutex::new(client_write));
    let pending: Pending = Arc::default();
    tokio::spawn(read_loop(
        client_read,
        Arc::clone(&writer),
        Arc::clone(&pending),
    ));
    let mut client = Client {
        writer,
        pending,
        next: 0,
    };
    let root_uri =
        Uri::from_file_path(root).ok_or_else(|| io::Error::other("vault path is not a URI"))?;
    let (initialize_ms, _) = client
        .timed(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "capabilities": {
                    "general": {"positionEncodings": ["utf-8", "utf-16"]},
                    "workspace": {
                        "didChangeWatchedFiles": {"dynamicRegistration": true},
                        "workspaceEdit": {"documentChanges": true, "resourceOperations": ["rename"]},
                    },
                },
            }),
        )
        .await?;
    let started = Instant::now();
    client.notify("initialized", json!({})).await?;
    let mut loaded_ms = None;
    loop {
        let status = client.request("weft/status", Value::Null).await?;
        if status["ready"] == true && loaded_ms.is_none() {
            loaded_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
        }
        if status["ready"] == true && status["ranked"] == true && status["warm"] == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let ranked_ms = started.elapsed().as_secs_f64() * 1000.0;
    let status = client.request("weft/status", Value::Null).await?;
    let position_cache_mb = status["vaults"][0]["position_cache_bytes"]
        .as_f64()
        .unwrap_or(0.0)
        / 1e6;
    let loaded_ms = loaded_ms.unwrap_or(ranked_ms);
    let rss_mb = crate::index::proc_status_bytes("VmRSS").map_or(0.0, |b| b as f64 / 1e6);

    // Notes with links, read and parsed here to find positions.
    let mut files: Vec<String> = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let notes = files.len();
    let mut rng = Rng::with_seed(options.seed);
    let mut samples: Vec<Sample> = Vec::new();
    let mut stems: Vec<String> = Vec::new();
    // Frontmatter keys of the notes read, once per note holding one: the
    // keys typed, in proportion to their use.
    let mut keys: Vec<String> = Vec::new();
    // Link targets seen in the sampled notes: how often, and one link to
    // each (in `places`).
    let mut targets: HashMap<String, (usize, usize)> = HashMap::new();
    let mut places: Vec<Sample> = Vec::new();
    let mut tries = 0;
    while samples.len() < options.samples && tries < options.samples * 20 && !files.is_empty() {
        tries += 1;
        let rel = &files[rng.usize(..files.len())];
        let Ok(bytes) = std::fs::read(root.join(rel)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let note = parse_note(rel, &bytes);
        stems.push(note.stem().to_string());
        if let Some(frontmatter) = &note.frontmatter {
            keys.extend(frontmatter.keys().cloned());
        }
        let links: Vec<_> = note.links.iter().filter(|l| !l.is_self_link()).collect();
        if links.is_empty() {
            continue;
        }
        let Some(uri) = Uri::from_file_path(root.join(rel)) else {
            continue;
        };
        let place = |link: &weft_vault::Link| {
            let at = (link.target_span.start as usize + 1).min(link.target_span.end as usize);
            let position = utf8_position(&text, at);
            Sample {
                uri: uri.to_string(),
                position: json!({"line": position.line, "character": position.character}),
            }
        };
        for link in &links {
            let seen = targets
                .entry(link.target().to_lowercase())
                .or_insert((0, places.len()));
            if seen.0 == 0 {
                places.push(place(link));
            }
            seen.0 += 1;
        }
        samples.push(place(links[rng.usize(..links.len())]));
    }
    let at = |s: &Sample| json!({"textDocument": {"uri": s.uri}, "position": s.position});

    let mut floor = Vec::new();
    for _ in 0..options.samples {
        floor.push(client.timed("weft/status", Value::Null).await?.0);
    }
    let (mut definition, mut references, mut hover) = (Vec::new(), Vec::new(), Vec::new());
    let mut found = 0usize;
    for sample in &samples {
        definition.push(client.timed("textDocument/definition", at(sample)).await?.0);
        let mut params = at(sample);
        params["context"] = json!({"includeDeclaration": false});
        let (ms, result) = client.timed("textDocument/references", params).await?;
        references.push(ms);
        found += result.as_array().map_or(0, Vec::len);
        hover.push(client.timed("textDocument/hover", at(sample)).await?.0);
    }

    // The most-linked note seen: references to it, and a rename of it (the
    // edits are computed and answered, never applied).
    let hub = targets
        .values()
        .max_by_key(|(count, place)| (*count, std::cmp::Reverse(*place)))
        .map(|(_, place)| &places[*place]);
    let (mut hub_references, mut hub_rename) = (Vec::new(), Vec::new());
    let (mut hub_backlinks, mut hub_edits) = (0, 0);
    if let Some(hub) = hub {
        for _ in 0..options.samples.div_ceil(10).max(20) {
            let mut params = at(hub);
            params["context"] = json!({"includeDeclaration": false});
            let (ms, result) = client.timed("textDocument/references", params).await?;
            hub_references.push(ms);
            hub_backlinks = result.as_array().map_or(0, Vec::len);
            let mut params = at(hub);
            params["newName"] = json!("weft bench renamed");
            let (ms, result) = client.timed("textDocument/rename", params).await?;
            hub_rename.push(ms);
            hub_edits = edits_in(&result);
        }
    }

    // Completion: type `[[` and three letters of a note name at the end of
    // a scratch note, as a person would.
    // A note that exists only in the editor (never written to disk).
    let scratch_uri = Uri::from_file_path(root.join("weft-bench-scratch.md"))
        .ok_or_else(|| io::Error::other("scratch path"))?
        .to_string();
    let base = String::from("# Scratch\n\nSome words before the link.\n");
    let mut text = base.clone();
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": scratch_uri, "languageId": "markdown", "version": 1, "text": text}}),
        )
        .await?;
    let mut completion = Vec::new();
    let mut items = 0usize;
    let mut version = 1;
    for i in 0..options.samples {
        let stem = if stems.is_empty() {
            "note".to_string()
        } else {
            stems[i % stems.len()].clone()
        };
        // The last line is retyped each time, as a person adds one link.
        let typed: String = stem.chars().take(3).collect();
        text = format!("{base}\nSee [[{typed}");
        version += 1;
        client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": scratch_uri, "version": version}, "contentChanges": [{"text": text}]}),
            )
            .await?;
        let end = utf8_position(&text, text.len());
        let (ms, result) = client
            .timed(
                "textDocument/completion",
                json!({"textDocument": {"uri": scratch_uri}, "position": {"line": end.line, "character": end.character}}),
            )
            .await?;
        completion.push(ms);
        items += result["items"].as_array().map_or(0, Vec::len);
    }

    let props = property_completion(&mut client, root, &keys, options.samples).await?;

    let mut symbols = Vec::new();
    for i in 0..options.samples {
        let stem = stems
            .get(i % stems.len().max(1))
            .cloned()
            .unwrap_or_default();
        let query: String = stem.chars().take(4).collect();
        symbols.push(
            client
                .timed("workspace/symbol", json!({"query": query}))
                .await?
                .0,
        );
    }
    let _ = client.request("shutdown", Value::Null).await;
    let _ = client.notify("exit", Value::Null).await;
    Ok(LspBenchReport {
        vault: root.display().to_string(),
        notes,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        initialize_ms,
        loaded_ms,
        ranked_ms,
        rss_mb,
        position_cache_mb,
        floor: Summary::of(&floor),
        completion: Summary::of(&completion),
        property_keys: Summary::of(&props.keys),
        property_values: Summary::of(&props.values),
        definition: Summary::of(&definition),
        references: Summary::of(&references),
        hover: Summary::of(&hover),
        workspace_symbols: Summary::of(&symbols),
        hub_references: Summary::of(&hub_references),
        hub_rename: Summary::of(&hub_rename),
        hub_backlinks,
        hub_edits,
        load_before,
        load_after: load_average(),
        completion_items: items as f64 / options.samples.max(1) as f64,
        property_key_items: props.key_items as f64 / props.keys.len().max(1) as f64,
        property_value_items: props.value_items as f64 / props.values.len().max(1) as f64,
        property_empty_answers: props.empty,
        property_value_keys: props.value_keys,
        references_found: found as f64 / samples.len().max(1) as f64,
    })
}

/// Property completion timed, with the items answered.
struct PropertyTimes {
    keys: Vec<f64>,
    values: Vec<f64>,
    key_items: usize,
    value_items: usize,
    empty: usize,
    value_keys: Vec<String>,
}

/// Property completion in a scratch note's frontmatter, as a person adds
/// a property: a key's first letters (`sta`, then those of the keys in
/// `keys`, one to three letters), and, after `key: `, its values. The
/// block is closed below the line typed: a `---` line with no closing
/// fence is no frontmatter to the server (nor to pulldown-cmark), and
/// gets no property completion.
async fn property_completion(
    client: &mut Client,
    root: &Path,
    keys: &[String],
    samples: usize,
) -> io::Result<PropertyTimes> {
    let uri = Uri::from_file_path(root.join("weft-bench-properties.md"))
        .ok_or_else(|| io::Error::other("scratch path"))?
        .to_string();
    let body = "---\n\n# Scratch\n\nSome words after the frontmatter.\n";
    client
        .notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": format!("---\nstatus: \n{body}")}}),
        )
        .await?;
    let mut version = 1;
    // Types `line` as the frontmatter's only line and asks there, at the
    // end of `line`.
    let mut ask = async |client: &mut Client, line: &str| -> io::Result<(f64, usize)> {
        version += 1;
        let text = format!("---\n{line}\n{body}");
        client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
            )
            .await?;
        let (ms, result) = client
            .timed(
                "textDocument/completion",
                json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": line.len()}}),
            )
            .await?;
        Ok((ms, result["items"].as_array().map_or(0, Vec::len)))
    };
    let mut times = PropertyTimes {
        keys: Vec::new(),
        values: Vec::new(),
        key_items: 0,
        value_items: 0,
        empty: 0,
        value_keys: Vec::new(),
    };
    for i in 0..samples {
        let typed: String = match (i, keys.get(i % keys.len().max(1))) {
            (0, _) | (_, None) => "sta".into(),
            (_, Some(key)) => key.chars().take(1 + i % 3).collect(),
        };
        let (ms, items) = ask(client, &typed).await?;
        times.keys.push(ms);
        times.key_items += items;
        times.empty += usize::from(items == 0);
    }
    // The keys of VALUE_KEYS the vault has (the most used if none).
    let mut value_keys: Vec<String> = VALUE_KEYS
        .iter()
        .filter(|k| keys.iter().any(|h| h == *k))
        .map(|k| k.to_string())
        .collect();
    if value_keys.is_empty() {
        value_keys = keys.iter().take(5).cloned().collect();
    }
    for i in 0..samples {
        let Some(key) = value_keys.get(i % value_keys.len().max(1)) else {
            break;
        };
        let (ms, items) = ask(client, &format!("{key}: ")).await?;
        times.values.push(ms);
        times.value_items += items;
        times.empty += usize::from(items == 0);
    }
    times.value_keys = value_keys;
    Ok(times)
}

/// Text edits in a `WorkspaceEdit`, in either of its shapes.
fn edits_in(edit: &Value) -> usize {
    let in_changes: usize = edit["changes"].as_object().map_or(0, |c| {
        c.values().filter_map(Value::as_array).map(Vec::len).sum()
    });
    let in_documents: usize = edit["documentChanges"].as_array().map_or(0, |d| {
        d.iter()
            .filter_map(|c| c["edits"].as_array())
            .map(Vec::len)
            .sum()
    });
    in_changes + in_documents
}

/// Vault paths of the Markdown files under `dir`, hidden folders skipped.
fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            collect(root, &path, out)?;
        } else if is_note_path(&name)
            && let Some(rel) = weft_workspace::io::relative_path(root, &path)
        {
            out.push(rel);
        }
    }
    Ok(())
}

impl LspBenchReport {
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# weft bench lsp\n\n{} notes in {} ({} cores; load average {} before, {} after)\n",
            self.notes, self.vault, self.cores, self.load_before, self.load_after
        );
        let _ = writeln!(
            out,
            "initialize answered in {:.1} ms; vault loaded {:.0} ms after `initialized`; \
             backlinks counted and name table built at {:.0} ms; resident memory then {:.0} MB (line-index cache {:.1} MB)\n",
            self.initialize_ms, self.loaded_ms, self.ranked_ms, self.rss_mb, self.position_cache_mb
        );
        let _ = writeln!(
            out,
            "| request | p50 ms | p95 ms | max ms | samples | target p95 |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---|");
        let target = if self.notes > 20_000 {
            TARGET_P95_LARGE_MS
        } else {
            TARGET_P95_MS
        };
        let hub_references = format!(
            "references to the most-linked note ({} backlinks)",
            self.hub_backlinks
        );
        let hub_rename = format!("rename of it ({} edits)", self.hub_edits);
        let property_values = format!(
            "property value completion ({})",
            self.property_value_keys.join(", ")
        );
        let rows: [(&str, &Summary, Option<f64>); 10] = [
            ("floor (no-op request)", &self.floor, None),
            ("completion", &self.completion, Some(target)),
            (
                "property key completion",
                &self.property_keys,
                Some(TARGET_PROPERTY_P95_MS),
            ),
            (
                &property_values,
                &self.property_values,
                Some(TARGET_PROPERTY_P95_MS),
            ),
            ("definition", &self.definition, Some(target)),
            ("references", &self.references, Some(target)),
            ("hover", &self.hover, Some(target)),
            ("workspace symbols", &self.workspace_symbols, None),
            (&hub_references, &self.hub_references, Some(target)),
            (&hub_rename, &self.hub_rename, Some(target)),
        ];
        for (name, s, target) in rows {
            let verdict = match target {
                Some(target) => {
                    let met = if s.p95 <= target { "met" } else { "MISSED" };
                    format!("≤ {target} ms: {met}")
                }
                None => "-".into(),
            };
            let _ = writeln!(
                out,
                "| {name} | {:.2} | {:.2} | {:.2} | {} | {verdict} |",
                s.p50, s.p95, s.max, s.samples
            );
        }
        let _ = writeln!(
            out,
            "\n{:.1} completion items per answer; {:.1} property keys and {:.1} property values \
             per answer ({} property answers empty); {:.1} references per answer.",
            self.completion_items,
            self.property_key_items,
            self.property_value_items,
            self.property_empty_answers,
            self.references_found
        );
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Where `offset` is as a client that negotiated UTF-8 positions counts
/// it: the line (after `\n`) and the byte column, at the start of the
/// character `offset` falls in. The client's own count, not the server's
/// conversion.
fn utf8_position(text: &str, offset: usize) -> Position {
    let before = &text[..text.floor_char_boundary(offset)];
    Position {
        line: before.matches('\n').count(),
        character: before.len() - before.rfind('\n').map_or(0, |i| i + 1),
    }
}

/// A position in a note: 0-based line and column.
#[derive(Debug, PartialEq, Eq)]
struct Position {
    line: usize,
    character: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_bytes_and_stay_on_characters() {
        let text = "a\nb🧠c\n";
        let at = |line, character| Position { line, character };
        assert_eq!(utf8_position(text, 0), at(0, 0));
        assert_eq!(utf8_position(text, 3), at(1, 1));
        // Inside the emoji: its first byte.
        assert_eq!(utf8_position(text, 5), at(1, 1));
        assert_eq!(utf8_position(text, 7), at(1, 5));
        assert_eq!(utf8_position(text, text.len()), at(2, 0));
    }

    /// Structural facts only: a benchmark must never fail a test on timing.
    #[test]
    fn the_lsp_benchmark_runs_on_a_small_generated_vault() {
        let dir = crate::generate::small_vault();
        let options = LspBenchOptions {
            samples: 20,
            seed: 2,
        };
        let report = lsp_bench(dir.path(), &options).unwrap();
        assert_eq!(report.notes, 300);
        assert_eq!(report.definition.samples, 20, "{report:#?}");
        assert!(report.completion_items > 0.0, "{report:#?}");
        assert_eq!(report.property_keys.samples, 20, "{report:#?}");
        assert_eq!(report.property_values.samples, 20, "{report:#?}");
        assert!(report.property_key_items > 0.0, "{report:#?}");
        assert!(report.property_value_items > 0.0, "{report:#?}");
        assert_eq!(report.property_empty_answers, 0, "{report:#?}");
        assert_eq!(
            report.property_value_keys, VALUE_KEYS,
            "every key asked about is in the generated vault: {report:#?}"
        );
        assert!(report.references_found > 0.0, "{report:#?}");
        assert!(report.hub_backlinks > 1, "{report:#?}");
        assert!(report.hub_edits > 0, "{report:#?}");
    }
}
