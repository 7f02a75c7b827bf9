//! `.weft.toml` changed while sessions run: the very next request follows
//! it (regression: it was read once, when the vault's hub was made, so a
//! `deny` rule, `read_only` or an `exclude` added later was ignored until
//! the daemon exited).

use serde_json::json;

use super::{VAULT, session, text_of};

/// Writes `.weft.toml` so that its metadata surely changes.
fn set_config(root: &std::path::Path, text: &str) {
    let path = root.join(".weft.toml");
    let temp = root.join(".weft.toml.new");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, &path).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_added_later_applies_to_the_next_request() {
    let fixture = format!("{VAULT}//- /private/secret.md\n# Secret\nzanzibar [[Hub]]\n");
    let s = session(&fixture).await;
    s.ok("read_note", json!({"path": "private/secret"})).await;
    let (_, v) = s.ok("search_notes", json!({"query": "zanzibar"})).await;
    assert_eq!(v["total"], 1);
    set_config(s.root(), "[agent]\ndeny = [\"private/\"]\n");
    let e = s.err("read_note", json!({"path": "private/secret"})).await;
    assert!(e.contains("`[agent] deny`"), "{e}");
    let (_, v) = s.ok("search_notes", json!({"query": "zanzibar"})).await;
    assert_eq!(v["total"], 0);
    let e = s
        .err("write_note", json!({"path": "private/new", "content": "x"}))
        .await;
    assert!(e.contains("deny"), "{e}");
    // Taken away again: visible at once.
    set_config(s.root(), "");
    s.ok("read_note", json!({"path": "private/secret"})).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_added_later_withdraws_the_writing_tools() {
    let s = session(VAULT).await;
    let listed = s.client.list_all_tools().await.unwrap();
    assert!(listed.iter().any(|t| t.name == "write_note"));
    s.ok(
        "write_note",
        json!({"path": "before", "content": "# Before\n"}),
    )
    .await;
    set_config(s.root(), "[agent]\nread_only = true\n");
    let e = s
        .err(
            "write_note",
            json!({"path": "after", "content": "# After\n"}),
        )
        .await;
    assert!(e.contains("read-only"), "{e}");
    assert!(!s.root().join("after.md").exists());
    let listed = s.client.list_all_tools().await.unwrap();
    assert!(!listed.iter().any(|t| t.name == "write_note"));
    assert!(listed.iter().any(|t| t.name == "read_note"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exclude_added_later_filters_the_index_and_the_full_text() {
    let fixture = format!("{VAULT}//- /archive/old.md\n# Old\nquetzalcoatl [[Hub]]\n");
    let s = session(&fixture).await;
    let (_, v) = s.ok("search_notes", json!({"query": "quetzalcoatl"})).await;
    assert_eq!(v["total"], 1);
    set_config(s.root(), "exclude = [\"archive/\"]\n");
    let (_, v) = s.ok("search_notes", json!({"query": "quetzalcoatl"})).await;
    assert_eq!(v["total"], 0, "{v}");
    let (_, v) = s
        .ok("get_links", json!({"path": "Hub", "direction": "in"}))
        .await;
    assert!(!v.to_string().contains("archive/old"), "{v}");
    let result = s
        .call_raw("read_note", json!({"path": "archive/old"}))
        .await;
    assert_eq!(result.is_error, Some(true), "{}", text_of(&result));
    // And back.
    set_config(s.root(), "");
    let (_, v) = s.ok("search_notes", json!({"query": "quetzalcoatl"})).await;
    assert_eq!(v["total"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_file_keeps_the_last_good_configuration_and_says_so() {
    let fixture = format!(
        "{VAULT}//- /.weft.toml\n[agent]\ndeny = [\"private/\"]\n//- /private/secret.md\n# Secret\n"
    );
    let s = session(&fixture).await;
    set_config(s.root(), "[agent]\ndeny = [\"private/\"]\nbogus = 1\n");
    let e = s.err("read_note", json!({"path": "private/secret"})).await;
    assert!(e.contains("`[agent] deny`"), "still denied: {e}");
    let (text, v) = s.ok("vault_info", json!({})).await;
    let error = v["config_error"].as_str().unwrap_or_default().to_string()
        + v["config"]["error"].as_str().unwrap_or_default();
    assert!(
        text.contains("bogus") || error.contains("bogus"),
        "{text}\n{v:#}"
    );
    // Fixed: the error is gone.
    set_config(s.root(), "[agent]\ndeny = [\"private/\"]\n");
    let (text, _) = s.ok("vault_info", json!({})).await;
    assert!(!text.contains("bogus"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vault_that_starts_with_a_broken_file_is_served_once_it_is_fixed() {
    let dir = tempfile::tempdir().unwrap();
    super::write_fixture(dir.path(), VAULT);
    set_config(dir.path(), "exclude = 3\n");
    let state = weft_tools::ToolState::open(dir.path(), Default::default()).unwrap();
    state.start();
    let phase = tokio::time::timeout(super::DEADLINE, state.wait_ready())
        .await
        .unwrap();
    assert!(
        matches!(phase, super::Phase::Failed(ref e) if e.contains(".weft.toml:1")),
        "{phase:?}"
    );
    let e = state.check_usable().unwrap_err().to_string();
    assert!(e.contains("Fix .weft.toml"), "{e}");
    set_config(dir.path(), "exclude = []\n");
    let phase = tokio::time::timeout(super::DEADLINE, async {
        state.hub().wait_unfailed().await;
        state.wait_ready().await
    })
    .await
    .unwrap();
    assert_eq!(phase, super::Phase::Ready);
    assert!(state.index().len() > 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn property_types_that_do_not_read_are_said_in_vault_info() {
    let fixture = format!("{VAULT}//- /.obsidian/types.json\n{{\"types\": [\n");
    let s = session(&fixture).await;
    let (text, v) = s.ok("vault_info", json!({})).await;
    let error = v["config"]["types_error"].as_str().unwrap_or_default();
    assert!(error.contains("types.json"), "{v:#}");
    assert!(text.contains("inferred from the values"), "{text}");
}

/// The paths of a search's hits, sorted.
fn hit_paths(v: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = v["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits in {v:#}"))
        .iter()
        .map(|h| h["path"].as_str().unwrap_or_default().to_string())
        .collect();
    out.sort();
    out
}

/// A key `types.json` declares text compares as text in every filter (a
/// query's `key:value`, the `frontmatter` argument, `where`): `01234` is
/// not 1234 there, while an undeclared key's `1.10` is the number 1.1. A
/// changed `types.json` applies to the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_declared_text_compares_as_text_and_follows_types_json() {
    let fixture = format!(
        "{VAULT}//- /.obsidian/types.json\n{{\"types\": {{\"zip\": \"text\"}}}}\n\
         //- /codes/a.md\n---\nzip: \"01234\"\nversion: \"1.10\"\n---\n# A\n\
         //- /codes/b.md\n---\nzip: 1234\nversion: 1.1\n---\n# B\n"
    );
    let s = session(&fixture).await;
    let search = |q: serde_json::Value| {
        let s = &s;
        async move { hit_paths(&s.ok("search_notes", q).await.1) }
    };
    assert_eq!(search(json!({"query": "zip:01234"})).await, ["codes/a"]);
    assert_eq!(search(json!({"query": "zip:1234"})).await, ["codes/b"]);
    assert_eq!(
        search(json!({"frontmatter": {"zip": "01234"}})).await,
        ["codes/a"]
    );
    assert_eq!(
        search(json!({"frontmatter": {"zip": 1234}})).await,
        ["codes/b"]
    );
    assert_eq!(
        search(json!({"query": "version:1.1"})).await,
        ["codes/a", "codes/b"],
        "undeclared: numbers"
    );
    // A date-like text of a text key is a text, not a malformed date.
    assert_eq!(
        search(json!({"query": "zip:2026-13-45"})).await,
        Vec::<String>::new()
    );
    let (_, v) = s
        .ok(
            "update_frontmatter",
            json!({"where": "zip:01234", "set": {"checked": true}, "dry_run": true}),
        )
        .await;
    assert_eq!(v["changes"].as_array().map(Vec::len), Some(1), "{v:#}");

    let types = s.root().join(".obsidian/types.json");
    let temp = s.root().join(".obsidian/types.json.new");
    std::fs::write(&temp, r#"{"types": {"version": "text"}}"#).unwrap();
    std::fs::rename(&temp, &types).unwrap();
    assert_eq!(search(json!({"query": "version:1.1"})).await, ["codes/b"]);
    assert_eq!(search(json!({"query": "version:1.10"})).await, ["codes/a"]);
    assert_eq!(
        search(json!({"query": "zip:1234"})).await,
        ["codes/a", "codes/b"],
        "no longer declared: numbers"
    );
}
