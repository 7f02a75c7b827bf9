//! A history store deleted under a running server (regression: the next
//! `note_history` answered "no versions" as if nothing had ever happened,
//! and the next write silently started a new history).

use serde_json::json;

use super::{VAULT, session};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_deleted_while_serving_is_reported_in_every_history_answer() {
    let s = session(VAULT).await;
    s.state.wait_history(super::DEADLINE).await;
    s.ok(
        "edit_note",
        json!({"path": "Hub", "ops": [{"op": "append", "text": "\nMore.\n"}]}),
    )
    .await;
    let (_, v) = s.ok("note_history", json!({"path": "Hub"})).await;
    assert_eq!(v["versions"].as_array().unwrap().len(), 2, "{v}");
    assert!(v.get("history_lost").is_none());

    std::fs::remove_dir_all(s.root().join(".weft/history.git")).unwrap();
    let (text, v) = s.ok("note_history", json!({"path": "Hub"})).await;
    assert!(
        text.starts_with("⚠ Note history was lost at") && text.contains("was deleted"),
        "{text}"
    );
    assert!(v["history_lost"]["at"].is_string(), "{v}");
    // The vault as it is now is the new start.
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 1, "{v}");
    assert!(
        versions[0]["message"]
            .as_str()
            .unwrap()
            .contains("started its history again"),
        "{v}"
    );
    let id = versions[0]["id"].as_str().unwrap().to_string();
    let (text, _) = s
        .ok("read_note", json!({"path": "Hub", "version": id}))
        .await;
    assert!(text.starts_with("⚠ Note history was lost"), "{text}");
    let (text, _) = s.ok("diff_note", json!({"path": "Hub", "from": id})).await;
    assert!(text.starts_with("⚠ Note history was lost"), "{text}");
    // Writes record again, on top of the new start.
    s.ok(
        "edit_note",
        json!({"path": "Hub", "ops": [{"op": "append", "text": "\nAgain.\n"}]}),
    )
    .await;
    let (text, v) = s.ok("note_history", json!({"path": "Hub"})).await;
    assert_eq!(v["versions"].as_array().unwrap().len(), 2, "{v}");
    assert!(text.starts_with("⚠ Note history was lost"), "{text}");
    let (_, v) = s.ok("vault_info", json!({})).await;
    assert!(
        v["history"]["lost"]["reason"]
            .as_str()
            .unwrap()
            .contains("deleted"),
        "{v}"
    );
}
