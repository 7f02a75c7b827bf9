//! A task's date: today, tomorrow and the seven days after, each as the
//! `YYYY-MM-DD` the field takes, told by its name (`tomorrow`, `Tuesday`),
//! kept when it begins with what is typed (digits of the date, or letters
//! of its name). Today comes in the request; the calendar is chrono's
//! (`daily::format_date`). It must not know task lines or the clock.

use std::ops::Range;

use super::model::{Completions, Item, ItemKind, Request};
use crate::daily::format_date;
use crate::tasks::TaskSettings;

/// Days offered after today and tomorrow.
const DAYS_AFTER: i64 = 7;

/// The dates for a task's date field being typed (`typed` at `replace`),
/// when the line counts as a task (its `description` holds the global
/// filter of `request.tasks`).
pub(super) fn task_dates(
    typed: &str,
    replace: Range<usize>,
    description: &str,
    request: &Request<'_>,
) -> Completions {
    let counts = request
        .tasks
        .is_none_or(|settings: &TaskSettings| settings.counts_description(description));
    let Some(today) = request.daily.map(|d| d.today).filter(|_| counts) else {
        return Completions {
            replace,
            ..Completions::default()
        };
    };
    let typed = typed.to_ascii_lowercase();
    let items = (0..2 + DAYS_AFTER)
        .map(|days| {
            let date = today.add_days(days);
            let name = match days {
                0 => "today".to_string(),
                1 => "tomorrow".to_string(),
                _ => format_date(date, "dddd"),
            };
            (format_date(date, "YYYY-MM-DD"), name)
        })
        .filter(|(iso, name)| iso.starts_with(&typed) || name.to_lowercase().starts_with(&typed))
        .map(|(iso, name)| Item {
            label: iso.clone(),
            kind: ItemKind::Date,
            insert: iso.clone(),
            filter: format!("{iso} {name}"),
            detail: Some(name),
            documentation: None,
            note: None,
        })
        .collect();
    Completions {
        items,
        replace,
        incomplete: false,
    }
}
