//! Diagnostics: what is reported, with what severity, and when it is
//! refreshed.

use expect_test::expect;

use super::{TestClient, VAULT, show_range};

fn show(diagnostics: &[serde_json::Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| {
            let related: Vec<String> = d["relatedInformation"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r["message"].as_str().unwrap().to_string())
                .collect();
            format!(
                "{} sev{} {} {}{}",
                show_range(&d["range"]),
                d["severity"],
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
                if related.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", related.join("; "))
                }
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unresolved_ambiguous_broken_fragments_and_duplicate_blocks() {
    let client = TestClient::start(&format!(
        "{VAULT}//- /checks.md\n[[Plan]] [[Hub#Nowhere]] [[Hub#^gone]] [[Ghost]] [[Hub#Details]]\n\nOne ^dup\n\nTwo ^dup\n"
    ))
    .await;
    client.open("checks.md").await;
    let diagnostics = client.diagnostics("checks.md", |d| !d.is_empty()).await;
    expect![[r#"
        [
            "4:4-4:8 sev2 note duplicate block id ^dup: links to it reach only the first one",
            "0:0-0:8 sev2 ambiguous-link ambiguous link: `Plan` matches 2 notes (x/Plan.md, y/Plan.md); it leads to x/Plan.md [candidate: x/Plan.md; candidate: y/Plan.md]",
            "0:9-0:24 sev2 broken-fragment no heading `Nowhere` in Hub.md",
            "0:25-0:38 sev2 broken-fragment no block ^gone in Hub.md",
            "0:39-0:48 sev2 unresolved-link unresolved link: no note or file named `Ghost`",
        ]
    "#]]
    .assert_debug_eq(&show(&diagnostics));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn severities_come_from_the_config_and_other_notes_refresh_diagnostics() {
    let client = TestClient::start(
        "//- /.weft.toml\n[diagnostics]\nunresolved = \"error\"\nbroken_fragment = \"off\"\n//- /a.md\n[[b]] [[c#x]]\n//- /c.md\n# C\n",
    )
    .await;
    client.open("a.md").await;
    let diagnostics = client.diagnostics("a.md", |d| !d.is_empty()).await;
    assert_eq!(
        show(&diagnostics),
        ["0:0-0:5 sev1 unresolved-link unresolved link: no note or file named `b`"]
    );
    // Another open note creating `b` resolves the link: a.md is refreshed.
    client.open_text("b.md", "# B\n").await;
    client.diagnostics("a.md", |d| d.is_empty()).await;
    // ... and closing it unsaved makes it unresolved again.
    client
        .notify(
            "textDocument/didClose",
            serde_json::json!({"textDocument": {"uri": client.uri("b.md")}}),
        )
        .await;
    client.diagnostics("a.md", |d| d.len() == 1).await;
}
