//! Crashes during writes. Two agents stream writes, section edits,
//! frontmatter updates, new notes and link-rewriting moves into a vault
//! through their MCP faces while the vault's daemon is killed (SIGKILL) at
//! random moments. After every kill: no note is torn (each note carries a
//! checksum of its payload, so a file holds its old or its new content
//! whole); once a daemon has started again no Weft temp file remains and
//! no lock of the history store is left; the restarted daemon's index (its
//! snapshot, then reconciled with the disk) equals a fresh in-process build
//! (`weft stats --digest`); the history store opens, was not set aside,
//! and records the next write.
//!
//! `WEFT_CRASH_KILLS` sets the number of kills (50 by default);
//! `scripts/crash.sh` runs 1,000 and prints the figures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use weft_e2e::{McpWire, Sandbox, TempVault, WORDS, env_number};

/// Notes each agent starts with.
const NOTES_PER_AGENT: usize = 24;
/// Notes each agent may have at most (it creates new ones up to this).
const MAX_NOTES_PER_AGENT: usize = 40;
const AGENTS: usize = 2;
/// How long the restarted daemon may take to equal a fresh build.
const CONVERGE: Duration = Duration::from_secs(60);

/// FNV-1a: the notes' payload checksum (any stable hash does).
fn fnv(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The `## Payload` section's body: random lines, then the check line.
/// Mostly a few kilobytes; now and then half a megabyte, so that kills
/// land inside long writes too.
fn payload(rng: &mut fastrand::Rng) -> String {
    let bytes = if rng.u8(..10) == 0 {
        rng.usize(64 << 10..512 << 10)
    } else {
        rng.usize(200..8 << 10)
    };
    let mut text = String::with_capacity(bytes + 64);
    while text.len() < bytes {
        for _ in 0..rng.usize(3..14) {
            text.push_str(WORDS[rng.usize(..WORDS.len())]);
            text.push(' ');
        }
        text.push_str(&rng.u64(..).to_string());
        text.push('\n');
    }
    let check = fnv(text.as_bytes());
    format!("{text}check: {check:016x}\n")
}

/// A whole note: its id is the title and an alias (`id-<id>`) it keeps
/// through moves; links name other notes by file name, so moves rewrite
/// them.
fn note(rng: &mut fastrand::Rng, id: &str, links: &[String]) -> String {
    let links: Vec<String> = (0..rng.usize(1..5).min(links.len()))
        .map(|_| format!("[[{}]]", links[rng.usize(..links.len())]))
        .collect();
    format!(
        "---\ntitle: {id}\naliases: [id-{id}]\ncounter: 0\n---\n# {id}\n\nLinks: {}\n\n\
         ## Notes\n\nnothing yet\n\n## Payload\n\n{}",
        links.join(" "),
        payload(rng)
    )
}

/// Why `text` is not a whole note, if it is not: it must end with its
/// payload's check line.
fn torn(text: &[u8]) -> Option<String> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Some("not UTF-8".into());
    };
    if !text.starts_with("---\n") {
        return Some("no frontmatter at the start".into());
    }
    let Some(body) = text.strip_suffix('\n') else {
        return Some("no final line break".into());
    };
    let Some((before, check)) = body.rsplit_once('\n') else {
        return Some("one line".into());
    };
    let Some(check) = check.strip_prefix("check: ") else {
        return Some("the last line is not the check line".into());
    };
    let Some((_, payload)) = before.split_once("## Payload\n") else {
        return Some("no payload section".into());
    };
    // (The payload's own lines never start blank.)
    let payload = payload.trim_start_matches('\n');
    let want = format!("{:016x}", fnv(format!("{payload}\n").as_bytes()));
    (check != want).then(|| format!("check {check}, payload hashes to {want}"))
}

/// Every note of the vault (vault path → content), the history's folder
/// left out.
fn notes(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a vault folder") {
            let entry = entry.expect("a folder entry");
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().expect("file type").is_dir() {
                if !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name.ends_with(".md") && !name.starts_with('.') {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).expect("read a note"));
            }
        }
    }
    out
}

/// Files anywhere in the vault (hidden folders included) whose name
/// `wanted` picks.
fn files_where(root: &Path, wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            } else if wanted(&entry.file_name().to_string_lossy()) {
                out.push(entry.path());
            }
        }
    }
    out
}

