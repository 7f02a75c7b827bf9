//! Completion: notes, aliases, headings (nested and local), blocks,
//! unresolved targets, tags, Markdown paths, daily notes, ranking and caps.

use expect_test::expect;
use serde_json::json;

use super::{TestClient, VAULT, completion_items, labels};

async fn complete_in(
    client: &TestClient,
    rel: &str,
    text: &str,
    needle: &str,
) -> serde_json::Value {
    client.open_text(rel, &text.replace("$0", "")).await;
    let position = client.pos_in(&text.replace("$0", ""), needle);
    client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": client.uri(rel)}, "position": position}),
        )
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_aliases_and_what_the_edit_replaces() {
    let client = TestClient::start(VAULT).await;
    // Open link: the edit replaces what was typed and closes `]]`.
    let result = complete_in(&client, "new.md", "x [[hu$0", "[[hu$0").await;
    let items = completion_items(&result);
    assert_eq!(items[0], "Hub => Hub]] @0:4-0:6", "{items:#?}");
    // Through an alias: `[[target|Alias]]`.
    let result = complete_in(&client, "new.md", "x [[cent$0", "[[cent$0").await;
    assert_eq!(
        completion_items(&result)[0],
        "Centre => Hub|Centre]] @0:4-0:8"
    );
    // Closed link: only the target is replaced (what follows the cursor in
    // it too), no `]]` is added, and an alias after it is kept.
    let result = complete_in(&client, "new.md", "x [[hu$0b|shown]] y", "[[hu$0").await;
    assert_eq!(completion_items(&result)[0], "Hub => Hub @0:4-0:7");
    let result = complete_in(&client, "new.md", "x [[cent$0]] y", "[[cent$0").await;
    assert_eq!(
        completion_items(&result)[0],
        "Centre => Hub|Centre @0:4-0:8"
    );
    // An ambiguous stem is inserted as a path; a unique one by its stem.
    let result = complete_in(&client, "new.md", "[[plan$0", "[[plan$0").await;
    let items = completion_items(&result);
    assert!(
        items.contains(&"Plan => x/Plan]] @0:2-0:6".to_string()),
        "{items:#?}"
    );
    assert!(
        items.contains(&"Plan => y/Plan]] @0:2-0:6".to_string()),
        "{items:#?}"
    );
    // By path, and a note with spaces and accents by its stem.
    let result = complete_in(&client, "new.md", "[[café/crè$0", "[[café/crè$0").await;
    assert_eq!(
        completion_items(&result)[0],
        "notes/Café notes/Crème brûlée => Crème brûlée]] @0:2-0:12"
    );
    assert_eq!(result["isIncomplete"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headings_nested_headings_local_headings_and_blocks() {
    let client = TestClient::start(VAULT).await;
    let result = complete_in(&client, "new.md", "[[Hub#$0", "[[Hub#$0").await;
    expect![[r#"
        [
            "The Hub => The Hub]] @0:6-0:6",
            "Details => Details]] @0:6-0:6",
            "Deep => Deep]] @0:6-0:6",
            "Other => Other]] @0:6-0:6",
        ]
    "#]]
    .assert_debug_eq(&completion_items(&result));
    // Under `#Details#`: only what is nested in Details.
    let result = complete_in(&client, "new.md", "[[Hub#Details#d$0]]", "#d$0").await;
    assert_eq!(completion_items(&result), ["Deep => Deep @0:14-0:15"]);
    // `[[#`: this note's headings.
    let text = client.read("Hub.md") + "\n[[#oth$0";
    let result = complete_in(&client, "Hub.md", &text, "[[#oth$0").await;
    assert_eq!(completion_items(&result), ["Other => Other]] @12:3-12:6"]);
    // `#^`: block ids with a preview of their block.
    let result = complete_in(&client, "new.md", "[[Hub#^$0", "#^$0").await;
    let items = result["items"].as_array().unwrap();
    assert_eq!(completion_items(&result), ["^intro => intro]] @0:7-0:7"]);
    assert_eq!(items[0]["detail"], "Intro paragraph.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unresolved_targets_tags_and_markdown_paths() {
    let client = TestClient::start(VAULT).await;
    let result = complete_in(&client, "new.md", "[[gho$0", "[[gho$0").await;
    let item = &result["items"][0];
    assert_eq!(item["label"], "Ghost");
    assert_eq!(item["textEdit"]["newText"], "Ghost]]");
    assert!(
        item["detail"].as_str().unwrap().contains("not created yet"),
        "{item}"
    );

    let result = complete_in(&client, "new.md", "text #proj$0", "#proj$0").await;
    expect![[r##"
        [
            "#project => project @0:6-0:10",
            "#project/weft => project/weft @0:6-0:10",
        ]
    "##]]
    .assert_debug_eq(&completion_items(&result));
    // A `#` starting a heading is not a tag.
    client.open_text("new.md", "# ").await;
    let result = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": client.uri("new.md")}, "position": {"line": 0, "character": 1}}),
        )
        .await;
    assert!(result.is_null(), "{result}");

    // Markdown link paths, relative to the note and percent-encoded.
    let result = complete_in(&client, "notes/new.md", "[x](crème$0", "(crème$0").await;
    assert_eq!(
        completion_items(&result)[0],
        "Café notes/Crème brûlée.md => Café%20notes/Crème%20brûlée.md) @0:4-0:10"
    );
    let result = complete_in(&client, "notes/new.md", "[x](../Hub.md#de$0)", "#de$0").await;
    assert_eq!(
        completion_items(&result),
        ["Details => details @0:14-0:16", "Deep => deep @0:14-0:16"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daily_notes_use_the_configured_folder_and_format() {
    let client = TestClient::start(
        "//- /.weft.toml\ntimezone = \"Pacific/Kiritimati\"\n[daily]\nfolder = \"journal\"\nformat = \"YYYY/DD.MM.YYYY\"\n//- /a.md\n",
    )
    .await;
    // Today in the configured zone (UTC+14), not the machine's.
    let kiritimati = weft_workspace::config::Config {
        timezone: Some("Pacific/Kiritimati".into()),
        ..Default::default()
    };
    let today = kiritimati.now().today();
    let name = weft_vault::daily::format_date(today, "DD.MM.YYYY");
    let yesterday = weft_vault::daily::format_date(today.add_days(-1), "DD.MM.YYYY");
    let result = complete_in(&client, "a.md", "[[tod$0", "[[tod$0").await;
    assert_eq!(result["items"][0]["label"], format!("today: {name}"));
    assert_eq!(
        result["items"][0]["textEdit"]["newText"],
        format!("{name}]]")
    );
    let folder = weft_vault::daily::format_date(today, "YYYY");
    assert_eq!(
        result["items"][0]["detail"],
        format!("daily note journal/{folder}/{name}.md (not created yet)")
    );
    let result = complete_in(&client, "a.md", "[[yes$0", "[[yes$0").await;
    assert_eq!(
        result["items"][0]["label"],
        format!("yesterday: {yesterday}")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ranking_prefers_linked_notes_and_the_list_is_capped() {
    let mut fixture = String::from("//- /Alpha one.md\n//- /Alpha two.md\n");
    for i in 0..80 {
        fixture.push_str(&format!("//- /n/note {i:02}.md\n[[Alpha two]]\n"));
    }
    let client = TestClient::start(&fixture).await;
    let result = complete_in(&client, "new.md", "[[alpha$0", "[[alpha$0").await;
    let labels = labels(&result);
    assert_eq!(labels[..2], ["Alpha two", "Alpha one"]);
    let result = complete_in(&client, "new.md", "[[note$0", "[[note$0").await;
    assert_eq!(
        result["items"].as_array().unwrap().len(),
        crate::completion::LIMIT
    );
    assert_eq!(result["isIncomplete"], true);
}
