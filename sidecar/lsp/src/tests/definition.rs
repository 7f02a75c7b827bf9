//! Go to definition and hover, from every link form.

use expect_test::expect;
use serde_json::{Value, json};

use super::{TestClient, VAULT};

async fn definition(client: &TestClient, rel: &str, needle: &str) -> Vec<String> {
    let result = client
        .request("textDocument/definition", client.at(rel, needle))
        .await;
    match result {
        Value::Null => Vec::new(),
        Value::Array(items) => items.iter().map(|l| client.show_location(l)).collect(),
        single => vec![client.show_location(&single)],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_of_notes_headings_blocks_embeds_and_markdown_links() {
    let client = TestClient::start(&format!(
        "{VAULT}//- /embeds.md\n![[Hub#Deep]] ![[img.png]] [[#Mine]]\n## Mine\n---\nup: \"[[Hub]]\"\n"
    ))
    .await;
    let a = "notes/A.md";
    assert_eq!(
        definition(&client, a, "[[H$0ub]]").await,
        ["Hub.md:0:0-0:0"]
    );
    assert_eq!(
        definition(&client, a, "[[Cen$0tre|").await,
        ["Hub.md:0:0-0:0"]
    );
    assert_eq!(
        definition(&client, a, "[[Hub#Det$0ails]]").await,
        ["Hub.md:8:0-8:10"]
    );
    assert_eq!(
        definition(&client, a, "[[Hub#^in$0tro]]").await,
        ["Hub.md:6:0-6:23"]
    );
    assert!(definition(&client, a, "[[Gh$0ost]]").await.is_empty());
    // A missing heading still leads to the note.
    assert_eq!(
        definition(&client, a, "[[Hub#Now$0here]]").await,
        ["Hub.md:0:0-0:0"]
    );
    let cafe = "notes/Café notes/Crème brûlée.md";
    assert_eq!(
        definition(&client, cafe, "[md](../../Hub.md#det$0ails)").await,
        ["Hub.md:8:0-8:10"]
    );
    // Ambiguous: every candidate.
    assert_eq!(
        definition(&client, cafe, "[[Pl$0an]]").await,
        ["x/Plan.md:0:0-0:0", "y/Plan.md:0:0-0:0"]
    );
    // Embeds, attachments, self links and frontmatter properties.
    assert_eq!(
        definition(&client, "embeds.md", "![[Hub#De$0ep]]").await,
        ["Hub.md:9:0-9:8"]
    );
    assert_eq!(
        definition(&client, "embeds.md", "![[img$0.png]]").await,
        ["img.png:0:0-0:0"]
    );
    assert_eq!(
        definition(&client, "embeds.md", "[[#Mi$0ne]]").await,
        ["embeds.md:1:0-1:7"]
    );
    assert_eq!(
        definition(&client, "embeds.md", "[[H$0ub]]\"").await,
        ["Hub.md:0:0-0:0"]
    );
    // Not on a link: nothing.
    assert!(definition(&client, a, "Bro$0ken").await.is_empty());
}

async fn hover(client: &TestClient, rel: &str, needle: &str) -> String {
    let result = client
        .request("textDocument/hover", client.at(rel, needle))
        .await;
    result["contents"]["value"]
        .as_str()
        .unwrap_or("<none>")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_previews_targets_sections_blocks_and_counts_links() {
    let client = TestClient::start(VAULT).await;
    let a = "notes/A.md";
    expect![[r#"
        **The Hub** · `Hub.md` · 7 backlinks from 2 notes

        ---

        # The Hub

        Intro paragraph. ^intro

        ## Details
        ### Deep
        ## Other"#]]
    .assert_eq(&hover(&client, a, "[[H$0ub]]").await);
    expect![[r#"
        **The Hub** · `Hub.md` · 7 backlinks from 2 notes

        ---

        ## Details
        ### Deep"#]]
    .assert_eq(&hover(&client, a, "[[Hub#Det$0ails]]").await);
    expect![[r#"
        **The Hub** · `Hub.md` · 7 backlinks from 2 notes

        ---

        Intro paragraph."#]]
    .assert_eq(&hover(&client, a, "[[Hub#^in$0tro]]").await);
    expect!["**Ghost** does not exist yet · linked by 1 link from 1 note"]
        .assert_eq(&hover(&client, a, "[[Gh$0ost]]").await);
    expect!["**#project/weft** · 1 use · 1 note"]
        .assert_eq(&hover(&client, a, "#proj$0ect/weft").await);
    let ambiguous = hover(&client, "notes/Café notes/Crème brûlée.md", "[[Pl$0an]]").await;
    assert!(
        ambiguous.contains("Ambiguous: `x/Plan.md`, `y/Plan.md` match"),
        "{ambiguous}"
    );
    // The range is the link's.
    let result = client
        .request("textDocument/hover", client.at(a, "[[H$0ub]]"))
        .await;
    assert_eq!(
        result["range"],
        json!({"start": {"line": 1, "character": 4}, "end": {"line": 1, "character": 11}})
    );
}

/// Regression (issue 15): `[[N#A#C]]` with `# A / ## B / ### C / ## C` went
/// to the `### C` (the first `C` inside `A`); the exact path names the
/// direct child, as `read_note` and `edit_note` read `A::C`. `[[N#C]]` fits
/// both: definition offers both, hover says so and leads to the first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heading_paths_lead_to_the_direct_child_and_offer_every_candidate() {
    let client = TestClient::start(
        "//- /N.md\n# A\n## B\n### C\n## C\n//- /S.md\n[[N#A#C]] [[N#C]] [[N#B#C]] [[N#a#b#c]]\n",
    )
    .await;
    let s = "S.md";
    assert_eq!(
        definition(&client, s, "[[N#A#$0C]]").await,
        ["N.md:3:0-3:4"]
    );
    assert_eq!(
        definition(&client, s, "[[N#$0C]]").await,
        ["N.md:2:0-2:5", "N.md:3:0-3:4"]
    );
    assert_eq!(
        definition(&client, s, "[[N#B#$0C]]").await,
        ["N.md:2:0-2:5"]
    );
    assert_eq!(
        definition(&client, s, "[[N#a#b#$0c]]").await,
        ["N.md:2:0-2:5"]
    );
    let shown = hover(&client, s, "[[N#$0C]]").await;
    assert!(
        shown.contains("Ambiguous heading: `#A#B#C`, `#A#C` fit; this is the first.")
            && shown.contains("### C"),
        "{shown}"
    );
}
