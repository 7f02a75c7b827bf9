//! Code actions: create a missing note (from the template), add a missing
//! heading, pick a candidate of an ambiguous link, create today's note.

use serde_json::Value;

use super::TestClient;

async fn actions(client: &TestClient, rel: &str, needle: &str) -> Vec<Value> {
    client.code_actions(rel, client.pos(rel, needle)).await
}

fn titles(actions: &[Value]) -> Vec<&str> {
    actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_missing_notes_headings_and_daily_notes_and_pick_candidates() {
    let client = TestClient::start(concat!(
        "//- /.weft.toml\nnew_notes_folder = \"inbox\"\n[daily]\nfolder = \"daily\"\n",
        "//- /templates/new note.md\n# {{title}}\ncreated {{date}}\n",
        "//- /a.md\n[[Ghost note]] [[b#Missing part]] [[Plan]] [[sub/Deep one]] ![[pic.png]]\n",
        "//- /b.md\n# B\ntext\n",
        "//- /x/Plan.md\n//- /y/Plan.md\n",
    ))
    .await;
    client.open("a.md").await;
    let today = weft_workspace::config::Config::default().now().today();
    let date = weft_vault::daily::format_date(today, "YYYY-MM-DD");

    let found = actions(&client, "a.md", "[[Gho$0st").await;
    assert_eq!(
        titles(&found),
        [
            "Create note inbox/Ghost note.md",
            &format!("Create today's daily note daily/{date}.md")
        ]
    );
    let log = client.apply_edit(&found[0]["edit"]);
    assert_eq!(
        log,
        [
            "create inbox/Ghost note.md",
            "edit inbox/Ghost note.md (1 edits)"
        ]
    );
    assert_eq!(
        client.read("inbox/Ghost note.md"),
        format!("# Ghost note\ncreated {date}\n")
    );

    // A path target is created where it says.
    let found = actions(&client, "a.md", "[[sub/De$0ep").await;
    assert_eq!(titles(&found)[0], "Create note sub/Deep one.md");
    // An attachment is not a note to create.
    let found = actions(&client, "a.md", "![[pi$0c.png").await;
    assert_eq!(titles(&found).len(), 1, "{found:?}");

    let found = actions(&client, "a.md", "[[b#Mis$0sing").await;
    assert_eq!(titles(&found)[0], "Add heading \"Missing part\" to b.md");
    client.apply_edit(&found[0]["edit"]);
    assert_eq!(client.read("b.md"), "# B\ntext\n\n## Missing part\n");

    let found = actions(&client, "a.md", "[[Pl$0an]]").await;
    assert_eq!(
        titles(&found)[..2],
        ["Link to x/Plan.md", "Link to y/Plan.md"]
    );
    client.apply_edit(&found[1]["edit"]);
    assert!(client.read("a.md").contains("[[y/Plan]]"));

    let found = actions(&client, "a.md", "[[Gho$0st").await;
    let daily = found
        .iter()
        .find(|a| a["title"].as_str().unwrap().contains("daily"))
        .unwrap();
    client.apply_edit(&daily["edit"]);
    assert_eq!(
        client.read(&format!("daily/{date}.md")),
        format!("# {date}\n")
    );
}

/// A property value in quotes where its type wants a number or a boolean:
/// the warning, and the one fix that writes it so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quoted_number_in_a_number_property_is_written_as_a_number() {
    let client = TestClient::start(concat!(
        "//- /.obsidian/types.json\n{\"types\": {\"rating\": \"number\", \"done\": \"checkbox\"}}\n",
        "//- /n.md\n---\nrating: \"3\"\ndone: 'TRUE'\nstatus: x\n---\n",
    ))
    .await;
    client.open("n.md").await;
    let diagnostics = client.diagnostics("n.md", |d| d.len() == 2).await;
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    let found = actions(&client, "n.md", "\"$03\"").await;
    let fix = found
        .iter()
        .find(|a| a["title"] == "Write `3` (`rating` is a number property)")
        .unwrap_or_else(|| panic!("{:?}", titles(&found)));
    assert_eq!(client.apply_edit(&fix["edit"]), ["edit n.md (1 edits)"]);
    assert!(
        client.read("n.md").contains("rating: 3\n"),
        "{}",
        client.read("n.md")
    );
    let found = actions(&client, "n.md", "'$0TRUE'").await;
    assert!(
        titles(&found).contains(&"Write `true` (`done` is a checkbox property)"),
        "{:?}",
        titles(&found)
    );
    // Nothing certain to offer elsewhere.
    let found = actions(&client, "n.md", "status: $0x").await;
    assert!(
        !titles(&found).iter().any(|t| t.starts_with("Write `")),
        "{:?}",
        titles(&found)
    );
}
