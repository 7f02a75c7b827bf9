//! Link rewriting for moves and renames: every link style is kept.

use expect_test::{Expect, expect};

use super::{files, fixture};
use crate::VaultIndex;
use crate::query::TextSource;
use crate::rewrite::{
    Plan, captured_links, folder_moves, move_files, note_path_for, rename_block, rename_heading,
    rename_key, rename_tag,
};

/// The fixture's texts, as a text source.
fn texts(src: &str) -> impl Fn(&str) -> Option<String> + '_ {
    move |path: &str| {
        files(src)
            .into_iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t)
    }
}

/// Every edited note after the plan, then the moves.
fn show(plan: &Plan) -> String {
    let mut out = String::new();
    for file in &plan.edits {
        out.push_str(&format!("--- {}\n{}", file.path, file.apply()));
    }
    for (old, new) in &plan.moves {
        out.push_str(&format!("move {old} -> {new}\n"));
    }
    out
}

fn check(src: &str, plan: impl FnOnce(&VaultIndex, &dyn TextSource) -> Plan, expect: Expect) {
    let index = fixture(src);
    let source = texts(src);
    expect.assert_eq(&show(&plan(&index, &source)));
}

const VAULT: &str = r#"
//- /projects/Plan.md
# Plan
## Goals
Text ^key

