use expect_test::expect;
use serde_json::json;

use super::*;
use crate::testing::{Disk, access, vault};
use weft_vault::tasks::TaskSettings;

const VAULT: &str = r#"
//- /Work/Alpha.md
# Alpha
## Calls
- [ ] call Bob #work 📅 2024-05-14 ⏫
  - [ ] find his number
- [/] write report #work/weekly ⏳ 2024-05-16 📅 2024-05-17
//- /Work/Beta.md
- [x] file taxes 📅 2024-04-15 ✅ 2024-04-10
- [ ] water plants 🔁 every week 🛫 2024-05-20 [due:: 2024-05-21]
//- /Home.md
- [-] old idea ❌ 2024-01-01
- [ ] someday #later
```
- [ ] not a task: code
```
//- /private/Secret.md
- [ ] hidden 📅 2024-05-14
"#;

/// 2024-05-15, a Wednesday.
const TODAY: Date = Date {
    year: 2024,
    month: 5,
    day: 15,
};

/// The page as `path:line description`, one group per paragraph.
fn list(args: serde_json::Value) -> String {
    let index = vault(VAULT);
    let args: ListTasksArgs = serde_json::from_value(args).expect("arguments");
    let query = query(&args, TODAY).unwrap_or_else(|e| panic!("{}", e.text()));
    let sight = access(&["private/"]).sight(&index);
    let notes = Filter::all_of(vec![
        Filter::Folder(query.folder.clone()),
        Filter::clone(&sight),
    ]);
    let listing = compute(&index, &notes, &TaskSettings::default(), &query);
    let mut out = format!("{} in {}\n", listing.total, listing.notes);
    let mut group = None;
    for hit in &listing.page {
        if group.as_ref() != Some(&hit.group) {
            out += &format!("[{}]\n", hit.group);
            group = Some(hit.group.clone());
        }
        let note = index.note(hit.note);
        let task = note.tasks.at(hit.task);
        out += &format!("{}:{} {}\n", note.path, task.line + 1, task.description());
    }
    out
}

