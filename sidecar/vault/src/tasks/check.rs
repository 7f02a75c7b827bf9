//! What is wrong on a task line, field by field: a date written in the
//! date's shape that is no calendar day (`📅 2024-02-30`, the plugin's
//! "invalid date"), and a recurrence rule [`Recurrence::parse`] does not
//! read. Each problem has the field's place in the line and the domain's
//! own wording, for the editor's diagnostics.
//!
//! Pure: one line in. It must not know notes, settings (whether the line
//! counts as a task under the global filter is the caller's question) or
//! any protocol.

use std::fmt;
use std::ops::Range;

use super::fields::{Field, FieldKind};
use super::recur::{RecurError, Recurrence};
use super::write::date_as_written;
use super::{DateKind, TaskDate, read_line};

/// One problem of a task line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineProblem {
    /// The field, emoji or brackets included: byte offsets into the line.
    pub span: Range<usize>,
    pub kind: ProblemKind,
}

/// What is wrong with a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProblemKind {
    /// A date field whose value is no calendar day.
    InvalidDate {
        date: DateKind,
        /// The value as written (`2024-02-30`).
        text: String,
    },
    /// A recurrence rule that does not read.
    BadRule(RecurError),
}

impl fmt::Display for LineProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ProblemKind::InvalidDate { date, text } => {
                // The recurrence's wording of a date that is no calendar
                // day, when the text holds one to name.
                let named = date_as_written(text).map(RecurError::InvalidDate);
                match named {
                    Some(error) => write!(f, "The task's {} date: {error}.", date.name()),
                    None => write!(
                        f,
                        "The task's {} date: {text:?} is not a calendar date.",
                        date.name()
                    ),
                }
            }
            ProblemKind::BadRule(error) => {
                write!(f, "The task's recurrence rule: {error}.")
            }
        }
    }
}

/// The problems of the task on `line` (one line, without its break), left
/// to right; none when the line is no task. Only the fields that count are
/// checked (of a field written twice, the leftmost).
pub fn problems(line: &str) -> Vec<LineProblem> {
    let Some(parts) = read_line(line) else {
        return Vec::new();
    };
    let fields = &parts.fields;
    let value = |field: &Field| line.get(field.value.clone()).unwrap_or_default();
    let mut out = Vec::new();
    for date in DateKind::ALL {
        let Some(field) = fields.get(date.field()) else {
            continue;
        };
        let text = value(field);
        if !TaskDate::of_text(text).is_valid() {
            out.push(LineProblem {
                span: field.span.clone(),
                kind: ProblemKind::InvalidDate {
                    date,
                    text: text.to_string(),
                },
            });
        }
    }
    if let Some(field) = fields.get(FieldKind::Recurrence)
        && let Err(error) = Recurrence::parse(value(field))
    {
        out.push(LineProblem {
            span: field.span.clone(),
            kind: ProblemKind::BadRule(error),
        });
    }
    out.sort_by_key(|p| p.span.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(line: &str) -> Vec<String> {
        problems(line)
            .iter()
            .map(|p| format!("{:?} {p}", &line[p.span.clone()]))
            .collect()
    }

    #[test]
    fn invalid_dates_and_unreadable_rules_with_their_fields() {
        assert_eq!(
            shown("- [ ] pay 🔁 every funday 📅 2024-02-30 ⏳ 2024-02-28"),
            [
                "\"🔁 every funday\" The task's recurrence rule: cannot read \"every funday\": \
                 expected day(s), weekday(s), week(s), month(s), year(s), a weekday or a month \
                 at \"funday\".",
                "\"📅 2024-02-30\" The task's due date: 2024-02-30 is not a calendar date.",
            ]
        );
        assert_eq!(
            shown("- [x] dv [repeat:: every day] [start:: 2023-13-01] [completion:: 2024-04-31]"),
            [
                "\"[start:: 2023-13-01]\" The task's start date: 2023-13-01 is not a calendar date.",
                "\"[completion:: 2024-04-31]\" The task's done date: 2024-04-31 is not a calendar date.",
            ]
        );
    }

    #[test]
    fn a_sound_task_and_lines_that_are_no_tasks_have_none() {
        for line in [
            "- [ ] fine 🔁 every week on Monday when done 📅 2024-02-29 ✅ 2024-03-01",
            "- [ ] text 📅 2024-02-30 then words (not a field)",
            "- no checkbox 📅 2024-02-30",
            "plain 🔁 every funday",
            "",
        ] {
            assert_eq!(shown(line), Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn no_panic_on_any_cut() {
        let line =
            "> 1. [ ] ünï 🔁 every 2 weeks on Tuesday 📅\u{fe0f}2024-02-30 [due:: 9999-99-99] ^b";
        for (cut, _) in line.char_indices() {
            for p in problems(&line[..cut]) {
                assert!(line[..cut].get(p.span.clone()).is_some(), "{cut}");
            }
        }
    }
}
