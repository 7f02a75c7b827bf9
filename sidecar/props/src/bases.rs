//! `bases`: any text as a Bases expression and as a base's YAML
//! (`weft-bases`). Parsing never panics and is bounded; an expression that
//! parses names its properties at places inside it; a base that reads, and
//! a query made of the text as its filter, run every view on a small vault
//! of every kind of value to a table or an error, and the table renders
//! (JSON, Markdown, CSV) — never a panic, an overflow or a runaway.

use std::sync::OnceLock;

use weft_bases::eval::value::Row;
use weft_bases::{Base, Context, Files, Request, RowMeta, render, run};
use weft_vault::VaultIndex;

use crate::input::lossy;

/// The longest text read: a base of a few views.
const MAX_BASE: usize = 8 << 10;
/// How many views of a base are run.
const MAX_VIEWS: usize = 4;

const VAULT: &str = r#"
//- /Projects/Weft.md
---
type: project
status: active
due: 2026-12-20
start: 2026-01-05T09:30
priority: 3
done: false
tags: [project/weft, "2026"]
part_of: "[[Hub]]"
related: ["[[Ideas/Spark]]", plain, 7, true, null]
nested: {a: 1, b: [x, y]}
---
# Weft
Body #inline/tag [[Hub#Details]] ![[cover.png]] [[Missing]]
//- /Hub.md
---
aliases: [Centre]
status: [active, draft]
---
# Hub
## Details
[[Projects/Weft]]
//- /Ideas/Spark.md
---
due: not a date
priority: "high"
---
//- /Empty.md
"#;

struct Times;

impl Files for Times {
    fn meta(&self, path: &str) -> RowMeta {
        RowMeta {
            modified: Some(1_764_000_000 + path.len() as i64),
            created: Some(1_760_000_000),
            size: Some(path.len() as u64 * 10),
        }
    }
}

fn vault() -> &'static VaultIndex {
    static VAULT_INDEX: OnceLock<VaultIndex> = OnceLock::new();
    VAULT_INDEX.get_or_init(|| {
        let mut index = weft_vault::fixture::index(VAULT);
        index.add_attachment("cover.png");
        index.add_attachment("Views/All.base");
        index
    })
}

pub fn bases(data: &[u8]) {
    let text = lossy(data, MAX_BASE);
    if let Ok(expr) = weft_bases::expr::parse(&text) {
        for r in expr.property_refs() {
            assert!(
                text.get(r.span.clone()).is_some(),
                "the reference to `{}` stands at {:?}, outside `{text}`",
                r.name,
                r.span
            );
        }
    }
    let columns = ["file.name", "status", "formula.x", "file.backlinks", "due"].map(String::from);
    let query = Base::of_query(
        Some(&text),
        &columns,
        &["-due".to_string(), "file.name".to_string()],
        Some("status"),
        Some(10),
    );
    let index = vault();
    let local = |t: i64| {
        chrono::DateTime::from_timestamp(t, 0)
            .unwrap_or_default()
            .naive_utc()
    };
    let now = local(1_764_331_200);
    for base in [query, Base::parse(&text)].into_iter().flatten() {
        let views: Vec<Option<String>> = if base.views.is_empty() {
            vec![None]
        } else {
            base.views
                .iter()
                .take(MAX_VIEWS)
                .map(|v| Some(v.name.clone()))
                .collect()
        };
        for view in views {
            for this in [
                Some(Row::File("Views/All.base".into())),
                index.id_of("Hub.md").map(Row::Note),
            ] {
                let cx = Context {
                    index,
                    files: &Times,
                    now,
                    local: &local,
                    this,
                    sees: &|row: &Row| row.path(index) != "Empty.md",
                };
                let request = Request {
                    view: view.as_deref(),
                    offset: 0,
                    page: Some(20),
                };
                if let Ok(table) = run(&base, &cx, &request) {
                    assert!(table.rows.len() <= 20, "more rows than the page");
                    let _ = render::json(&table, index, true);
                    let _ = render::markdown(&table, index);
                    let _ = render::csv(&table, index);
                }
            }
        }
    }
}
