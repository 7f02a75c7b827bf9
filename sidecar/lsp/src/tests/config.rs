//! `.weft.toml` edited while the editor is open: applied at once, or, when
//! it no longer loads, shown to the user while the last good configuration
//! stays (regression: it was read once per daemon).

use super::TestClient;

fn set_config(client: &TestClient, text: &str) {
    let temp = client.path(".weft.toml.new");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, client.path(".weft.toml")).unwrap();
}

fn severities(diagnostics: &[serde_json::Value]) -> Vec<i64> {
    diagnostics
        .iter()
        .map(|d| d["severity"].as_i64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_configuration_applies_and_a_broken_one_is_shown() {
    let client = TestClient::start(
        "//- /.weft.toml\n[diagnostics]\nunresolved = \"error\"\n//- /a.md\n# A\nSee [[missing]].\n",
    )
    .await;
    client.open("a.md").await;
    client.diagnostics("a.md", |d| severities(d) == [1]).await;
    set_config(&client, "[diagnostics]\nunresolved = \"hint\"\n");
    client.diagnostics("a.md", |d| severities(d) == [4]).await;
    set_config(&client, "[diagnostics]\nunresolved = \"loud\"\n");
    let shown = client
        .notification("window/showMessage", |n| {
            n["params"]["message"]
                .as_str()
                .is_some_and(|m| m.contains(".weft.toml") && m.contains("keeping the last"))
        })
        .await;
    assert_eq!(shown["params"]["type"], 2, "a warning: {shown}");
    // The last good configuration stays.
    client.diagnostics("a.md", |d| severities(d) == [4]).await;
}
