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
            "0:0-0:8 sev2 ambiguous-link `[[Plan]]` matches 2 notes (`x/Plan`, `y/Plan`); it resolves to `x/Plan`. [candidate: x/Plan.md; candidate: y/Plan.md]",
            "0:9-0:24 sev2 broken-fragment `[[Hub#Nowhere]]`: `Hub` has no `#Nowhere`.",
            "0:25-0:38 sev2 broken-fragment `[[Hub#^gone]]`: `Hub` has no `#^gone`.",
            "0:39-0:48 sev2 unresolved-link `[[Ghost]]` links to a note that does not exist.",
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
        ["0:0-0:5 sev1 unresolved-link `[[b]]` links to a note that does not exist."]
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

/// Regression (issue 15): a fragment several headings fit went silently to
/// the first; it is now reported, with the `ambiguous` severity, listing
/// every full path. The exact path `#A#C` (the direct child) is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ambiguous_heading_fragments_are_reported_with_every_path() {
    let client = TestClient::start(
        "//- /N.md\n# A\n## B\n### C\n## C\n//- /S.md\n[[N#A#C]] [[N#C]] [[#x]] [[N#B#C]]\n# x\n## x\n",
    )
    .await;
    client.open("S.md").await;
    let diagnostics = client.diagnostics("S.md", |d| !d.is_empty()).await;
    expect![[r#"
        [
            "0:10-0:17 sev2 ambiguous-fragment `[[N#C]]`: `#C` fits 2 headings of `N`: `#A#B#C` (L3), `#A#C` (L4); it leads to the first.",
        ]
    "#]]
    .assert_debug_eq(&show(&diagnostics));
    assert_eq!(
        diagnostics[0]["data"]["candidates"],
        serde_json::json!(["#A#B#C", "#A#C"])
    );
    // The severity is the `ambiguous` one.
    let client = TestClient::start(
        "//- /.weft.toml\n[diagnostics]\nambiguous = \"hint\"\n//- /N.md\n# A\n## C\n# B\n## C\n//- /S.md\n[[N#C]]\n",
    )
    .await;
    client.open("S.md").await;
    let diagnostics = client.diagnostics("S.md", |d| !d.is_empty()).await;
    assert_eq!(
        show(&diagnostics),
        [
            "0:0-0:7 sev4 ambiguous-fragment `[[N#C]]`: `#C` fits 2 headings of `N`: `#A#C` (L2), `#B#C` (L4); it leads to the first."
        ]
    );
}

/// A value that does not fit its property's type: the type `types.json`
/// declares, or the one the vault's values agree on; a key whose values
/// disagree says nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn property_values_that_do_not_fit_their_type_are_reported() {
    let client = TestClient::start(
        "//- /.obsidian/types.json\n{\"types\": {\"done\": \"checkbox\"}}\n//- /a.md\n---\ndue: 2026-12-01\nsize: 3\n---\n//- /b.md\n---\ndue: 2026-12-02\nsize: big\n---\n//- /c.md\n---\ndue: 2026-12-03\n---\n//- /d.md\n---\ndue: 2026-12-04T10:00\n---\n//- /n.md\n---\ndue: tomorrow\ndone: maybe\nsize: 4\ntitle: [a, b]\n---\n",
    )
    .await;
    client.open("n.md").await;
    let diagnostics = client.diagnostics("n.md", |d| !d.is_empty()).await;
    expect![[r#"
        [
            "1:5-1:13 sev2 property-type `due` is a date & time property (as the vault's values of it are); `tomorrow` is not a date and time (YYYY-MM-DDTHH:MM).",
            "2:6-2:11 sev2 property-type `done` is a checkbox property (as .obsidian/types.json declares it); `maybe` is not true or false.",
        ]
    "#]].assert_debug_eq(&show(&diagnostics));
}
