//! Tasks in the editor: status changes as code actions on the buffer's
//! text, dates completed after a date field, and the fields that do not
//! read as diagnostics — in UTF-16, as task lines hold emoji.

use expect_test::expect;
use serde_json::{Value, json};

use super::{Encoding, Options, TestClient, completion_items, show_range};
use crate::convert::LineIndex;
use weft_vault::daily::{Date, format_date};

async fn utf16(fixture: &str) -> TestClient {
    TestClient::start_with(
        fixture,
        Options {
            encodings: vec!["utf-16"],
            ..Options::default()
        },
    )
    .await
}

fn today() -> Date {
    weft_workspace::config::Config::default().now().today()
}

fn iso(date: Date) -> String {
    format_date(date, "YYYY-MM-DD")
}

/// The code actions at the cursor `$0` of `needle` in `text` (the buffer).
async fn actions(client: &TestClient, rel: &str, text: &str, needle: &str) -> Vec<Value> {
    client.code_actions(rel, client.pos_in(text, needle)).await
}

/// The titles of the task actions (the daily note's is left out).
fn titles(actions: &[Value]) -> Vec<&str> {
    actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .filter(|t| !t.starts_with("Create today's"))
        .collect()
}

/// `text` with the action's edits applied, positions in UTF-16; the edit
/// names the buffer's version.
fn applied(text: &str, action: &Value, version: i64) -> String {
    let change = &action["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"]["version"], version, "{action}");
    let lines = LineIndex::new(text);
    let mut edits: Vec<(std::ops::Range<usize>, String)> = change["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let range = crate::testing::parse_range(&e["range"]);
            let bytes = lines.byte_range(range, Encoding::Utf16);
            (bytes, e["newText"].as_str().unwrap().to_string())
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
    let mut out = text.to_string();
    for (range, new) in edits {
        out.replace_range(range, &new);
    }
    out
}

