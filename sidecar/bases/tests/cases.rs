//! Runs every hand-written case of `tests/cases/` (format: its README):
//! builds the case's vault, runs its base's view through the engine and
//! compares the answer with the expected JSON (numbers to 1e-9), or the
//! error with the expected text.

use std::collections::HashMap;
use std::path::Path;

use chrono::{NaiveDateTime, TimeZone};
use serde_json::Value as J;
use weft_bases::eval::value::Row;
use weft_bases::run::run_evaluating_every_row;
use weft_bases::{Base, Context, Files, Request, RowMeta, blocks, render, run};
use weft_vault::VaultIndex;
use weft_vault::parse::parse_text;
use weft_vault::props::Types;

struct Case {
    now: NaiveDateTime,
    files: Vec<(String, String, RowMeta)>,
    run: String,
    view: Option<String>,
    expect: Result<J, String>,
}

fn moment(text: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(text.trim(), "%Y-%m-%dT%H:%M:%S")
        .unwrap_or_else(|e| panic!("`{text}`: {e}"))
}

fn unix(text: &str) -> i64 {
    moment(text).and_utc().timestamp()
}

fn read_case(text: &str) -> Case {
    let mut case = Case {
        now: moment("2026-11-28T12:00:00"),
        files: Vec::new(),
        run: String::new(),
        view: None,
        expect: Err(String::new()),
    };
    let mut current: Option<(String, String, RowMeta)> = None;
    let mut expecting: Option<bool> = None; // Some(true): JSON, Some(false): error
    let mut tail = String::new();
    let finish = |current: &mut Option<(String, String, RowMeta)>, files: &mut Vec<_>| {
        if let Some(file) = current.take() {
            files.push(file);
        }
    };
    for line in text.split_inclusive('\n') {
        if expecting.is_some() {
            tail.push_str(line);
            continue;
        }
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some(rest) = bare.strip_prefix("//- ") {
            finish(&mut current, &mut case.files);
            // A path may hold spaces; its attributes follow as ` @name=`.
            let mut parts = rest.split(" @");
            let path = parts
                .next()
                .expect("a path")
                .trim()
                .trim_start_matches('/')
                .to_string();
            let mut meta = RowMeta {
                modified: Some(unix("2026-01-01T00:00:00")),
                created: Some(unix("2026-01-01T00:00:00")),
                size: None,
            };
            for attr in parts {
                if let Some(t) = attr.strip_prefix("mtime=") {
                    meta.modified = Some(unix(t));
                } else if let Some(t) = attr.strip_prefix("ctime=") {
                    meta.created = Some(unix(t));
                }
            }
            current = Some((path, String::new(), meta));
        } else if let Some(rest) = bare.strip_prefix("=== ") {
            finish(&mut current, &mut case.files);
            if let Some(t) = rest.strip_prefix("now:") {
                case.now = moment(t);
            } else if let Some(t) = rest.strip_prefix("run:") {
                case.run = t.trim().trim_start_matches('/').to_string();
            } else if let Some(t) = rest.strip_prefix("view:") {
                case.view = Some(t.trim().to_string());
            } else if rest.trim() == "expect" {
                expecting = Some(true);
            } else if rest.trim() == "error" {
                expecting = Some(false);
            } else {
                panic!("unknown directive `{bare}`");
            }
        } else if let Some((_, text, _)) = current.as_mut() {
            text.push_str(line);
        }
    }
    finish(&mut current, &mut case.files);
    for (_, text, meta) in &mut case.files {
        meta.size = Some(text.len() as u64);
    }
    case.expect = match expecting {
        Some(true) => Ok(serde_json::from_str(tail.trim()).expect("the expected JSON reads")),
        Some(false) => Err(tail.trim().to_string()),
        None => panic!("no `=== expect` or `=== error`"),
    };
    case
}

struct Metas(HashMap<String, RowMeta>);

impl Files for Metas {
    fn meta(&self, path: &str) -> RowMeta {
        self.0.get(path).copied().unwrap_or_default()
    }
}

/// The engine's answer to `case`: its JSON, or its error.
fn answer(case: &Case) -> Result<J, String> {
    let table = run_case(case, false)?;
    if table.error_count > 0 {
        return Err(table.errors.join("\n"));
    }
    Ok(table.json)
}

