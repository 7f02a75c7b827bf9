//! `daily_note`: the configured folder, format and template; ops; dates.

use super::TestVault;
use crate::ops::template::{iso_date, now};
use crate::ops::{DailyNote, DailyOp, OpError, WriteOptions};

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
    let (today, _) = now();
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
