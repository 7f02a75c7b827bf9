use expect_test::expect;

use super::{counts, unreadable};
use crate::testing::{access, vault};

const VAULT: &str = r#"
//- /Home.md
# Home
[[Plan]] [[Ghost]] [[Ideas]] ![[cover.png]]
#project
//- /Plan.md
# Plan
#project #Meeting
//- /Lonely.md
Nobody links here.
//- /Ideas.md
# Ideas
//- /b/Ideas.md
# Ideas
//- /private/Secret.md
[[Home]] [[Nowhere]] #secret
//- /private/secret.png
//- /cover.png
"#;

#[test]
fn counts_are_of_what_the_agent_may_see() {
    let index = vault(VAULT);
    expect!["Counts { notes: 6, attachments: 2, markdown_bytes: 149, links: 6, unresolved_links: 2, ambiguous_links: 1, tags: 3, orphans: 2 }"].assert_eq(&format!("{:?}", counts(&index, &access(&[]))));
    expect!["Counts { notes: 5, attachments: 1, markdown_bytes: 120, links: 4, unresolved_links: 1, ambiguous_links: 1, tags: 2, orphans: 2 }"].assert_eq(&format!("{:?}", counts(&index, &access(&["private/"]))));
}

#[test]
fn an_unreadable_file_out_of_reach_is_not_named() {
    let errors = vec![
        ("Broken.md".to_string(), "invalid UTF-8".to_string()),
        (
            "private/Diary.md".to_string(),
            "permission denied".to_string(),
        ),
        ("private".to_string(), "permission denied".to_string()),
    ];
    expect![[r#"["Broken.md: invalid UTF-8", "private/Diary.md: permission denied", "private: permission denied"]"#]].assert_eq(&format!("{:?}", unreadable(errors.clone(), &access(&[]))));
    expect![[r#"["Broken.md: invalid UTF-8"]"#]]
        .assert_eq(&format!("{:?}", unreadable(errors, &access(&["private/"]))));
    let many = (0..25)
        .map(|i| (format!("n{i}.md"), "gone".to_string()))
        .collect();
    expect!["20"].assert_eq(&unreadable(many, &access(&[])).len().to_string());
}
