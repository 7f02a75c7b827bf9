//! THE clock: what time it is, which day that is, and in which zone. "Today",
//! "yesterday", relative dates, daily notes, templates and every time an
//! agent reads are answered here, in the vault's zone: `timezone` in
//! `.weft.toml`, else the system's. A vault synced between machines in
//! different zones names its days by the zone it is configured for.
//!
//! [`unix_now`] is the only read of the system clock; everything else is a
//! pure function of a [`Now`] (an instant and a [`Zone`]) or of a time and a
//! zone, so tests pass both in. The calendar is chrono's, and so is the
//! system's zone; a named zone's rules come from jiff's bundled IANA
//! database (the same on Windows, which has no zoneinfo folder), asked only
//! for offsets. Must not know the configuration file, the index or any
//! protocol.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{
    DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Offset,
    SecondsFormat, TimeZone, Timelike,
};
use jiff::tz::{AmbiguousOffset, TimeZone as Rules};
use weft_vault::daily::Date;

/// The zone days are counted in.
#[derive(Debug, Clone, Copy, Default)]
pub enum Zone {
    /// The system's zone, as the operating system says.
    #[default]
    System,
    /// An IANA zone named in the configuration (`Europe/Berlin`).
    Named(&'static Rules),
}

impl PartialEq for Zone {
    fn eq(&self, other: &Zone) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Zone {}

static UTC_RULES: Rules = Rules::UTC;

impl Zone {
    /// Coordinated Universal Time.
    pub const UTC: Zone = Zone::Named(&UTC_RULES);

    /// The zone an IANA name gives (`Europe/Berlin`, `UTC`; case does not
    /// matter); the error says what is accepted.
    pub fn named(name: &str) -> Result<Zone, String> {
        let name = name.trim();
        if name.eq_ignore_ascii_case("UTC") {
            return Ok(Zone::UTC);
        }
        match Rules::get(name) {
            Ok(rules) if rules.iana_name().is_some() => Ok(Zone::Named(interned(rules))),
            _ => Err(format!(
                "`{name}` is not a time zone name; use an IANA name such as \"Europe/Berlin\" \
                 or \"America/New_York\", or leave `timezone` out to use the system's zone"
            )),
        }
    }

    /// `Europe/Berlin` (as the database spells it), or `system`.
    pub fn name(self) -> &'static str {
        match self {
            Zone::System => "system",
            Zone::Named(rules) => rules.iana_name().unwrap_or("UTC"),
        }
    }

    /// The offset from UTC in force at `t` (Unix seconds).
    pub fn offset_at(self, t: i64) -> FixedOffset {
        match self {
            Zone::System => chrono::Local.offset_from_utc_datetime(&utc_of(t)).fix(),
            Zone::Named(rules) => {
                let min = jiff::Timestamp::MIN.as_second();
                let max = jiff::Timestamp::MAX.as_second();
                let at = jiff::Timestamp::from_second(t.clamp(min, max))
                    .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
                fixed(rules.to_offset(at).seconds())
            }
        }
    }

    /// The wall-clock date and time at `t`.
    pub fn local(self, t: i64) -> NaiveDateTime {
        utc_of(t) + Duration::seconds(i64::from(self.offset_at(t).local_minus_utc()))
    }

    /// The instant a wall-clock time names. A time the clock shows twice (an
    /// hour repeated when summer time ends) is its first; a time it skips
    /// (when summer time starts) is the moment the clock jumps past it.
    /// `None` past the calendar's ends.
    pub fn instant(self, local: NaiveDateTime) -> Option<i64> {
        // Gaps are at most a few hours, on quarter hours in every zone.
        for step in 0..=24 * 4 {
            let at = local.checked_add_signed(Duration::minutes(15 * step))?;
            if let Some(t) = self.earliest(at) {
                // Inside a gap: the jump itself, the gap's first real second.
                return Some(if step == 0 { t } else { self.gap_end(t) });
            }
        }
        None
    }

