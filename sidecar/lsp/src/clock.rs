//! Today's local date and time for daily notes and templates, from the
//! system clock and time zone.
//!
//! It must not know notes, the index or the protocol.

use weft_vault::daily::Date;

/// Today in the local time zone.
pub fn today() -> Date {
    Date::from(chrono::Local::now().date_naive())
}

/// The local time of day.
pub(crate) fn now_time() -> chrono::NaiveTime {
    chrono::Local::now().time()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_a_plausible_date() {
        let date = today();
        assert!(date.year >= 2024, "{date:?}");
    }
}