fn action<'a>(actions: &'a [Value], title: &str) -> &'a Value {
    actions
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| panic!("no {title:?} in {actions:#?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_actions_complete_uncomplete_and_cancel_the_buffers_task() {
    let client = utf16("//- /t.md\n# On disk\n- [ ] not this text\n").await;
    // The buffer, unsaved and in CRLF, is what the edits are made on.
    let text = "# T 🙂\r\n\
        - [ ] trash 🔁 every week on Tuesday 📅 2024-05-07 ^b1\r\n\
        - [x] shipped ✅ 2024-05-01\r\n\
        - [-] dropped ❌ 2024-05-02\r\n\
        - [ ] bad 🔁 every funday 📅 2024-05-07\r\n\
        ```\r\n- [ ] in code\r\n```\r\n\
        - plain item\r\n";
    client.open_text("t.md", text).await;
    let today = iso(today());

    let found = actions(&client, "t.md", text, "tr$0ash").await;
    assert_eq!(titles(&found), ["Complete task", "Cancel task"]);
    let done = applied(text, action(&found, "Complete task"), 1);
    assert_eq!(
        done,
        text.replace(
            "- [ ] trash 🔁 every week on Tuesday 📅 2024-05-07 ^b1\r\n",
            &format!(
                "- [ ] trash 🔁 every week on Tuesday 📅 2024-05-14\r\n\
                 - [x] trash 🔁 every week on Tuesday 📅 2024-05-07 ✅ {today} ^b1\r\n"
            )
        )
    );
    // Only the bytes that change are edited: from the due date's day
    // (column 48 in UTF-16: two emoji before it) on its line.
    let edit = &action(&found, "Complete task")["edit"]["documentChanges"][0]["edits"][0];
    assert_eq!(
        edit["range"]["start"],
        json!({"line": 1, "character": 48}),
        "{edit}"
    );
    assert_eq!(edit["range"]["end"]["line"], 1, "{edit}");
    let cancelled = applied(text, action(&found, "Cancel task"), 1);
    assert!(
        cancelled.contains(&format!(
            "\r\n- [-] trash 🔁 every week on Tuesday 📅 2024-05-07 ❌ {today} ^b1\r\n"
        )),
        "{cancelled}"
    );

    // Done and cancelled tasks are marked not done, their date removed.
    let found = actions(&client, "t.md", text, "ship$0ped").await;
    assert_eq!(titles(&found), ["Mark task not done"]);
    let undone = applied(text, &found[0], 1);
    assert!(undone.contains("\r\n- [ ] shipped\r\n"), "{undone}");
    let found = actions(&client, "t.md", text, "drop$0ped").await;
    assert_eq!(titles(&found), ["Mark task not done"]);
    assert!(applied(text, &found[0], 1).contains("\r\n- [ ] dropped\r\n"));

    // A rule that does not read cannot be completed (its diagnostic says
    // why); it can still be cancelled.
    let found = actions(&client, "t.md", text, "b$0ad").await;
    assert_eq!(titles(&found), ["Cancel task"]);
    // No task here: code, a plain item, a heading.
    for needle in ["in c$0ode", "plain$0 item", "# T$0"] {
        let found = actions(&client, "t.md", text, needle).await;
        assert_eq!(titles(&found), Vec::<&str>::new(), "{needle}");
    }

    // After an edit, the new text is the one changed.
    let edited = text.replace("📅 2024-05-07 ^b1", "📅 2024-06-04 ^b1");
    client.change("t.md", &edited).await;
    let found = actions(&client, "t.md", &edited, "tr$0ash").await;
    let done = applied(&edited, action(&found, "Complete task"), 2);
    assert!(
        done.contains("- [ ] trash 🔁 every week on Tuesday 📅 2024-06-11\r\n"),
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_settings_choose_which_lines_count_and_where_the_next_copy_goes() {
    let client = utf16(concat!(
        "//- /.weft.toml\n[tasks]\nglobal_filter = \"#task\"\nrecurrence_below = true\n",
        "set_done_date = false\n",
        "//- /t.md\n- [ ] #task water 🔁 every day 📅 2024-05-07\n- [ ] not counted 📅 2024-02-30\n",
    ))
    .await;
    let text = client.read("t.md");
    client.open("t.md").await;
    let found = actions(&client, "t.md", &text, "not$0 counted").await;
    assert_eq!(titles(&found), Vec::<&str>::new());
    let found = actions(&client, "t.md", &text, "wa$0ter").await;
    assert_eq!(
        applied(&text, action(&found, "Complete task"), 1),
        "- [x] #task water 🔁 every day 📅 2024-05-07\n\
         - [ ] #task water 🔁 every day 📅 2024-05-08\n\
         - [ ] not counted 📅 2024-02-30\n"
    );
    // Only the task that counts is diagnosed.
    let diagnostics = client.diagnostics("t.md", |_| true).await;
    assert_eq!(diagnostics, Vec::<Value>::new());
    client
        .change("t.md", "- [ ] #task 📅 2024-02-30 and ⏳ 2024-02-30\n")
        .await;
    let diagnostics = client.diagnostics("t.md", |d| !d.is_empty()).await;
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_date_field_completes_dates_in_utf16() {
    let client = utf16("//- /t.md\n//- /tagged.md\n#tasks\n").await;
    let text = "- [ ] 🙂 pay 📅 ";
    client.open_text("t.md", text).await;
    let at = |needle: &str| json!({"textDocument": {"uri": client.uri("t.md")}, "position": client.pos_in(text, needle)});
    let result = client.request("textDocument/completion", at("📅 $0")).await;
    let items = completion_items(&result);
    let today = today();
    assert_eq!(items.len(), 9, "{items:#?}");
    // `- [ ] 🙂 pay 📅 ` is 16 UTF-16 units.
    assert_eq!(
        items[0],
        format!("{0} => {0} @0:16-0:16", iso(today)),
        "{items:#?}"
    );
    assert_eq!(
        items[1],
        format!("{0} => {0} @0:16-0:16", iso(today.add_days(1)))
    );
    let details: Vec<&str> = result["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["detail"].as_str().unwrap())
        .collect();
    assert_eq!(details[..2], ["today", "tomorrow"]);
    assert_eq!(details[2], format_date(today.add_days(2), "dddd"));

    // What is typed filters; Dataview fields complete too.
    let typed = format!("- [ ] b [due:: {}", iso(today.add_days(1)));
    client.change("t.md", &typed).await;
    let result = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": client.uri("t.md")}, "position": {"line": 0, "character": typed.len()}}),
        )
        .await;
    assert_eq!(
        completion_items(&result),
        [format!("{0} => {0} @0:15-0:25", iso(today.add_days(1)))]
    );

    // Links and tags on a task line still complete as before.
    client.change("t.md", "- [ ] see #ta").await;
    let result = client
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": client.uri("t.md")}, "position": {"line": 0, "character": 13}}),
        )
        .await;
    assert_eq!(completion_items(&result), ["#tasks => tasks @0:11-0:13"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_dates_and_unreadable_rules_are_diagnosed_on_their_field() {
    let client = utf16(concat!(
        "//- /t.md\n",
        "# 🙂\n",
        "- [ ] 🙂 pay 📅 2024-02-30 🔁 every funday\n",
        "- [ ] fine 🔁 every month on the last 📅 2024-02-29\n",
        "> - [x] dv [repeat:: every 3 hours] [completion:: 2024-13-01]\n",
        "```\n- [ ] in code 📅 2024-02-30\n```\n",
    ))
    .await;
    client.open("t.md").await;
    let diagnostics = client.diagnostics("t.md", |d| d.len() >= 4).await;
    let shown: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} sev{} {} {}",
                show_range(&d["range"]),
                d["severity"],
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    expect![[r#"
        [
            "1:13-1:26 sev2 task-date The task's due date: 2024-02-30 is not a calendar date.",
            "1:27-1:42 sev2 task-recurrence The task's recurrence rule: cannot read \"every funday\": expected day(s), weekday(s), week(s), month(s), year(s), a weekday or a month at \"funday\".",
            "3:11-3:35 sev2 task-recurrence The task's recurrence rule: cannot read \"every 3 hours\": hourly and minutely rules are not followed: a task's dates are days.",
            "3:36-3:61 sev2 task-date The task's done date: 2024-13-01 is not a calendar date.",
        ]
    "#]]
    .assert_debug_eq(&shown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_block_shows_its_tasks_in_a_lens_and_a_hover_and_its_bad_lines() {
    let client = utf16(concat!(
        "//- /Plan.md\n",
        "- [ ] 🙂 write the parser #work 📅 2099-01-05 ⏫\n",
        "- [ ] read the docs #work\n",
        "- [x] set up CI #work\n",
        "//- /Today.md\n",
        "---\nproject: Plan\n---\n",
        "```tasks\n",
        "not done\n",
        "path includes {{query.file.property('project')}}\n",
        "group by priority\n",
        "```\n",
        "> ```tasks\n",
        "> due before someday\n",
        "> sort by colour\n",
        "> ```\n",
    ))
    .await;
    client.open("Today.md").await;
    let uri = client.uri("Today.md");
    let lenses = client.code_lenses("Today.md").await;
    expect![[r#"
        [
            "0:0-0:0 0 backlinks",
            "3:0-3:0 2 tasks match in 1 note",
            "8:0-8:0 Not run: do not understand due date: cannot read `someday` as a day or a period; use YYYY-MM-DD, YYYY-MM, YYYY, YYYY-Www, YYYY-Qn, today, tomorrow, yesterday, next monday, in 3 days, 2 weeks ago, or this|next|last week|month|quarter|year",
        ]
    "#]]
    .assert_debug_eq(&lenses);
    let hover = client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 2}}),
        )
        .await;
    expect![[r#"
        **2 tasks match** in 1 note

        **High priority**

        - [ ] 🙂 write the parser #work 📅 2099-01-05 — Plan.md:1

        **Normal priority**

        - [ ] read the docs #work — Plan.md:2"#]]
    .assert_eq(hover["contents"]["value"].as_str().unwrap());
    let diagnostics = client.diagnostics("Today.md", |d| d.len() >= 2).await;
    let shown: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {}",
                show_range(&d["range"]),
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap().split(';').next().unwrap()
            )
        })
        .collect();
    expect![[r#"
        [
            "9:0-9:20 task-query do not understand due date: cannot read `someday` as a day or a period",
            "10:0-10:16 task-query cannot sort by `colour`",
        ]
    "#]]
    .assert_debug_eq(&shown);
}
