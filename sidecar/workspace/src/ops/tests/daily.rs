//! `daily_note`: the configured folder, format and template; ops; dates.

use super::TestVault;
use crate::ops::template::iso_date;
use crate::ops::{DailyNote, DailyOp, OpError, WriteOptions};
use weft_search::dates::{Now, Zone};

const CONFIG: &str = "[daily]\nfolder = \"journal\"\nformat = \"YYYY/MM/YYYY-MM-DD\"\ntemplate = \"templates/day\"\n";
const TEMPLATE: &str = "# {{date:dddd D MMMM}}\n## Log\n\n## Tasks\n";

fn daily(date: &str, op: DailyOp) -> DailyNote {
    DailyNote {
        date: Some(date.into()),
        op,
        options: WriteOptions::default(),
    }
}

#[test]
fn a_missing_daily_note_is_made_from_the_template() {
    let v = TestVault::new(&[(".weft.toml", CONFIG), ("templates/day.md", TEMPLATE)]);
    let report = v
        .ops()
        .daily_note(&daily(
            "2024-03-09",
            DailyOp::AppendSection {
                section: "Log".into(),
                content: "- woke up".into(),
            },
        ))
        .expect("writes");
    assert_eq!(report.path, "journal/2024/03/2024-03-09.md");
    assert!(report.created);
    assert_eq!(
        v.read("journal/2024/03/2024-03-09.md"),
        "# Saturday 9 March\n## Log\n- woke up\n\n## Tasks\n"
    );
    let report = v
        .ops()
        .daily_note(&daily(
            "2024-03-09",
            DailyOp::Prepend {
                content: "top".into(),
            },
        ))
        .expect("writes");
    assert!(!report.created);
    let read = v
        .ops()
        .daily_note(&daily("2024-03-09", DailyOp::Read))
        .expect("reads");
    assert!(read.exists);
    assert_eq!(
        read.text,
        "top\n# Saturday 9 March\n## Log\n- woke up\n\n## Tasks\n"
    );
    v.assert_fresh();
}

#[test]
fn reads_create_the_note_unless_nothing_may_be_written() {
    let v = TestVault::new(&[]);
    let today = Now::read(Zone::System).today();
    let report = v.ops().daily_note(&DailyNote::default()).expect("reads");
    assert_eq!(report.path, format!("{}.md", iso_date(today)));
    assert!(report.exists && report.created);
    assert!(v.exists(&report.path));

    let v = TestVault::new(&[(".weft.toml", "[agent]\nread_only = true\n")]);
    let report = v.dry(|ops| ops.daily_note(&daily("yesterday", DailyOp::Read)));
    assert!(!report.exists);
    assert_eq!(report.path, format!("{}.md", iso_date(today.add_days(-1))));
    let error = v.fails(|ops| {
        ops.daily_note(&daily(
            "today",
            DailyOp::Append {
                content: "x".into(),
            },
        ))
    });
    assert_eq!(error, OpError::ReadOnly);
}

#[test]
fn errors_create_nothing() {
    let v = TestVault::new(&[(".weft.toml", CONFIG), ("templates/day.md", TEMPLATE)]);
    let error = v.fails(|ops| ops.daily_note(&daily("09/03/2024", DailyOp::Read)));
    assert!(error.to_string().contains("YYYY-MM-DD"), "{error}");
    let error = v.fails(|ops| {
        ops.daily_note(&daily(
            "2024-03-10",
            DailyOp::AppendSection {
                section: "Missing".into(),
                content: "x".into(),
            },
        ))
    });
    assert!(
        error.to_string().contains("no section `Missing`"),
        "{error}"
    );

    let v = TestVault::new(&[(".weft.toml", CONFIG)]);
    let error = v.fails(|ops| {
        ops.daily_note(&daily(
            "2024-03-10",
            DailyOp::Append {
                content: "x".into(),
            },
        ))
    });
    assert!(error.to_string().contains("no template"), "{error}");
}

/// A vault synced between machines in different zones names its daily
/// notes by its configured zone, whatever the machine's: Kiritimati (UTC+14)
/// and Pago Pago (UTC−11) are 25 hours apart, never on the same day.
#[test]
fn daily_notes_are_named_by_the_configured_zone() {
    let mut paths = Vec::new();
    for name in ["Pacific/Kiritimati", "Pacific/Pago_Pago"] {
        let zone = Zone::named(name).unwrap();
        let config = format!("timezone = \"{name}\"\n");
        let v = TestVault::new(&[(".weft.toml", config.as_str())]);
        let before = Now::read(zone).today();
        let report = v.ops().daily_note(&DailyNote::default()).expect("reads");
        let after = Now::read(zone).today();
        assert!(
            [before, after]
                .map(|d| format!("{}.md", iso_date(d)))
                .contains(&report.path),
            "{name}: {} is not {before:?}",
            report.path
        );
        paths.push(report.path);
    }
    assert_ne!(paths[0], paths[1]);
}
