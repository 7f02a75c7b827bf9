//! Tasks in the editor: dates completed after a date field, and the
//! fields that do not read as diagnostics — in UTF-16, as task lines hold
//! emoji.

use expect_test::expect;
use serde_json::json;

use super::{Options, TestClient, completion_items, show_range};
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