/// A table as compared: its JSON with paths, total, offset and errors.
struct Answer {
    json: J,
    with_paths: J,
    errors: Vec<String>,
    error_count: usize,
    total: usize,
}

/// Runs `case`'s view, with the prefilter or evaluating every row.
fn run_case(case: &Case, evaluate_every_row: bool) -> Result<Answer, String> {
    let mut index = VaultIndex::new();
    let mut metas = HashMap::new();
    for (path, text, meta) in &case.files {
        metas.insert(path.clone(), *meta);
        if path == ".obsidian/types.json" {
            index.set_types(&Types::parse(text).expect("types.json reads"));
        } else if path.ends_with(".md") {
            index.upsert(parse_text(path, text));
        } else if !path.starts_with('.') {
            index.add_attachment(path);
        }
    }
    let (run_path, nth) = match case.run.split_once('#') {
        Some((p, n)) => (p.to_string(), n.parse::<usize>().expect("a block number")),
        None => (case.run.clone(), 1),
    };
    let (_, text, _) = case
        .files
        .iter()
        .find(|(p, _, _)| *p == run_path)
        .unwrap_or_else(|| panic!("no file {run_path} to run"));
    let (yaml, this) = if run_path.ends_with(".md") {
        let block = blocks(text)
            .into_iter()
            .nth(nth - 1)
            .unwrap_or_else(|| panic!("no block {nth} in {run_path}"));
        (
            text[block].to_string(),
            Row::Note(index.id_of(&run_path).expect("the note")),
        )
    } else {
        (text.clone(), Row::File(run_path.as_str().into()))
    };
    let base = Base::parse(&yaml).map_err(|e| e.to_string())?;
    let local = |t: i64| chrono::Utc.timestamp_opt(t, 0).unwrap().naive_utc();
    let files = Metas(metas);
    let cx = Context {
        index: &index,
        files: &files,
        now: case.now,
        local: &local,
        this: Some(this),
        sees: &|_| true,
    };
    let request = Request {
        view: case.view.as_deref(),
        ..Request::default()
    };
    let table = match evaluate_every_row {
        true => run_evaluating_every_row(&base, &cx, &request),
        false => run(&base, &cx, &request),
    }
    .map_err(|e| e.to_string())?;
    Ok(Answer {
        json: render::json(&table, &index, false),
        with_paths: render::json(&table, &index, true),
        errors: table.errors,
        error_count: table.error_count,
        total: table.total,
    })
}

/// JSON equality with numbers to 1e-9 (relative).
fn same(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Number(x), J::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn every_hand_written_case_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the cases folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "case"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no cases in {}", dir.display());
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let case = read_case(&std::fs::read_to_string(path).unwrap());
        let got = answer(&case);
        match (&case.expect, &got) {
            (Ok(want), Ok(have)) if same(want, have) => {}
            (Err(want), Err(have)) if have.contains(want.as_str()) => {}
            _ => failures.push(format!(
                "{name}:\n  expected {}\n  got      {}",
                match &case.expect {
                    Ok(j) => j.to_string(),
                    Err(e) => format!("error containing {e:?}"),
                },
                match &got {
                    Ok(j) => j.to_string(),
                    Err(e) => format!("error {e:?}"),
                }
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n")
    );
}

/// The prefilter changes no answer: every case run with it and evaluating
/// every row gives the same table (rows, paths, groups, summaries, total),
/// the same errors, or the same error.
#[test]
fn the_prefilter_changes_no_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut ran = 0;
    for entry in std::fs::read_dir(&dir).expect("the cases folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|e| e != "case") {
            continue;
        }
        let case = read_case(&std::fs::read_to_string(&path).unwrap());
        let name = path.display();
        match (run_case(&case, false), run_case(&case, true)) {
            (Ok(with), Ok(without)) => {
                assert_eq!(with.with_paths, without.with_paths, "{name}: the table");
                assert_eq!(with.errors, without.errors, "{name}: the errors");
                assert_eq!(with.error_count, without.error_count, "{name}");
                assert_eq!(with.total, without.total, "{name}");
            }
            (Err(with), Err(without)) => assert_eq!(with, without, "{name}"),
            (with, without) => panic!(
                "{name}: {:?} with the prefilter, {:?} without",
                with.map(|a| a.json),
                without.map(|a| a.json)
            ),
        }
        ran += 1;
    }
    assert!(ran >= 48, "only {ran} cases");
}
