//! Positions with emoji and astral characters in UTF-8 and UTF-16, and
//! URIs with spaces and non-ASCII characters, percent-encoded.

use serde_json::json;

use super::{Options, TestClient};

const VAULT: &str = "//- /Café notes/Crème brûlée.md\n# Crème\n## Sœur 𝄞\n//- /emoji.md\n🙂🙂 𝄞 é [[Crème brûlée#Sœur 𝄞]] 👩‍👩‍👧 [[Ghost]]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn emoji_and_astral_characters_in_both_encodings() {
    for (encodings, link_start, ghost_start) in
        [(vec!["utf-8", "utf-16"], 17, 67), (vec!["utf-16"], 10, 44)]
    {
        let client = TestClient::start_with(
            VAULT,
            Options {
                encodings,
                ..Options::default()
            },
        )
        .await;
        client.open("emoji.md").await;
        // Positions the server sends are in the negotiated unit.
        let diagnostics = client.diagnostics("emoji.md", |d| d.len() == 1).await;
        assert_eq!(diagnostics[0]["range"]["start"]["character"], ghost_start);
        let result = client
            .request(
                "textDocument/documentLink",
                json!({"textDocument": {"uri": client.uri("emoji.md")}}),
            )
            .await;
        assert_eq!(result[0]["range"]["start"]["character"], link_start);
        // ... and so are the ones it reads: the cursor just inside the link.
        let definition = client
            .request(
                "textDocument/definition",
                json!({"textDocument": {"uri": client.uri("emoji.md")}, "position": {"line": 0, "character": link_start + 2}}),
            )
            .await;
        let end = if client.encoding == super::super::convert::Encoding::Utf8 {
            13
        } else {
            10
        };
        assert_eq!(
            client.show_location(&definition),
            format!("Café notes/Crème brûlée.md:1:0-1:{end}")
        );
        // References are placed from the index's columns, in the unit.
        let refs = client
            .request(
                "textDocument/references",
                json!({"textDocument": {"uri": client.uri("Café notes/Crème brûlée.md")}, "position": {"line": 1, "character": 0}, "context": {"includeDeclaration": false}}),
            )
            .await;
        let link_end = link_start + if end == 13 { 30 } else { 24 };
        assert_eq!(
            client.show_location(&refs[0]),
            format!("emoji.md:0:{link_start}-0:{link_end}")
        );
        // An incremental edit after the emoji lands where the client meant.
        client
            .edit(
                "emoji.md",
                json!({"start": {"line": 0, "character": ghost_start + 2}, "end": {"line": 0, "character": ghost_start + 7}}),
                "Crème brûlée",
            )
            .await;
        client.diagnostics("emoji.md", |d| d.is_empty()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn percent_encoded_uris_with_spaces_and_non_ascii() {
    let client = TestClient::start(VAULT).await;
    let uri = client.uri("Café notes/Crème brûlée.md");
    assert!(
        uri.ends_with("/Caf%C3%A9%20notes/Cr%C3%A8me%20br%C3%BBl%C3%A9e.md"),
        "{uri}"
    );
    client.open("Café notes/Crème brûlée.md").await;
    let refs = client
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 0}, "context": {"includeDeclaration": false}}),
        )
        .await;
    assert_eq!(client.show_location(&refs[0]), "emoji.md:0:17-0:47");
    // A client that encodes differently (lower-case hex) names the same note.
    let lower = uri.replace("%C3%A9", "%c3%a9");
    let symbols = client
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": lower}}),
        )
        .await;
    assert_eq!(symbols[0]["name"], "Crème");
}