/// Files named as a Weft temp file, a git lock or a git temporary object
/// is named.
fn leftovers(root: &Path) -> Vec<PathBuf> {
    files_where(root, |name| {
        (name.starts_with('.') && name.contains(".weft-") && name.ends_with(".tmp"))
            || name.ends_with(".lock")
            || name.starts_with("tmp_object")
    })
}

/// What an agent knows: its notes' ids, and the file names of every note
/// when the agents last paused (link targets; some go stale as notes move,
/// which leaves those links unresolved, as in life).
struct Agent {
    name: String,
    ids: Vec<String>,
    targets: Vec<String>,
    rng: fastrand::Rng,
    made: usize,
}

/// Counts over the whole run.
#[derive(Default)]
struct Tally {
    calls: AtomicUsize,
    errors: AtomicUsize,
    /// Kills that found an agent waiting for the answer to a change.
    in_flight: AtomicUsize,
    /// Changes answered since the agents last started.
    answered: AtomicUsize,
}

impl Agent {
    /// One random change, as a `tools/call` request.
    fn change(&mut self) -> (String, Value) {
        let id = self.ids[self.rng.usize(..self.ids.len())].clone();
        let alias = format!("id-{id}");
        match self.rng.u8(..20) {
            0..=6 => {
                // A write: the payload section replaced whole.
                let content = payload(&mut self.rng);
                let ops =
                    json!([{"op": "replace_section", "section": "Payload", "content": content}]);
                ("edit_note".into(), json!({"path": alias, "ops": ops}))
            }
            7..=10 => {
                let text = format!("edited {}", self.rng.u64(..));
                let ops = json!([{"op": "replace_section", "section": "Notes", "content": text}]);
                ("edit_note".into(), json!({"path": alias, "ops": ops}))
            }
            11..=14 => {
                let set = json!({"counter": self.rng.u32(..), "mood": WORDS[self.rng.usize(..WORDS.len())]});
                (
                    "update_frontmatter".into(),
                    json!({"path": alias, "set": set}),
                )
            }
            15..=17 => {
                let to = format!("f{}/{id}-{}.md", self.rng.u8(..4), self.rng.u16(..));
                ("move_note".into(), json!({"path": alias, "new_path": to}))
            }
            _ if self.ids.len() < MAX_NOTES_PER_AGENT => {
                self.made += 1;
                let id = format!("{}n{}", self.name, self.made);
                let content = note(&mut self.rng, &id, &self.targets);
                self.ids.push(id.clone());
                let path = format!("new/{id}.md");
                (
                    "write_note".into(),
                    json!({"path": path, "content": content}),
                )
            }
            _ => {
                // A whole note written again, its frontmatter kept.
                let whole = note(&mut self.rng, &id, &self.targets);
                let body = whole
                    .split_once("\n---\n")
                    .map_or(whole.as_str(), |(_, b)| b);
                let ops = json!([{"op": "replace_body", "content": body}]);
                ("edit_note".into(), json!({"path": alias, "ops": ops}))
            }
        }
    }

    /// Streams changes through `face` until `stop`; `busy` is set while a
    /// change waits for its answer.
    fn stream(&mut self, face: &McpWire, stop: &AtomicBool, busy: &AtomicBool, tally: &Tally) {
        let mut id = 10;
        while !stop.load(Ordering::SeqCst) {
            id += 1;
            let (tool, arguments) = self.change();
            busy.store(true, Ordering::SeqCst);
            let sent = weft_e2e::send_line(
                &face.stdin,
                &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                        "params": {"name": tool, "arguments": arguments}}),
            );
            if sent.is_err() {
                busy.store(false, Ordering::SeqCst);
                return;
            }
            let answer = face.response(id);
            busy.store(false, Ordering::SeqCst);
            tally.calls.fetch_add(1, Ordering::Relaxed);
            tally.answered.fetch_add(1, Ordering::SeqCst);
            let failed = answer.get("error").is_some() || answer["result"]["isError"] == true;
            if failed {
                tally.errors.fetch_add(1, Ordering::Relaxed);
                if std::env::var_os("WEFT_CRASH_VERBOSE").is_some() {
                    eprintln!(
                        "{tool}: {}",
                        answer.to_string().chars().take(300).collect::<String>()
                    );
                }
            }
        }
    }
}

