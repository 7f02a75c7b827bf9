//! Document and workspace symbols, document links, folding ranges,
//! semantic tokens and code lenses.

use expect_test::expect;
use serde_json::{Value, json};

use super::{TestClient, VAULT, show_range};

fn doc(client: &TestClient, rel: &str) -> Value {
    json!({"textDocument": {"uri": client.uri(rel)}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_symbols_are_the_heading_tree() {
    let client = TestClient::start(VAULT).await;
    let result = client
        .request("textDocument/documentSymbol", doc(&client, "Hub.md"))
        .await;
    fn show(symbols: &Value, depth: usize, out: &mut Vec<String>) {
        for s in symbols.as_array().into_iter().flatten() {
            out.push(format!(
                "{}{} {} sel {}",
                "  ".repeat(depth),
                s["name"].as_str().unwrap(),
                show_range(&s["range"]),
                show_range(&s["selectionRange"])
            ));
            show(&s["children"], depth + 1, out);
        }
    }
    let mut out = Vec::new();
    show(&result, 0, &mut out);
    expect![[r#"
        [
            "The Hub 4:0-10:8 sel 4:0-4:9",
            "  Details 8:0-9:8 sel 8:0-8:10",
            "    Deep 9:0-9:8 sel 9:0-9:8",
            "  Other 10:0-10:8 sel 10:0-10:8",
        ]
    "#]]
    .assert_debug_eq(&out);
}

/// Workspace symbols as `name kKIND path:range`.
fn show_symbols(client: &TestClient, result: &Value) -> Vec<String> {
    result
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} k{} {}",
                s["name"].as_str().unwrap(),
                s["kind"],
                client.show_location(&s["location"])
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_symbols_find_notes_headings_aliases_and_tags_fuzzily() {
    let client = TestClient::start(VAULT).await;
    let show = |result: &Value| show_symbols(&client, result);
    let result = client
        .request("workspace/symbol", json!({"query": "deta"}))
        .await;
    assert_eq!(show(&result), ["Details k15 Hub.md:8:0-8:10"]);
    let result = client
        .request("workspace/symbol", json!({"query": "cntr"}))
        .await;
    assert_eq!(show(&result), ["Centre k14 Hub.md:0:0-0:0"]);
    let result = client
        .request("workspace/symbol", json!({"query": "crème"}))
        .await;
    assert_eq!(
        show(&result),
        ["Crème brûlée k1 notes/Café notes/Crème brûlée.md:0:0-0:0"]
    );
    let result = client
        .request("workspace/symbol", json!({"query": "proj"}))
        .await;
    assert_eq!(
        show(&result),
        [
            "#project k20 notes/Café notes/Crème brûlée.md:0:30-0:38",
            "#project/weft k20 notes/A.md:2:60-2:73"
        ]
    );
    let result = client
        .request("workspace/symbol", json!({"query": "plan"}))
        .await;
    let names = show(&result);
    assert!(
        names.contains(&"Plan k1 x/Plan.md:0:0-0:0".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"Plan X k15 x/Plan.md:0:0-0:8".to_string()),
        "{names:?}"
    );
}

/// Regression: a symbol whose note could not be read (gone since it was
/// indexed) took its place from the next symbol's note, so names and
/// locations were paired wrongly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symbol_whose_note_is_gone_is_left_out_not_paired_with_another() {
    let client = TestClient::start(VAULT).await;
    std::fs::remove_file(client.root.join("notes/Café notes/Crème brûlée.md")).unwrap();
    // Asked at once, the index most likely still has the note; either way
    // only the tag of A.md may be answered, at A.md.
    let result = client
        .request("workspace/symbol", json!({"query": "proj"}))
        .await;
    assert_eq!(
        show_symbols(&client, &result),
        ["#project/weft k20 notes/A.md:2:60-2:73"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_links_folding_ranges_and_code_lenses() {
    let client = TestClient::start(VAULT).await;
    let result = client
        .request("textDocument/documentLink", doc(&client, "notes/A.md"))
        .await;
    let links: Vec<String> = result
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{} {}",
                show_range(&l["range"]),
                client.rel_of(l["target"].as_str().unwrap())
            )
        })
        .collect();
    expect![[r#"
        [
            "1:4-1:11 Hub.md",
            "1:16-1:37 Hub.md",
            "1:48-1:63 Hub.md",
            "2:8-2:23 Hub.md",
            "2:45-2:59 Hub.md",
        ]
    "#]]
    .assert_debug_eq(&links);

    let result = client
        .request("textDocument/foldingRange", doc(&client, "Hub.md"))
        .await;
    let folds: Vec<String> = result
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}-{} {}",
                f["startLine"],
                f["endLine"],
                f["collapsedText"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(folds, ["0-3 frontmatter", "4-10 The Hub", "8-9 Details"]);

    let lenses = client.code_lenses("Hub.md").await;
    assert_eq!(
        lenses,
        ["0:0-0:0 7 backlinks", "8:0-8:0 2 links", "9:0-9:0 0 links"].map(String::from)[..2]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn semantic_tokens_mark_resolved_and_unresolved_links_tags_and_blocks() {
    let client = TestClient::start(VAULT).await;
    let result = client
        .request(
            "textDocument/semanticTokens/full",
            doc(&client, "notes/A.md"),
        )
        .await;
    let data: Vec<u64> = result["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    // Decode (line, start, length, type) from the relative encoding.
    let (mut line, mut start) = (0, 0);
    let mut tokens = Vec::new();
    for t in data.chunks(5) {
        if t[0] > 0 {
            line += t[0];
            start = t[1];
        } else {
            start += t[1];
        }
        tokens.push(format!("{line}:{start}+{} t{}", t[2], t[3]));
    }
    expect![[r#"
        [
            "1:4+7 t0",
            "1:16+21 t0",
            "1:48+15 t0",
            "2:8+15 t0",
            "2:28+9 t1",
            "2:45+14 t0",
            "2:60+13 t2",
        ]
    "#]]
    .assert_debug_eq(&tokens);
    let hub = client
        .request("textDocument/semanticTokens/full", doc(&client, "Hub.md"))
        .await;
    // The block id: type 3 with the declaration modifier.
    let data = hub["data"].as_array().unwrap();
    assert_eq!(data[data.len() - 2..], [json!(3), json!(1)]);
}