    /// The earliest instant showing `local`, `None` when the clock skips it.
    fn earliest(self, local: NaiveDateTime) -> Option<i64> {
        match self {
            Zone::System => chrono::Local
                .from_local_datetime(&local)
                .earliest()
                .map(|t| t.timestamp()),
            Zone::Named(rules) => {
                let wall = local.and_utc().timestamp();
                let Some(civil) = civil(local) else {
                    // Past jiff's years (±9999): the offset of its ends.
                    return Some(wall - i64::from(self.offset_at(wall).local_minus_utc()));
                };
                match rules.to_ambiguous_timestamp(civil).offset() {
                    AmbiguousOffset::Unambiguous { offset }
                    | AmbiguousOffset::Fold { before: offset, .. } => {
                        Some(wall - i64::from(offset.seconds()))
                    }
                    AmbiguousOffset::Gap { .. } => None,
                }
            }
        }
    }

    /// The first second at or before `t` whose wall clock is past a gap just
    /// before `t`: the instant the clock jumped.
    fn gap_end(self, t: i64) -> i64 {
        let offset = self.offset_at(t);
        let mut start = t;
        // Walk back by minutes while the offset holds (at most a quarter hour).
        while start > t - 15 * 60 && self.offset_at(start - 60) == offset {
            start -= 60;
        }
        start
    }

    /// The first second of a day in this zone (midnight, or when the clock
    /// jumps past a midnight it skips).
    pub fn day_start(self, date: NaiveDate) -> Option<i64> {
        self.instant(date.and_time(NaiveTime::MIN))
    }

    /// The date at `t`.
    pub fn date_at(self, t: i64) -> NaiveDate {
        self.local(t).date()
    }

    /// `t` as RFC 3339 with this zone's offset at that moment, to the
    /// second: `2024-01-15T11:30:00+01:00` (never `Z`).
    pub fn rfc3339(self, t: i64) -> String {
        let offset = self.offset_at(t);
        DateTime::<FixedOffset>::from_naive_utc_and_offset(utc_of(t), offset)
            .to_rfc3339_opts(SecondsFormat::Secs, false)
    }

    /// A time with any offset, shown as RFC 3339 in this zone.
    pub fn rfc3339_of<Z: TimeZone>(self, time: &DateTime<Z>) -> String {
        self.rfc3339(time.timestamp())
    }
}

/// One copy of each named zone's rules for the life of the process, so
/// that a [`Zone`] is `Copy`: at most one per IANA name (about 600).
fn interned(rules: Rules) -> &'static Rules {
    static ZONES: OnceLock<Mutex<HashMap<String, &'static Rules>>> = OnceLock::new();
    let name = rules.iana_name().unwrap_or_default().to_string();
    let mut zones = ZONES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    zones
        .entry(name)
        .or_insert_with(|| Box::leak(Box::new(rules)))
}

/// An offset in seconds as chrono's (offsets are within a day).
fn fixed(seconds: i32) -> FixedOffset {
    FixedOffset::east_opt(seconds).unwrap_or(FixedOffset::east_opt(0).expect("zero offset"))
}

/// A chrono date and time as jiff's, within jiff's years.
fn civil(local: NaiveDateTime) -> Option<jiff::civil::DateTime> {
    jiff::civil::DateTime::new(
        i16::try_from(local.year()).ok()?,
        local.month() as i8,
        local.day() as i8,
        local.hour() as i8,
        local.minute() as i8,
        local.second() as i8,
        0,
    )
    .ok()
}

/// An instant and the zone its calendar is read in: what "now", "today"
/// and `7d` mean for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Now {
    /// Unix seconds.
    pub unix: i64,
    pub zone: Zone,
}

impl Now {
    /// The system clock, read in `zone`.
    pub fn read(zone: Zone) -> Now {
        Now {
            unix: unix_now(),
            zone,
        }
    }

    /// `unix` in UTC (tests, and callers with no zone to speak of).
    pub const fn utc(unix: i64) -> Now {
        Now {
            unix,
            zone: Zone::UTC,
        }
    }

    /// Today's date.
    pub fn today(self) -> Date {
        Date::from(self.zone.date_at(self.unix))
    }

    /// The wall-clock time of day.
    pub fn time(self) -> NaiveTime {
        self.zone.local(self.unix).time()
    }
}