/// An MCP face on `vault`, initialized.
fn face(vault: &TempVault) -> McpWire {
    let mut command = vault.weft(&["mcp"]);
    command.stderr(std::process::Stdio::null());
    let face = McpWire::start(&mut command);
    face.handshake("crash-test");
    face
}

/// A tool call on `face` that must succeed; its result.
fn call(face: &McpWire, id: u64, tool: &str, arguments: Value) -> Value {
    face.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments}}));
    let answer = face.response(id);
    assert!(
        answer.get("error").is_none() && answer["result"]["isError"] != true,
        "{tool}: {answer}"
    );
    answer["result"].clone()
}

#[test]
fn killed_mid_write_a_thousand_ways_nothing_is_torn_or_lost() {
    let kills: usize = env_number("WEFT_CRASH_KILLS", 50);
    let seed: u64 = env_number("WEFT_CRASH_SEED", fastrand::u64(..));
    eprintln!("crash test: {kills} kills, seed {seed} (WEFT_CRASH_SEED repeats it)");
    let mut rng = fastrand::Rng::with_seed(seed);

    let sandbox = Sandbox::new();
    let vault = sandbox.vault("");
    let root = vault.path().to_path_buf();
    let mut agents: Vec<Agent> = (0..AGENTS)
        .map(|a| Agent {
            name: ["a", "b", "c", "d"][a].to_string(),
            ids: Vec::new(),
            targets: Vec::new(),
            rng: fastrand::Rng::with_seed(rng.u64(..)),
            made: 0,
        })
        .collect();
    let all_ids: Vec<String> = agents
        .iter()
        .flat_map(|a| (0..NOTES_PER_AGENT).map(move |i| format!("{}{i}", a.name)))
        .collect();
    for agent in &mut agents {
        for i in 0..NOTES_PER_AGENT {
            let id = format!("{}{i}", agent.name);
            let text = note(&mut rng, &id, &all_ids);
            std::fs::create_dir_all(root.join("new")).unwrap();
            std::fs::write(root.join(format!("new/{id}.md")), text).unwrap();
            agent.ids.push(id);
        }
    }

    let tally = Arc::new(Tally::default());
    let mut missed = 0;
    let mut worst_converge = Duration::ZERO;
    let started = Instant::now();
    for kill in 0..kills {
        // What is on disk now: the notes' file names (link targets) and
        // titles (each agent's notes; a note whose creation was cut short
        // by a kill is not among them).
        let on_disk = notes(&root);
        let names: Vec<String> = on_disk
            .keys()
            .map(|p| {
                let file = p.rsplit('/').next().unwrap_or(p);
                file.trim_end_matches(".md").to_string()
            })
            .collect();
        let titles: Vec<String> = on_disk
            .values()
            .filter_map(|text| {
                let text = std::str::from_utf8(text).ok()?;
                let line = text.lines().find(|l| l.starts_with("title: "))?;
                Some(line["title: ".len()..].to_string())
            })
            .collect();
        let mut seen = std::collections::HashSet::new();
        for title in &titles {
            assert!(
                seen.insert(title),
                "before kill {kill}: note {title} exists twice"
            );
        }
        for agent in &mut agents {
            agent.targets = names.clone();
            agent.ids = titles
                .iter()
                .filter(|t| t.starts_with(agent.name.as_str()))
                .cloned()
                .collect();
            agent.ids.sort();
        }
        let stop = Arc::new(AtomicBool::new(false));
        tally.answered.store(0, Ordering::SeqCst);
        let mut faces: Vec<McpWire> = (0..AGENTS).map(|_| face(&vault)).collect();
        let busy: Vec<Arc<AtomicBool>> = (0..AGENTS)
            .map(|_| Arc::new(AtomicBool::new(false)))
            .collect();
        let threads: Vec<_> = agents
            .drain(..)
            .enumerate()
            .map(|(i, mut agent)| {
                let (face, stop, busy, tally) = (
                    faces.remove(0),
                    Arc::clone(&stop),
                    Arc::clone(&busy[i]),
                    Arc::clone(&tally),
                );
                std::thread::spawn(move || {
                    agent.stream(&face, &stop, &busy, &tally);
                    (agent, face)
                })
            })
            .collect();

        // The kill, at a random moment of the stream once it flows.
        let began = Instant::now();
        while tally.answered.load(Ordering::SeqCst) < AGENTS
            && began.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(rng.u64(0..200)));
        if busy.iter().any(|b| b.load(Ordering::SeqCst)) {
            tally.in_flight.fetch_add(1, Ordering::Relaxed);
        }
        // (A face that could not start a daemon in time serves in-process:
        // then there is nothing to kill this time.)
        if sandbox.kill_daemons().is_empty() {
            missed += 1;
            assert!(
                missed <= kills / 10,
                "{missed} times no daemon ran to be killed"
            );
        }
        stop.store(true, Ordering::SeqCst);
        for thread in threads {
            let (agent, face) = thread.join().expect("an agent ends");
            agents.push(agent);
            faces.push(face);
        }
        drop(faces);

        // Nothing torn.
        let now = notes(&root);
        for (path, text) in &now {
            if let Some(why) = torn(text) {
                let text = String::from_utf8_lossy(text);
                let head: String = text.chars().take(400).collect();
                let tail: String = text
                    .chars()
                    .rev()
                    .take(200)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                panic!("kill {kill}: {path} is torn: {why}\n{head}\n…\n{tail}");
            }
        }

        // A daemon started again follows the disk exactly.
        let began = Instant::now();
        let fresh = vault.digest(true);
        loop {
            let served = vault.digest(false);
            if served == fresh {
                break;
            }
            assert!(
                began.elapsed() < CONVERGE,
                "kill {kill}: the restarted daemon's index ({served}) is not a fresh build's ({fresh})"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        worst_converge = worst_converge.max(began.elapsed());
        // A daemon started again cleared what the killed one left: the
        // history's locks go when the history opens, which an agent's
        // session brings about (the agents' faces may have left at the kill,
        // and `weft stats` alone opens no history); a live daemon's own
        // history commit may hold a lock for a moment.
        let opener = face(&vault);
        let began = Instant::now();
        let mut ask = 2;
        while call(&opener, ask, "vault_info", json!({}))["structuredContent"]["history"]["mode"]
            == "opening"
        {
            assert!(
                began.elapsed() < CONVERGE,
                "kill {kill}: the history did not open"
            );
            ask += 1;
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(opener);
        let began = Instant::now();
        loop {
            let left = leftovers(&root);
            if left.is_empty() {
                break;
            }
            assert!(
                began.elapsed() < CONVERGE,
                "kill {kill}: left behind: {left:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }

        // The history opens, was not set aside, and records the next write.
        if kill % 5 == 4 || kill + 1 == kills {
            let checker = face(&vault);
            let alias = format!("id-{}", agents[0].ids[0]);
            let newest = |id: u64| -> String {
                let page = call(
                    &checker,
                    id,
                    "note_history",
                    json!({"path": alias, "limit": 1}),
                );
                let out = &page["structuredContent"];
                assert!(
                    out.get("history_lost").is_none(),
                    "kill {kill}: history set aside: {out}"
                );
                let versions = &out["versions"];
                versions[0]["id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{page}"))
                    .to_string()
            };
            let before = newest(2);
            let marker = format!("checked after kill {kill}");
            call(
                &checker,
                3,
                "edit_note",
                json!({"path": alias,
                       "ops": [{"op": "replace_section", "section": "Notes", "content": marker}]}),
            );
            let began = Instant::now();
            let mut ask = 4;
            while newest(ask) == before {
                assert!(
                    began.elapsed() < CONVERGE,
                    "kill {kill}: the history did not record the write"
                );
                ask += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            drop(checker);
            let lost = files_where(&root, |name| name == "weft-history-lost.json");
            assert!(
                lost.is_empty(),
                "kill {kill}: the history was set aside: {lost:?}"
            );
        }
    }

    let notes_now = notes(&root).len();
    let calls = tally.calls.load(Ordering::Relaxed);
    let report = format!(
        "crash test: {} kills ({} with a change in flight), {calls} changes sent \
         ({} answered with an error), {notes_now} notes, 0 torn, 0 leftovers; \
         the restarted daemon equalled a fresh build after {} ms at worst; {:.0} s",
        kills - missed,
        tally.in_flight.load(Ordering::Relaxed),
        tally.errors.load(Ordering::Relaxed),
        worst_converge.as_millis(),
        started.elapsed().as_secs_f64()
    );
    eprintln!("{report}");
    if let Ok(path) = std::env::var("WEFT_TEST_REPORT") {
        std::fs::write(path, format!("{report}\n")).expect("write the report");
    }
    sandbox.stop_daemons();
}
