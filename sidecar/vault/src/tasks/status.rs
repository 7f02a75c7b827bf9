//! What a checkbox's symbol means: its status (name, type, the symbol a
//! toggle moves to), as the Tasks plugin's status registry says — the core
//! `[ ]` and `[x]`, its default custom `[/]` and `[-]`, and the user's own
//! from the plugin's settings; any other symbol is an unknown status of
//! type TODO. Pure: the caller reads the settings.

use serde::{Deserialize, Serialize};

/// What a status means to searches: `not done` is TODO, IN_PROGRESS and
/// ON_HOLD; `done` is DONE, CANCELLED and NON_TASK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StatusType {
    InProgress,
    Todo,
    OnHold,
    Done,
    Cancelled,
    NonTask,
}

impl StatusType {
    pub const ALL: [StatusType; 6] = [
        StatusType::Todo,
        StatusType::InProgress,
        StatusType::OnHold,
        StatusType::Done,
        StatusType::Cancelled,
        StatusType::NonTask,
    ];

    /// The plugin's name: `TODO`, `IN_PROGRESS`, …
    pub fn name(self) -> &'static str {
        match self {
            StatusType::Todo => "TODO",
            StatusType::InProgress => "IN_PROGRESS",
            StatusType::OnHold => "ON_HOLD",
            StatusType::Done => "DONE",
            StatusType::Cancelled => "CANCELLED",
            StatusType::NonTask => "NON_TASK",
        }
    }

    /// A type by its name, any case, `-`, `_` or space between words.
    pub fn parse(text: &str) -> Option<StatusType> {
        let norm: String = text
            .trim()
            .chars()
            .map(|c| match c {
                '-' | ' ' => '_',
                c => c.to_ascii_uppercase(),
            })
            .collect();
        StatusType::ALL.into_iter().find(|t| t.name() == norm)
    }

    /// DONE, CANCELLED and NON_TASK: what the plugin's `done` matches.
    #[inline]
    pub fn is_done(self) -> bool {
        matches!(
            self,
            StatusType::Done | StatusType::Cancelled | StatusType::NonTask
        )
    }
}

/// One status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    pub symbol: char,
    pub name: Box<str>,
    /// The symbol a toggle moves to.
    pub next: char,
    pub kind: StatusType,
}

impl Status {
    pub fn new(symbol: char, name: &str, next: char, kind: StatusType) -> Status {
        Status {
            symbol,
            name: name.into(),
            next,
            kind,
        }
    }
}

/// The statuses a vault knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statuses {
    list: Vec<Status>,
}

impl Default for Statuses {
    /// The plugin's out of the box: Todo, Done, In Progress, Cancelled.
    fn default() -> Self {
        Statuses::new(Vec::new())
    }
}

impl Statuses {
    /// The core and default statuses, then `own` (the user's, which win
    /// over a default with the same symbol).
    pub fn new(own: Vec<Status>) -> Statuses {
        let defaults = Statuses {
            list: vec![
                Status::new(' ', "Todo", 'x', StatusType::Todo),
                Status::new('x', "Done", ' ', StatusType::Done),
                Status::new('/', "In Progress", 'x', StatusType::InProgress),
                Status::new('-', "Cancelled", ' ', StatusType::Cancelled),
            ],
        };
        defaults.with(own)
    }

    /// These statuses with `own` over them (one with a known symbol
    /// replaces it).
    pub fn with(&self, own: impl IntoIterator<Item = Status>) -> Statuses {
        let mut list = self.list.clone();
        for status in own {
            match list.iter_mut().find(|s| s.symbol == status.symbol) {
                Some(known) => *known = status,
                None => list.push(status),
            }
        }
        Statuses { list }
    }

    /// Every status, the core ones first.
    pub fn all(&self) -> &[Status] {
        &self.list
    }

    /// The status of `symbol`, when the vault knows it.
    #[inline]
    pub fn get(&self, symbol: char) -> Option<&Status> {
        self.list.iter().find(|s| s.symbol == symbol)
    }

    /// The status of `symbol`; an unknown one is a TODO named `Unknown`
    /// that toggles to `x`.
    pub fn of(&self, symbol: char) -> Status {
        self.list
            .iter()
            .find(|s| s.symbol == symbol)
            .cloned()
            .unwrap_or_else(|| Status::new(symbol, "Unknown", 'x', StatusType::Todo))
    }

    /// The symbol a word names: one character (or `[c]`) is itself; else a
    /// status's name (`In Progress`), else a type or its word (`done`,
    /// `todo`, `cancelled`, `in progress`): the first status of that type.
    pub fn symbol_for(&self, word: &str) -> Option<char> {
        let word = word.trim();
        let inner = word
            .strip_prefix('[')
            .and_then(|w| w.strip_suffix(']'))
            .unwrap_or(word);
        let mut chars = inner.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Some(c);
        }
        if let Some(s) = self.list.iter().find(|s| s.name.eq_ignore_ascii_case(word)) {
            return Some(s.symbol);
        }
        let norm = word.to_ascii_lowercase().replace(['-', '_'], " ");
        let kind = match norm.as_str() {
            "todo" | "to do" | "open" | "not done" | "undone" => StatusType::Todo,
            "done" | "complete" | "completed" => StatusType::Done,
            "canceled" => StatusType::Cancelled,
            other => StatusType::parse(other)?,
        };
        self.list.iter().find(|s| s.kind == kind).map(|s| s.symbol)
    }

    /// The type of `symbol`.
    #[inline]
    pub fn kind(&self, symbol: char) -> StatusType {
        self.list
            .iter()
            .find(|s| s.symbol == symbol)
            .map_or(StatusType::Todo, |s| s.kind)
    }

    /// The status of a recurring task's next copy after one of `symbol` is
    /// done: the first TODO, else IN_PROGRESS, along the toggle chain from
    /// the done status's next; else `[ ]` (the plugin's
    /// `getNextRecurrenceStatusOrCreate`).
    pub fn after_recurrence(&self, done: char) -> char {
        let first = self.of(done).next;
        for wanted in [StatusType::Todo, StatusType::InProgress] {
            let mut symbol = first;
            for _ in 0..self.list.len() {
                let status = self.of(symbol);
                if status.kind == wanted {
                    return symbol;
                }
                symbol = status.next;
            }
        }
        ' '
    }
}