[sibling](Notes.md) [[./Notes]] [[Notes]]
//- /projects/Notes.md
//- /Index.md
[[Plan]] [[plan|the plan]] ![[Plan#Goals]] [[Plan.md]] [[projects/Plan]] [[/projects/Plan#^key]]
[md](projects/Plan.md#goals) [angle](<projects/Plan.md>) [[Roadmap]]
---
up: "[[Plan]]"
//- /other/Plan Old.md
[[../projects/Plan]]
"#;

#[test]
fn moving_a_note_keeps_every_link_style() {
    check(
        VAULT,
        |index, texts| {
            move_files(
                index,
                &[("projects/Plan.md".into(), "archive/Big Plan.md".into())],
                texts,
            )
            .unwrap()
        },
        expect![[r#"
            --- Index.md
            [[Big Plan]] [[Big Plan|the plan]] ![[Big Plan#Goals]] [[Big Plan.md]] [[archive/Big Plan]] [[/archive/Big Plan#^key]]
            [md](archive/Big%20Plan.md#goals) [angle](<archive/Big Plan.md>) [[Roadmap]]
            ---
            up: "[[Big Plan]]"
            --- other/Plan Old.md
            [[../archive/Big Plan]]
            --- projects/Plan.md
            # Plan
            ## Goals
            Text ^key

            [sibling](../projects/Notes.md) [[../projects/Notes]] [[Notes]]
            move projects/Plan.md -> archive/Big Plan.md
        "#]],
    );
}

#[test]
fn a_stem_taken_elsewhere_is_written_as_a_path_and_folders_move_whole() {
    check(
        "//- /a/X.md\n//- /b/Y.md\n//- /c.md\n[[X]] [[Y]] [y](b/Y.md)\n",
        |index, texts| move_files(index, &[("a/X.md".into(), "a/Y.md".into())], texts).unwrap(),
        expect![[r#"
            --- c.md
            [[a/Y]] [[Y]] [y](b/Y.md)
            move a/X.md -> a/Y.md
        "#]],
    );
    check(
        "//- /f/A.md\n[[B]] [b](B.md) [[f/B]]\n//- /f/B.md\n//- /f/img.png\n//- /c.md\n[[f/A]] ![[f/img.png]] [a](f/A.md)\n",
        |index, texts| {
            let moves = folder_moves(index, "f", "g/h");
            move_files(index, &moves, texts).unwrap()
        },
        expect![[r#"
            --- c.md
            [[g/h/A]] ![[g/h/img.png]] [a](g/h/A.md)
            --- f/A.md
            [[B]] [b](B.md) [[g/h/B]]
            move f/A.md -> g/h/A.md
            move f/B.md -> g/h/B.md
            move f/img.png -> g/h/img.png
        "#]],
    );
}

/// Regression (found by the `rename` fuzz target): a note moved to the
/// vault's root under a stem another note has was linked by that bare
/// stem, which leads to the other note from that note's folder (the editor's
/// rename has no later pass to pin it); there it is now linked by a
/// relative path. Elsewhere the bare stem leads to the root (shortest path).
/// Likewise an attachment whose bare name a note's stem would win.
#[test]
fn a_stem_taken_in_the_links_folder_is_written_as_a_relative_path() {
    check(
        "//- /r/d.md\n[[Plan]]\n//- /Plan.md\n//- /e.md\n[[Plan]]\n//- /s/f.md\n[[Plan]]\n",
        |index, texts| move_files(index, &[("Plan.md".into(), "d.md".into())], texts).unwrap(),
        expect![[r#"
            --- e.md
            [[d]]
            --- r/d.md
            [[../d]]
            --- s/f.md
            [[d]]
            move Plan.md -> d.md
        "#]],
    );
    // Written as a path, a target moving to the root is a bare name too:
    // a note's, or an attachment's that a note's stem would win.
    check(
        "//- /r/d.md\n[[x/Plan]]\n//- /x/Plan.md\n//- /S.md\n[[x/Dup]]\n//- /a/Dup.md\n//- /x/Dup\n",
        |index, texts| {
            let moves = [
                ("x/Plan.md".into(), "d.md".into()),
                ("x/Dup".into(), "Dup".into()),
            ];
            move_files(index, &moves, texts).unwrap()
        },
        expect![[r#"
            --- S.md
            [[./Dup]]
            --- r/d.md
            [[../d]]
            move x/Plan.md -> d.md
            move x/Dup -> Dup
        "#]],
    );
}

/// Regression (found by the `rename` fuzz target): a new name holding a
/// backtick, written into `[[Plan]]` before another backtick, made a code
/// span of the rest and the link was lost; such a rename is refused, all or
/// nothing, naming the note to change first.
#[test]
fn a_rename_that_would_break_a_link_is_refused() {
    let rename = |note: &str| {
        let src = format!("//- /Plan.md\n//- /a.md\n{note}\n");
        move_files(
            &fixture(&src),
            &[("Plan.md".into(), "x`y.md".into())],
            &texts(&src),
        )
        .map(|plan| plan.edits[0].apply())
        .map_err(|e| e.0)
    };
    let refused =
        |result: Result<String, String>| result.is_err_and(|e| e.contains("`a.md` (near line 1)"));
    assert!(refused(rename("[[Plan]] and `code`")));
    // Nor may it lengthen the link: a backtick pairing with one after the
    // link swallows its `]]` (a regression the fuzz target found next).
    assert!(refused(rename("[[Plan]]`]]")));
    // Where it cannot close anything, the same name is written.
    assert_eq!(rename("[[Plan]]").unwrap(), "[[x`y]]\n");
}

/// Regression (found by the `rename` fuzz target): a pin was written
/// without the check a plan's own edits get, so a path holding a backtick
/// (`[[r`/Hub]]` before another backtick) made a code span and the link was
/// lost; such a pin is now unverified, left out and reported.
#[test]
fn a_pin_that_would_break_its_link_is_not_verified() {
    let moves = [("x.md".to_string(), "Hub.md".to_string())];
    let pins = |note: &str| {
        let src = format!("//- /r`/Hub.md\n//- /a.md\n{note}\n//- /x.md\n");
        let index = fixture(&src);
        let plan = move_files(&index, &moves, &texts(&src)).unwrap();
        let pins = captured_links(&index, &moves, &plan, &texts(&src));
        pins.into_iter()
            .map(|p| (p.edit.new_text, p.verified))
            .collect::<Vec<_>>()
    };
    let unverified = || ("r`/Hub".to_string(), false);
    assert_eq!(pins("[[Hub]] `"), [unverified()]);
    // Each fine alone, two such pins on one line make a code span together
    // (found next): neither is verified.
    assert_eq!(pins("[[Hub]][[Hub]]"), [unverified(), unverified()]);
}

#[test]
fn bad_moves_are_refused() {
    let index = fixture("//- /a.md\n//- /b.md\n");
    let none = |_: &str| None;
    let error = move_files(&index, &[("a.md".into(), "b.md".into())], &none).unwrap_err();
    assert!(error.0.contains("already exists at `b.md`"), "{error}");
    assert!(
        note_path_for("", "x|y")
            .unwrap_err()
            .0
            .contains("cannot contain `|`")
    );
    assert!(note_path_for("", "../up").is_err());
    // Regression (found by the `rename` fuzz target): `x .md` was taken,
    // and its links, written `[[x ]]`, are read as `[[x]]`: unresolved.
    for name in ["x .md", "f/ x", "f/x .md"] {
        let error = note_path_for("", name).unwrap_err().0;
        assert!(error.contains("starts or ends with a space"), "{error}");
    }
    assert_eq!(note_path_for("", " x.md ").unwrap(), "x.md");
    assert_eq!(note_path_for("", "f /x").unwrap(), "f /x.md");
    assert_eq!(note_path_for("f", "New.md").unwrap(), "f/New.md");
    assert_eq!(note_path_for("f", "g/New").unwrap(), "g/New.md");
}

#[test]
fn renaming_headings_blocks_and_tags() {
    let src = "//- /n.md\n# Top\n## Old Name\n### Child\nPara ^b1\n\n[[#Old Name]] [[#old-name]]\n//- /m.md\n---\ntags: [t, other]\n---\n[[n#Top#Old Name#Child]] [[n#Old Name|x]] [l](n.md#old-name) [[n#^b1]] #t/sub #T #tx\n";
    check(
        src,
        |index, texts| {
            rename_heading(index, index.id_of("n").unwrap(), 1, "New Name", texts).unwrap()
        },
        expect![[r#"
            --- m.md
            ---
            tags: [t, other]
            ---
            [[n#Top#New Name#Child]] [[n#New Name|x]] [l](n.md#new-name) [[n#^b1]] #t/sub #T #tx
            --- n.md
            # Top
            ## New Name
            ### Child
            Para ^b1

            [[#New Name]] [[#new-name]]
        "#]],
    );
    check(
        src,
        |index, texts| rename_block(index, index.id_of("n").unwrap(), 0, "b2", texts).unwrap(),
        expect![[r#"
            --- m.md
            ---
            tags: [t, other]
            ---
            [[n#Top#Old Name#Child]] [[n#Old Name|x]] [l](n.md#old-name) [[n#^b2]] #t/sub #T #tx
            --- n.md
            # Top
            ## Old Name
            ### Child
            Para ^b2

            [[#Old Name]] [[#old-name]]
        "#]],
    );
    check(
        src,
        |index, texts| rename_tag(index, "t", "topic", texts).unwrap(),
        expect![[r#"
            --- m.md
            ---
            tags: [topic, other]
            ---
            [[n#Top#Old Name#Child]] [[n#Old Name|x]] [l](n.md#old-name) [[n#^b1]] #topic/sub #topic #tx
        "#]],
    );
    let index = fixture(src);
    let none = |_: &str| None;
    assert!(rename_block(&index, index.id_of("n").unwrap(), 0, "bad id", &none).is_err());
    assert!(rename_tag(&index, "t", "12", &none).is_err());
    assert!(rename_heading(&index, index.id_of("n").unwrap(), 1, "a#b", &none).is_err());
}

/// Regression (issue 15): renames found the heading a fragment part names
/// by walking "first match inside the section", so renaming `### C` in
/// `# A / ## B / ### C / ## C` rewrote `[[n#A#C]]`, which names the `## C`.
/// Renames now ask the resolver every link uses.
#[test]
fn renaming_a_heading_rewrites_only_the_fragments_that_lead_through_it() {
    let src = "//- /n.md\n# A\n## B\n### C\n## C\n//- /m.md\n[[n#A#C]] [[n#A#B#C]] [[n#B#C]] [[n#C]] [[n#a#c|x]]\n";
    check(
        src,
        |index, texts| rename_heading(index, index.id_of("n").unwrap(), 2, "Deep", texts).unwrap(),
        expect![[r#"
            --- m.md
            [[n#A#C]] [[n#A#B#Deep]] [[n#B#Deep]] [[n#Deep]] [[n#a#c|x]]
            --- n.md
            # A
            ## B
            ### Deep
            ## C
        "#]],
    );
    check(
        src,
        |index, texts| rename_heading(index, index.id_of("n").unwrap(), 3, "Near", texts).unwrap(),
        expect![[r#"
            --- m.md
            [[n#A#Near]] [[n#A#B#C]] [[n#B#C]] [[n#C]] [[n#a#Near|x]]
            --- n.md
            # A
            ## B
            ### C
            ## Near
        "#]],
    );
    check(
        src,
        |index, texts| rename_heading(index, index.id_of("n").unwrap(), 0, "Top", texts).unwrap(),
        expect![[r#"
            --- m.md
            [[n#Top#C]] [[n#Top#B#C]] [[n#B#C]] [[n#C]] [[n#Top#c|x]]
            --- n.md
            # Top
            ## B
            ### C
            ## C
        "#]],
    );
}

/// Regression: the parser places a frontmatter tag `t` inside the key
/// `tags:` itself; a rename once wrote `topicags:`. Frontmatter tags are
/// now found as whole tokens of the value, in every YAML form.
#[test]
fn frontmatter_tags_are_renamed_as_whole_tokens_not_inside_the_key() {
    check(
        "//- /a.md\n---\ntag: t\n---\n//- /b.md\n---\ntags:\n  - t/x\n  - \"#t\"\n  - tt\n---\n//- /c.md\n---\ntags: t, other\n---\n",
        |index, texts| rename_tag(index, "t", "topic", texts).unwrap(),
        expect![[r##"
            --- a.md
            ---
            tag: topic
            ---
            --- b.md
            ---
            tags:
              - topic/x
              - "#topic"
              - tt
            ---
            --- c.md
            ---
            tags: topic, other
            ---
        "##]],
    );
}

/// A move trusts the index's links only for the very text it parsed: a
/// linking note whose text differs (an unsaved buffer, a file the watcher
/// has not read yet) is parsed again, and its links as they are now are
/// rewritten and pinned, whatever the index says of them.
#[test]
fn a_note_whose_text_is_not_the_indexed_one_is_read_as_it_is() {
    let indexed = "//- /a/X.md\n//- /b/X.md\n//- /c.md\n[[a/X]]\n//- /b/d.md\n[[a/X]]\n";
    let now =
        "//- /a/X.md\n//- /b/X.md\n//- /c.md\nnow [[a/X]] and [x](a/X.md)\n//- /b/d.md\n[[X]]\n";
    let index = fixture(indexed);
    let moves = [("a/X.md".to_string(), "X.md".to_string())];
    let mut plan = move_files(&index, &moves, &texts(now)).unwrap();
    expect![[r#"
        --- c.md
        now [[X]] and [x](X.md)
        move a/X.md -> X.md
    "#]]
    .assert_eq(&show(&plan));
    // `b/d.md`'s `[[X]]` (to `b/X.md`, in its own folder) stays, and the
    // pins see it as written now.
    let pins = captured_links(&index, &moves, &plan, &texts(now));
    crate::rewrite::add_pins(&mut plan, pins.iter().filter(|p| p.verified));
    assert!(
        plan.edits.iter().all(|f| f.path != "b/d.md"),
        "{}",
        show(&plan)
    );
}

/// A note linked from more notes than are read ahead in parallel: every
/// linking note is read once and rewritten, a note whose text cannot be
/// read is left out, and a rename one of them cannot take is refused,
/// naming the first such note by path whichever core verified it.
#[test]
fn a_hub_rename_reads_ahead_and_stays_all_or_nothing() {
    let mut src = String::from("//- /Hub.md\n# Hub\n");
    // Frontmatter with a link (edited there too) or with tags only (the
    // body alone is checked).
    for i in 0..150 {
        let front = match i % 2 {
            0 => "---\ntags: [a, b]\nup: \"[[Hub]]\"\n---\n",
            _ => "---\ntags: [a, b]\n---\n",
        };
        src.push_str(&format!(
            "//- /n/{i:03}.md\n{front}see [[Hub|the hub]] here\n"
        ));
    }
    src.push_str("//- /n/zz odd.md\n---\ntags: [c]\n---\n[[Hub]] and `code\n");
    let index = fixture(&src);
    let reads = std::sync::Mutex::new(Vec::new());
    let source = |path: &str| {
        reads.lock().unwrap().push(path.to_string());
        (path != "n/007.md").then(|| texts(&src)(path)).flatten()
    };
    let plan = move_files(&index, &[("Hub.md".into(), "Centre.md".into())], &source).unwrap();
    assert_eq!(plan.edits.len(), 150, "every readable linking note");
    assert!(plan.edits.iter().all(|f| f.path != "n/007.md"));
    let file = plan.edits.iter().find(|f| f.path == "n/042.md").unwrap();
    assert_eq!(
        file.apply(),
        "---\ntags: [a, b]\nup: \"[[Centre]]\"\n---\nsee [[Centre|the hub]] here\n"
    );
    let file = plan.edits.iter().find(|f| f.path == "n/043.md").unwrap();
    assert_eq!(
        file.apply(),
        "---\ntags: [a, b]\n---\nsee [[Centre|the hub]] here\n"
    );
    let mut read = reads.into_inner().unwrap();
    let all = read.len();
    read.sort();
    read.dedup();
    assert_eq!(read.len(), all, "each note read once");

    // A new name with a backtick would pair with the odd note's and swallow
    // its links: refused, naming the first such note in path order.
    let mut odd = src.clone();
    odd.push_str("//- /n/aa odd.md\n---\ntags: [c]\n---\n[[Hub]] and `code\n");
    let index = fixture(&odd);
    let error = move_files(&index, &[("Hub.md".into(), "C`.md".into())], &texts(&odd)).unwrap_err();
    assert!(error.0.contains("`n/aa odd.md`"), "{error}");
}

/// Moving an attachment rewrites every link that reaches it, in every
/// form and from every folder, and no link that reaches another file of
/// the same name.
#[test]
fn moving_an_attachment_rewrites_exactly_the_links_to_it() {
    check(
        "//- /img/a.png\n//- /other/a.png\n\
         //- /n/S.md\n![[img/a.png]] [x](../img/a.png) ![[other/a.png]] [y](../other/a.png)\n\
         //- /n/deep/T.md\n![x](../../img/a.png) ![[IMG/A.png|w]] `![[img/a.png]]`\n\
         //- /U.md\n![[other/a.png]]\n",
        |index, texts| {
            move_files(index, &[("img/a.png".into(), "media/b.png".into())], texts).unwrap()
        },
        expect![[r#"
            --- n/S.md
            ![[media/b.png]] [x](../media/b.png) ![[other/a.png]] [y](../other/a.png)
            --- n/deep/T.md
            ![x](../../media/b.png) ![[media/b.png|w]] `![[img/a.png]]`
            move img/a.png -> media/b.png
        "#]],
    );
}

#[test]
fn a_property_key_is_renamed_in_every_note_and_in_types_json() {
    let src = "//- /a.md\n---\nStatus: draft # kept\ntags: [x]\n---\nstatus: not a key here\n//- /b.md\n---\ntitle: B\nstatus:\n  - one\n---\n//- /c.md\n---\nstate: done\n---\n";
    let types = r#"{
  "types": {
    "status": "text",
    "due": "date"
  }
}"#;
    check(
        src,
        |index, texts| {
            rename_key(
                index,
                "status",
                "phase",
                texts,
                Some((".obsidian/types.json", types)),
            )
            .unwrap()
        },
        expect![[r#"
            --- a.md
            ---
            phase: draft # kept
            tags: [x]
            ---
            status: not a key here
            --- b.md
            ---
            title: B
            phase:
              - one
            ---
            --- .obsidian/types.json
            {
              "types": {
                "phase": "text",
                "due": "date"
              }
            }"#]],
    );
    let index = fixture(src);
    let source = texts(src);
    // Onto a key a note has: refused, naming the note.
    let taken = rename_key(&index, "status", "Title", &source, None).unwrap_err();
    assert!(taken.0.contains("`b.md` has both"), "{taken}");
    // Onto a key types.json declares: refused.
    let declared = rename_key(&index, "status", "due", &source, Some(("t.json", types)));
    assert!(declared.unwrap_err().0.contains("declares `due` too"));
    assert!(rename_key(&index, "status", "#x", &source, None).is_err());
    // Line endings stay.
    let crlf = "//- /d.md\n---\r\nstatus: x\r\n---\r\n";
    let plan = rename_key(&fixture(crlf), "status", "phase", &texts(crlf), None);
    assert_eq!(plan.unwrap().edits[0].apply(), "---\r\nphase: x\r\n---\r\n");
    // A key no note has and types.json does not declare: nothing to do.
    assert_eq!(
        rename_key(&index, "absent", "x", &source, Some(("t.json", types))).unwrap(),
        Plan::default()
    );
}
