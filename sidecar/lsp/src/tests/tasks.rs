//! Tasks in the editor: the fields that do not read, as diagnostics — in
//! UTF-16, as task lines hold emoji.

use expect_test::expect;

use super::{Options, TestClient, show_range};

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
