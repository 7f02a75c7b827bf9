//! References: on links, headings, blocks, tags, and anywhere in a note.

use expect_test::expect;
use serde_json::Value;

use super::{TestClient, VAULT};

async fn references(
    client: &TestClient,
    rel: &str,
    needle: &str,
    declaration: bool,
) -> Vec<String> {
    let mut params = client.at(rel, needle);
    params["context"] = serde_json::json!({"includeDeclaration": declaration});
    let result = client.request("textDocument/references", params).await;
    let mut out: Vec<String> = match result {
        Value::Array(items) => items.iter().map(|l| client.show_location(l)).collect(),
        _ => Vec::new(),
    };
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn references_of_links_notes_headings_blocks_and_tags() {
    let client = TestClient::start(&format!(
        "{VAULT}//- /more.md\n[[Hub#details]] [[Ghost]] #Project/weft/deep #projectile\n"
    ))
    .await;
    let a = "notes/A.md";
    // On a link: every link to its target (here: all of Hub's backlinks).
    expect![[r#"
        [
            "more.md:0:0-0:15",
            "notes/A.md:1:16-1:37",
            "notes/A.md:1:4-1:11",
            "notes/A.md:1:48-1:63",
            "notes/A.md:2:45-2:59",
            "notes/A.md:2:8-2:23",
            "notes/Café notes/Crème brûlée.md:0:8-0:15",
            "notes/Café notes/Crème brûlée.md:1:0-1:26",
        ]
    "#]]
    .assert_debug_eq(&references(&client, a, "[[H$0ub]]", false).await);
    // Anywhere else in a note: its backlinks (plus the note itself).
    let anywhere = references(&client, "Hub.md", "Intro par$0agraph", true).await;
    assert_eq!(anywhere.len(), 9);
    assert!(anywhere.contains(&"Hub.md:0:0-0:0".to_string()));
    // On a heading, and on a link with a heading: links to that heading
    // (by text or slug, Markdown links too).
    let details = vec![
        "notes/A.md:1:48-1:63".to_string(),
        "notes/Café notes/Crème brûlée.md:1:0-1:26".to_string(),
        "more.md:0:0-0:15".to_string(),
    ];
    let mut sorted = details.clone();
    sorted.sort();
    assert_eq!(
        references(&client, "Hub.md", "## Det$0ails", false).await,
        sorted
    );
    assert_eq!(
        references(&client, a, "[[Hub#Det$0ails]]", false).await,
        sorted
    );
    // On a block id.
    assert_eq!(
        references(&client, "Hub.md", "^in$0tro", false).await,
        ["notes/A.md:2:45-2:59"]
    );
    // An unresolved target: every link to that name.
    assert_eq!(
        references(&client, a, "[[Gho$0st]]", false).await,
        ["more.md:0:16-0:25", "notes/A.md:2:28-2:37"]
    );
    // A tag: its uses and its sub-tags' (case-insensitive), not #projectile.
    expect![[r#"
        [
            "more.md:0:26-0:44",
            "notes/A.md:2:60-2:73",
            "notes/Café notes/Crème brûlée.md:0:30-0:38",
        ]
    "#]]
    .assert_debug_eq(
        &references(
            &client,
            "notes/Café notes/Crème brûlée.md",
            "#proj$0ect",
            false,
        )
        .await,
    );
}

/// On a link to an attachment: every link that reaches that file, in any
/// form, placed without reading the notes, and none that reaches another file of the
/// same name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn references_of_an_attachment_link() {
    let client = TestClient::start(
        "//- /notes/S.md\n![[diagram.png]] [a](../img/diagram.png) ![[other/diagram.png]]\n\
         //- /notes/deep/Tëst.md\né [x](../../img/diagram.png) ![[img/diagram.png|wide]]\n\
         //- /img/diagram.png\n//- /other/diagram.png\n",
    )
    .await;
    expect![[r#"
        [
            "notes/S.md:0:0-0:16",
            "notes/S.md:0:17-0:40",
            "notes/deep/Tëst.md:0:3-0:29",
            "notes/deep/Tëst.md:0:30-0:55",
        ]
    "#]]
    .assert_debug_eq(&references(&client, "notes/S.md", "![[diag$0ram.png]]", false).await);
    assert_eq!(
        references(&client, "notes/S.md", "![[other/diag$0ram.png]]", false).await,
        ["notes/S.md:0:41-0:63"]
    );
}