/// The system clock in Unix seconds: the one place it is read.
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Unix seconds as a UTC date and time; a time past the calendar's ends is
/// its first or last moment.
fn utc_of(t: i64) -> NaiveDateTime {
    DateTime::from_timestamp(t, 0)
        .map(|d| d.naive_utc())
        .unwrap_or(if t < 0 {
            NaiveDateTime::MIN
        } else {
            NaiveDateTime::MAX
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(name: &str) -> Zone {
        Zone::named(name).unwrap()
    }

    fn at(text: &str) -> i64 {
        DateTime::parse_from_rfc3339(text).unwrap().timestamp()
    }

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn today_at_a_utc_midnight_boundary_depends_on_the_zone() {
        let late = at("2024-01-15T23:30:00Z");
        let berlin = Now {
            unix: late,
            zone: zone("Europe/Berlin"),
        };
        let new_york = Now {
            unix: late,
            zone: zone("America/New_York"),
        };
        assert_eq!(berlin.today(), Date::from(date(2024, 1, 16)));
        assert_eq!(berlin.time(), NaiveTime::from_hms_opt(0, 30, 0).unwrap());
        assert_eq!(new_york.today(), Date::from(date(2024, 1, 15)));
        assert_eq!(Now::utc(late).today(), Date::from(date(2024, 1, 15)));
    }

    #[test]
    fn times_read_with_the_local_offset_never_z() {
        let t = at("2024-01-15T10:30:00Z");
        assert_eq!(
            zone("Europe/Berlin").rfc3339(t),
            "2024-01-15T11:30:00+01:00"
        );
        assert_eq!(
            zone("America/New_York").rfc3339(t),
            "2024-01-15T05:30:00-05:00"
        );
        assert_eq!(Zone::UTC.rfc3339(t), "2024-01-15T10:30:00+00:00");
        // Summer time: the offset of that moment, not of today.
        let july = at("2024-07-01T10:30:00Z");
        assert_eq!(
            zone("Europe/Berlin").rfc3339(july),
            "2024-07-01T12:30:00+02:00"
        );
        let commit = DateTime::parse_from_rfc3339("2024-07-01T19:30:00+09:00").unwrap();
        assert_eq!(
            zone("Europe/Berlin").rfc3339_of(&commit),
            "2024-07-01T12:30:00+02:00"
        );
    }

    #[test]
    fn days_start_at_local_midnight_across_summer_time() {
        let berlin = zone("Europe/Berlin");
        // Summer time starts 2024-03-31 at 02:00 (→ 03:00): a 23-hour day.
        let start = berlin.day_start(date(2024, 3, 31)).unwrap();
        let next = berlin.day_start(date(2024, 4, 1)).unwrap();
        assert_eq!(berlin.rfc3339(start), "2024-03-31T00:00:00+01:00");
        assert_eq!(next - start, 23 * 3_600);
        // Ends 2024-10-27 at 03:00 (→ 02:00): a 25-hour day.
        let start = berlin.day_start(date(2024, 10, 27)).unwrap();
        let next = berlin.day_start(date(2024, 10, 28)).unwrap();
        assert_eq!(next - start, 25 * 3_600);
        // 02:30 is shown twice that night: the first.
        let twice = date(2024, 10, 27).and_hms_opt(2, 30, 0).unwrap();
        assert_eq!(
            berlin.rfc3339(berlin.instant(twice).unwrap()),
            "2024-10-27T02:30:00+02:00"
        );
        // 02:30 on 2024-03-31 is never shown: the clock's jump.
        let skipped = date(2024, 3, 31).and_hms_opt(2, 30, 0).unwrap();
        assert_eq!(
            berlin.rfc3339(berlin.instant(skipped).unwrap()),
            "2024-03-31T03:00:00+02:00"
        );
    }

    #[test]
    fn a_skipped_midnight_starts_the_day_when_the_clock_jumps() {
        // Santiago: summer time began 2024-09-08 at 00:00 (→ 01:00).
        let santiago = zone("America/Santiago");
        let start = santiago.day_start(date(2024, 9, 8)).unwrap();
        assert_eq!(santiago.rfc3339(start), "2024-09-08T01:00:00-03:00");
        assert_eq!(santiago.date_at(start), date(2024, 9, 8));
        assert_eq!(santiago.date_at(start - 1), date(2024, 9, 7));
    }

    #[test]
    fn zone_names_are_iana_names() {
        assert_eq!(zone(" Europe/Berlin ").name(), "Europe/Berlin");
        assert_eq!(Zone::named("UTC"), Ok(Zone::UTC));
        assert_eq!(zone("europe/berlin").name(), "Europe/Berlin");
        assert_ne!(zone("Europe/Berlin"), zone("Europe/Paris"));
        let error = Zone::named("Berlin").unwrap_err();
        assert!(
            error.contains("`Berlin`") && error.contains("\"Europe/Berlin\""),
            "{error}"
        );
    }
}
