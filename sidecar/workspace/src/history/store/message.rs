//! Weft's commit messages: the caller's summary, then trailers saying where
//! a change came from (`Weft-Source`) and which files moved (`Weft-Move`),
//! so that listings can say who changed a note and follow it across renames
//! without guessing.
//!
//! Text only: this module must not know the repository.

/// Trailer keys in Weft's commit messages.
const SOURCE_TRAILER: &str = "Weft-Source";
const MOVE_TRAILER: &str = "Weft-Move";
/// More moves than this in one commit are left to git's rename detection
/// rather than listed in the message.
const MAX_MOVE_TRAILERS: usize = 200;

/// What kind of change a commit records (its `Weft-Source` trailer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Tool,
    External,
    /// The first snapshot of a vault.
    Baseline,
}

impl Origin {
    fn trailer(self) -> &'static str {
        match self {
            Origin::Tool => "tool",
            Origin::External => "external",
            Origin::Baseline => "baseline",
        }
    }
}

/// The commit message: the caller's summary, then Weft's trailers.
pub(super) fn compose_message(message: &str, origin: Origin, moves: &[(String, String)]) -> String {
    let summary = message.trim();
    let summary = if summary.is_empty() {
        "update"
    } else {
        summary
    };
    let mut text = format!("{summary}\n\n{SOURCE_TRAILER}: {}\n", origin.trailer());
    if moves.len() <= MAX_MOVE_TRAILERS {
        for (from, to) in moves {
            text.push_str(&format!(
                "{MOVE_TRAILER}: {} -> {}\n",
                escape(from),
                escape(to)
            ));
        }
    }
    text
}

/// What Weft's trailers in a message say.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Trailers {
    /// The message without the trailers.
    pub summary: String,
    /// The `Weft-Source` value, if any.
    pub source: Option<String>,
    /// `Weft-Move` pairs (from, to).
    pub moves: Vec<(String, String)>,
}

/// Splits Weft's trailers off a commit message. A message from elsewhere
/// (the vault's own repository) has none and is returned trimmed.
pub(crate) fn parse_trailers(message: &str) -> Trailers {
    let message = message.trim_end();
    let Some(split) = message.rfind("\n\n") else {
        return Trailers {
            summary: message.to_string(),
            ..Trailers::default()
        };
    };
    let block = &message[split + 2..];
    let ours = block.lines().all(|line| {
        line.starts_with(&format!("{SOURCE_TRAILER}: "))
            || line.starts_with(&format!("{MOVE_TRAILER}: "))
    });
    if !ours {
        return Trailers {
            summary: message.to_string(),
            ..Trailers::default()
        };
    }
    let mut trailers = Trailers {
        summary: message[..split].trim_end().to_string(),
        ..Trailers::default()
    };
    for line in block.lines() {
        if let Some(value) = line.strip_prefix(&format!("{SOURCE_TRAILER}: ")) {
            trailers.source = Some(value.trim().to_string());
        } else if let Some(value) = line.strip_prefix(&format!("{MOVE_TRAILER}: "))
            && let Some((from, to)) = value.split_once(" -> ")
        {
            trailers.moves.push((unescape(from), unescape(to)));
        }
    }
    trailers
}

/// Escapes what would break a trailer line or its ` -> ` separator.
fn escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\n' => out.push_str("%0A"),
            '\r' => out.push_str("%0D"),
            '>' => out.push_str("%3E"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3);
        let decoded = match code {
            Some("25") => Some('%'),
            Some("0A") => Some('\n'),
            Some("0D") => Some('\r'),
            Some("3E") => Some('>'),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[at + 3..];
            }
            None => {
                out.push('%');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}