#[test]
fn open_tasks_by_note_by_default() {
    expect![[r#"
        5 in 3
        [Home.md]
        Home.md:2 someday #later
        [Work/Alpha.md]
        Work/Alpha.md:5 write report #work/weekly
        Work/Alpha.md:3 call Bob #work
        Work/Alpha.md:4 find his number
        [Work/Beta.md]
        Work/Beta.md:2 water plants
    "#]]
    .assert_eq(&list(json!({})));
}

#[test]
fn due_this_week_overdue_and_happens() {
    expect![[r#"
        2 in 1
        [2024-05-14]
        Work/Alpha.md:3 call Bob #work
        [2024-05-17]
        Work/Alpha.md:5 write report #work/weekly
    "#]]
    .assert_eq(&list(json!({"due": "this week", "group_by": "due"})));
    expect![[r#"
        1 in 1
        []
        Work/Alpha.md:3 call Bob #work
    "#]]
    .assert_eq(&list(json!({"overdue": true, "group_by": "none"})));
    expect![[r#"
        2 in 1
        []
        Work/Alpha.md:3 call Bob #work
        Work/Alpha.md:5 write report #work/weekly
    "#]]
    .assert_eq(&list(json!({"status": "any", "overdue": false, "due": "before 2024-05-18", "happens": "this week", "group_by": "none", "sort": "due", "folder": "Work/Alpha"})));
}

#[test]
fn status_priority_tags_text_recurrence() {
    let one = |args| list(args).lines().skip(2).collect::<Vec<_>>().join("\n");
    assert_eq!(
        one(json!({"status": "done", "group_by": "none"})),
        "Work/Beta.md:1 file taxes"
    );
    assert_eq!(
        one(json!({"status": "cancelled", "group_by": "none"})),
        "Home.md:1 old idea"
    );
    assert_eq!(
        one(json!({"priority": "high", "group_by": "none"})),
        "Work/Alpha.md:3 call Bob #work"
    );
    assert_eq!(
        one(json!({"tags": "#work", "sort": "path", "group_by": "none"})),
        "Work/Alpha.md:3 call Bob #work\nWork/Alpha.md:5 write report #work/weekly"
    );
    assert_eq!(
        one(json!({"text": "PLANTS", "group_by": "none"})),
        "Work/Beta.md:2 water plants"
    );
    assert_eq!(
        one(json!({"recurring": true, "group_by": "none"})),
        "Work/Beta.md:2 water plants"
    );
    assert_eq!(
        one(json!({"heading": "calls", "group_by": "none"}))
            .lines()
            .count(),
        3
    );
}

#[test]
fn mistakes_are_named() {
    let error = |args: serde_json::Value| {
        let args: ListTasksArgs = serde_json::from_value(args).expect("arguments");
        query(&args, TODAY).expect_err("an error").text()
    };
    assert!(error(json!({"due": "before soon"})).contains("`due`: cannot read `soon`"));
    assert!(error(json!({"status": "later"})).contains("`status`"));
    assert!(error(json!({"priority": "urgent"})).contains("`priority`"));
    assert!(error(json!({"sort": "urgency"})).contains("`sort`"));
}

#[test]
fn the_answer_through_the_tool() {
    // Dates around the real today: the tool reads THE clock.
    let today = Date::from_days(
        weft_search::clock::Now::read(Default::default())
            .today()
            .days(),
    );
    let day = |n: i64| weft_vault::daily::format_date(today.add_days(n), "YYYY-MM-DD");
    let src = format!(
        "//- /Plan.md\n# Plan\n- [ ] late one 📅 {}\n- [ ] soon ⏫ 📅 {} 🔁 every week\n- [x] done 📅 {}\n",
        day(-2),
        day(1),
        day(-5)
    );
    let disk = Disk::new(&src);
    let args: ListTasksArgs = serde_json::from_value(json!({"due": "before next month"})).unwrap();
    let reply = run(&disk.state, args).unwrap_or_else(|e| panic!("{}", e.text()));
    let text = reply.text.replace(&day(-2), "D-2").replace(&day(1), "D+1");
    expect![[r#"
        Found 2 tasks (due before next month) in 1 note.

        ### Plan.md
        - L2 [ ] late one — due D-2 (2 days overdue)
        - L3 [ ] soon — due D+1, high priority, repeats every week
    "#]]
    .assert_eq(&text);
    let rows = &reply.structured["groups"][0]["tasks"];
    assert_eq!(rows[0]["line"], 2);
    assert_eq!(rows[0]["overdue_days"], 2);
    assert_eq!(rows[1]["recurrence"], "every week");
    assert_eq!(rows[1]["priority"], "high");
    let none: ListTasksArgs = serde_json::from_value(json!({"text": "nothing"})).unwrap();
    let reply = run(&disk.state, none).unwrap_or_else(|e| panic!("{}", e.text()));
    assert!(
        reply.text.starts_with("No tasks found (with \"nothing\")."),
        "{}",
        reply.text
    );
}

#[test]
fn a_second_page_follows_the_first() {
    let src = (1..=7)
        .map(|n| format!("- [ ] task {n}\n"))
        .collect::<String>();
    let disk = Disk::new(&format!("//- /Many.md\n{src}"));
    let first: ListTasksArgs = serde_json::from_value(json!({"limit": 3})).unwrap();
    let reply = run(&disk.state, first).unwrap_or_else(|e| panic!("{}", e.text()));
    let cursor = reply.structured["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let second: ListTasksArgs =
        serde_json::from_value(json!({"limit": 3, "cursor": cursor})).unwrap();
    let reply = run(&disk.state, second).unwrap_or_else(|e| panic!("{}", e.text()));
    let rows = &reply.structured["groups"][0]["tasks"];
    assert_eq!(rows[0]["description"], "task 4", "{}", reply.text);
}

const DASHBOARD: &str = r#"
//- /Plan.md
# Plan
- [ ] write the parser #work 📅 2099-10-20 ⏫
- [ ] read the docs #work
- [x] set up CI #work ✅ 2022-10-01
- [ ] water plants 🔁 every week 📅 2099-10-24
//- /private/Secret.md
- [ ] hidden #work
//- /Today.md
# Today
```tasks
not done
tags include #work
sort by description
explain
```
> [!note]
> ```tasks
> is recurring
> group by filename
> ```
```tasks
due before someday
```
//- /.weft.toml
[agent]
deny = ["private/**"]
"#;

#[test]
fn tasks_queries_and_blocks_through_the_tool() {
    let disk = Disk::new(DASHBOARD);
    let call = |args: serde_json::Value| {
        let args: ListTasksArgs = serde_json::from_value(args).unwrap();
        run(&disk.state, args)
    };
    let reply = call(json!({"query": "not done\ntags include work\nsort by description"}))
        .unwrap_or_else(|e| panic!("{}", e.text()));
    expect![[r#"
        2 tasks match in 1 note.
        - Plan.md:3 [ ] read the docs #work
        - Plan.md:2 [ ] write the parser #work — due 2099-10-20, high priority
    "#]]
    .assert_eq(&reply.text);
    let reply = call(json!({"query_note": "Today"})).unwrap_or_else(|e| panic!("{}", e.text()));
    assert!(
        reply.text.contains("## `Today` block 1 (line 2)"),
        "{}",
        reply.text
    );
    assert!(
        reply
            .text
            .contains("Explanation of this Tasks code block query:")
    );
    assert!(
        reply
            .text
            .contains("### [[Plan]]\n- Plan.md:5 [ ] water plants"),
        "{}",
        reply.text
    );
    assert!(
        reply
            .text
            .contains("Not run: line 14: `due before someday`: do not understand due date"),
        "{}",
        reply.text
    );
    assert_eq!(
        reply.structured["block_errors"].as_array().unwrap().len(),
        1
    );
    let e = call(json!({"query_note": "Today", "block": 3})).unwrap_err();
    assert!(e.text().contains("line 14"), "{}", e.text());
    let e = call(json!({"query_note": "Today", "block": 4})).unwrap_err();
    assert!(e.text().contains("has 3 ```tasks blocks"), "{}", e.text());
    let e = call(json!({"query": "done", "due": "today"})).unwrap_err();
    assert!(e.text().contains("due cannot be passed"), "{}", e.text());
    let e = call(json!({"query": "filter by function task.urgency > 1"})).unwrap_err();
    assert!(e.text().contains("JavaScript"), "{}", e.text());
    let e = call(json!({"query_note": "Plan"})).unwrap_err();
    assert!(e.text().contains("has no ```tasks block"), "{}", e.text());
    // Paging one query.
    let reply = call(json!({"query": "not done", "limit": 1})).unwrap();
    let cursor = reply.structured["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let reply = call(json!({"query": "not done", "limit": 1, "cursor": cursor})).unwrap();
    assert!(reply.text.contains("Showing 2–2 of 3."), "{}", reply.text);
}
