//! `weft model fetch|list`: the pinned models fetched into the user's
//! cache on request, with progress on stderr, and listed with whether each
//! is there. Needs no vault; the fetch itself is `weft_semantic::fetch`.

use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use crate::answer::CliError;
use crate::args::{Format, ModelCommand};
use weft_semantic::{Progress, fetch, pinned};

/// Progress lines are printed at most this often (and at the end).
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Runs `command`; the text for stdout.
pub fn run(command: ModelCommand, format: Format) -> Result<String, CliError> {
    let models_dir = weft_workspace::dirs::models_dir().ok_or_else(|| {
        CliError("no cache folder is known for the models: set XDG_CACHE_HOME (or HOME)".into())
    })?;
    match command {
        ModelCommand::Fetch { id } => {
            let model = pinned::pinned(id.trim()).ok_or_else(|| {
                CliError(format!(
                    "`{id}` is not a model Weft knows by id; known: {}. A model of your own is \
                     set by its folder: `[semantic] model = \"/path/to/folder\"` in .weft.toml",
                    pinned::known_ids()
                ))
            })?;
            let folder = model.folder_in(&models_dir);
            if model.is_present(&models_dir) {
                eprintln!("weft: {} is already in the cache", model.id);
            } else {
                let mirror = fetch::mirror();
                eprintln!(
                    "weft: fetching {} at {} ({:.1} MB) from {mirror} into {}",
                    model.id,
                    &model.revision[..12],
                    model.total_size() as f64 / 1e6,
                    models_dir.display()
                );
                let mut shown = Shown::new();
                fetch::fetch(model, &models_dir, &mirror, &mut |p| {
                    shown.show(p);
                    ControlFlow::Continue(())
                })
                .map_err(|e| CliError(e.to_string()))?;
                shown.end();
                eprintln!(
                    "weft: {} verified (size and SHA-256 of each file); set `[semantic] model = \"{}\"` in a vault's .weft.toml to use it",
                    model.id, model.id
                );
            }
            Ok(match format {
                Format::Text | Format::Csv => folder.display().to_string(),
                Format::Json => serde_json::json!({
                    "id": model.id,
                    "revision": model.revision,
                    "folder": folder,
                })
                .to_string(),
            })
        }
        ModelCommand::List => {
            let rows: Vec<_> = pinned::PINNED
                .iter()
                .map(|m| (m, m.is_present(&models_dir), m.folder_in(&models_dir)))
                .collect();
            Ok(match format {
                Format::Text | Format::Csv => rows
                    .iter()
                    .map(|(m, present, folder)| {
                        format!(
                            "{}  revision {}  {:.1} MB  {}",
                            m.id,
                            &m.revision[..12],
                            m.total_size() as f64 / 1e6,
                            if *present {
                                format!("fetched: {}", folder.display())
                            } else {
                                format!("not fetched (weft model fetch {})", m.id)
                            }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                Format::Json => serde_json::Value::Array(
                    rows.iter()
                        .map(|(m, present, folder)| {
                            serde_json::json!({
                                "id": m.id,
                                "revision": m.revision,
                                "bytes": m.total_size(),
                                "fetched": present,
                                "folder": folder,
                            })
                        })
                        .collect(),
                )
                .to_string(),
            })
        }
    }
}

/// Progress on stderr: one line rewritten on a terminal, else a line now
/// and then.
struct Shown {
    terminal: bool,
    last: Option<Instant>,
    done: u64,
    total: u64,
}

impl Shown {
    fn new() -> Shown {
        Shown {
            terminal: std::io::stderr().is_terminal(),
            last: None,
            done: 0,
            total: 0,
        }
    }

    fn show(&mut self, progress: Progress) {
        self.done = progress.done;
        self.total = progress.total;
        if self.last.is_some_and(|t| t.elapsed() < PROGRESS_EVERY) {
            return;
        }
        self.last = Some(Instant::now());
        self.print();
    }

    fn print(&self) {
        let line = format!(
            "  {:.1} / {:.1} MB",
            self.done as f64 / 1e6,
            self.total as f64 / 1e6
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r{line}")
        } else {
            writeln!(err, "{line}")
        };
    }

    fn end(&self) {
        self.print();
        if self.terminal {
            eprintln!();
        }
    }
}
