//! Renames: notes (from a link and from the note), headings, block ids,
//! tags, and links rewritten when the editor moves files and folders.

use expect_test::expect;
use serde_json::{Value, json};

use super::TestClient;

const VAULT: &str = r#"
//- /Hub.md
# The Hub
## Details
Para ^blk

#project/weft and #project
//- /notes/A.md
[[Hub]] [[hub|alias]] [[Hub#Details]] ![[Hub#^blk]] [[notes/../Hub]]
[md](../Hub.md#details) [rel](<../Hub.md>) [[Centre]] #project
//- /notes/B.md
---
up: "[[Hub]]"
aliases: [Centre]
---
[[./A]] [[../Hub]] [x](A.md)
"#;

async fn prepare(client: &TestClient, rel: &str, needle: &str) -> Value {
    client
        .request("textDocument/prepareRename", client.at(rel, needle))
        .await
}

async fn rename(client: &TestClient, rel: &str, needle: &str, new_name: &str) -> Value {
    let mut params = client.at(rel, needle);
    params["newName"] = json!(new_name);
    client.request_raw("textDocument/rename", params).await
}

fn dump(client: &TestClient) -> String {
    let mut files: Vec<String> = Vec::new();
    for entry in walk(&client.root) {
        let rel = entry
            .strip_prefix(&client.root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        files.push(format!(
            "--- {rel}\n{}",
            std::fs::read_to_string(&entry).unwrap()
        ));
    }
    files.sort();
    files.join("")
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_a_note_from_a_link_moves_it_and_rewrites_every_link() {
    let client = TestClient::start(VAULT).await;
    client.open("notes/A.md").await;
    let prepared = prepare(&client, "notes/A.md", "[[H$0ub]]").await;
    assert_eq!(prepared["placeholder"], "Hub");
    assert_eq!(
        prepared["range"],
        json!({"start": {"line": 0, "character": 2}, "end": {"line": 0, "character": 5}})
    );
    let response = rename(&client, "notes/A.md", "[[H$0ub]]", "Main Hub").await;
    let log = client.apply_edit(&response["result"]);
    expect![[r#"
        [
            "edit notes/A.md (6 edits)",
            "edit notes/B.md (2 edits)",
            "rename Hub.md -> Main Hub.md",
        ]
    "#]]
    .assert_debug_eq(&log);
    expect![[r#"
        --- Main Hub.md
        # The Hub
        ## Details
        Para ^blk

        #project/weft and #project
        --- notes/A.md
        [[Main Hub]] [[Main Hub|alias]] [[Main Hub#Details]] ![[Main Hub#^blk]] [[notes/../Hub]]
        [md](../Main%20Hub.md#details) [rel](<../Main Hub.md>) [[Centre]] #project
        --- notes/B.md
        ---
        up: "[[Main Hub]]"
        aliases: [Centre]
        ---
        [[./A]] [[../Main Hub]] [x](A.md)
    "#]]
    .assert_eq(&dump(&client));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_a_note_from_itself_and_moving_folders() {
    let client = TestClient::start(VAULT).await;
    client.open("notes/B.md").await;
    // From plain text of the note: the note itself, into another folder.
    let prepared = prepare(&client, "notes/B.md", "[x](A$0.md)").await;
    assert_eq!(prepared["placeholder"], "A");
    let prepared = prepare(&client, "notes/B.md", "aliases: [Cen$0tre]").await;
    assert_eq!(prepared["placeholder"], "B");
    let response = rename(&client, "notes/B.md", "aliases: [Cen$0tre]", "archive/B2").await;
    let log = client.apply_edit(&response["result"]);
    assert_eq!(
        log,
        [
            "edit notes/B.md (2 edits)",
            "rename notes/B.md -> archive/B2.md"
        ]
    );
    client.settle(&log).await;
    // Its relative links follow it; its wikilink by name needs no change.
    assert!(
        client
            .read("archive/B2.md")
            .ends_with("[[../notes/A]] [[../Hub]] [x](../notes/A.md)\n")
    );

    // The editor moves a folder: links into it are rewritten first.
    let response = client
        .request(
            "workspace/willRenameFiles",
            json!({"files": [{"oldUri": client.uri("notes"), "newUri": client.uri("people")}]}),
        )
        .await;
    let log = client.apply_edit(&response);
    assert_eq!(log, ["edit archive/B2.md (2 edits)"]);
    assert!(
        client
            .read("archive/B2.md")
            .ends_with("[[../people/A]] [[../Hub]] [x](../people/A.md)\n")
    );

    // Errors are reported, nothing is changed.
    let response = rename(&client, "notes/A.md", "[[H$0ub]]", "bad#name").await;
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot contain `#`"),
        "{response}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_headings_blocks_and_tags() {
    let client = TestClient::start(VAULT).await;
    client.open("Hub.md").await;
    let prepared = prepare(&client, "Hub.md", "## Det$0ails").await;
    assert_eq!(prepared["placeholder"], "Details");
    assert_eq!(
        prepared["range"],
        json!({"start": {"line": 1, "character": 3}, "end": {"line": 1, "character": 10}})
    );
    let response = rename(&client, "Hub.md", "## Det$0ails", "Fine Print").await;
    let log = client.apply_edit(&response["result"]);
    assert_eq!(log, ["edit Hub.md (1 edits)", "edit notes/A.md (2 edits)"]);
    assert!(client.read("Hub.md").contains("## Fine Print\n"));
    assert!(client.read("notes/A.md").contains("[[Hub#Fine Print]]"));
    assert!(
        client
            .read("notes/A.md")
            .contains("[md](../Hub.md#fine-print)")
    );
    client.settle(&log).await;

    // A block id, from a link to it.
    let prepared = prepare(&client, "notes/A.md", "#^b$0lk").await;
    assert_eq!(prepared["placeholder"], "blk");
    let response = rename(&client, "notes/A.md", "#^b$0lk", "para-1").await;
    let log = client.apply_edit(&response["result"]);
    assert!(client.read("Hub.md").contains("Para ^para-1\n"));
    assert!(client.read("notes/A.md").contains("![[Hub#^para-1]]"));
    client.settle(&log).await;

    // A tag and its sub-tags, across the vault.
    let prepared = prepare(&client, "Hub.md", "#proj$0ect/weft").await;
    assert_eq!(prepared["placeholder"], "project/weft");
    let response = rename(&client, "Hub.md", "and #proj$0ect", "work").await;
    let log = client.apply_edit(&response["result"]);
    assert_eq!(log, ["edit Hub.md (2 edits)", "edit notes/A.md (1 edits)"]);
    assert!(client.read("Hub.md").contains("#work/weft and #work\n"));
    assert!(client.read("notes/A.md").ends_with("#work\n"));
}

/// Regression (found by the `rename` fuzz target): the editor's rename
/// rewrote only the links to what moved, so a link that a move sends
/// elsewhere (a namesake arriving with a shorter path, a note changing
/// folder and with it the tie-break of its own links) went there. It pins
/// them to where they lead, as the agent's move_note does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_a_note_pins_the_links_it_would_send_elsewhere() {
    let client = TestClient::start(
        "//- /a/b/alpha.md\ndeep alpha\n//- /c/src.md\n[[alpha]] and [[x]]\n//- /x.md\nx\n",
    )
    .await;
    client.open("c/src.md").await;
    let response = rename(&client, "c/src.md", "[[$0x]]", "alpha").await;
    let log = client.apply_edit(&response["result"]);
    assert_eq!(log, ["edit c/src.md (2 edits)", "rename x.md -> alpha.md"]);
    assert_eq!(client.read("c/src.md"), "[[a/b/alpha]] and [[alpha]]\n");
    client.settle(&log).await;

    let client =
        TestClient::start("//- /t/H.md\n# The Hub\n//- /a.md\n# The Hub\nplain\n[[The Hub]]\n")
            .await;
    client.open("a.md").await;
    let response = rename(&client, "a.md", "pla$0in", "t/a").await;
    let log = client.apply_edit(&response["result"]);
    assert_eq!(log, ["edit a.md (1 edits)", "rename a.md -> t/a.md"]);
    assert_eq!(client.read("t/a.md"), "# The Hub\nplain\n[[t/a]]\n");
}

/// A property key renamed from the key: one workspace edit over every
/// note that has it, `types.json`, a `.base` file and a note's ```` ```base
/// ```` block that name it (a `file.*` field of the same name is left).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renaming_a_property_key_renames_it_in_bases_and_base_blocks() {
    let client = TestClient::start(
        "//- /.obsidian/types.json\n{\"types\": {\"status\": \"text\"}}\n\
         //- /a.md\n---\nstatus: draft\n---\nA\n\
         //- /Tasks.base\nfilters: 'status != \"done\"'\nproperties:\n  note.status:\n    displayName: Status\nviews:\n  - type: table\n    order: [file.name, status]\n\
         //- /b.md\n# B\n\n```base\nviews:\n  - type: table\n    sort:\n      - property: note.status\n        direction: ASC\n```\n",
    )
    .await;
    client.open("a.md").await;
    let response = rename(&client, "a.md", "sta$0tus: draft", "state").await;
    let mut log = client.apply_edit(&response["result"]);
    log.sort();
    assert_eq!(
        log,
        [
            "edit .obsidian/types.json (1 edits)",
            "edit Tasks.base (3 edits)",
            "edit a.md (1 edits)",
            "edit b.md (1 edits)"
        ]
    );
    assert_eq!(client.read("a.md"), "---\nstate: draft\n---\nA\n");
    assert_eq!(
        client.read("Tasks.base"),
        "filters: 'state != \"done\"'\nproperties:\n  note.state:\n    displayName: Status\nviews:\n  - type: table\n    order: [file.name, state]\n"
    );
    assert!(
        client
            .read("b.md")
            .contains("      - property: note.state\n"),
        "{}",
        client.read("b.md")
    );
    assert_eq!(
        client.read(".obsidian/types.json"),
        "{\"types\": {\"state\": \"text\"}}\n"
    );
}
