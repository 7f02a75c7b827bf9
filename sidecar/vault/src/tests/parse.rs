use expect_test::{Expect, expect};

use super::dump;
use crate::parse::{parse_note, parse_text};

fn check(text: &str, expect: Expect) {
    let note = parse_text("folder/Note.md", text);
    expect.assert_eq(&dump(text, &note));
}

#[test]
fn every_link_form() {
    check(
        r#"# Links
[[Target]] and [[Target|Alias]] and [[Target#Heading]] and [[Target#H1#H2|shown]].
[[Target#^block-1]], [[#Local]], [[#^local-block]], ![[Embedded]], ![[image.png]].
[md](other/Note%20One.md#Some%20Part), [angle](<with space.md>), ![img](pics/a.png).
[[ spaced target ]] [[folder/Deep Note]] [[../up/There]] [[./here]]
Not links: [web](https://example.com), <https://x.y>, [mail](mailto:a@b.c), [[]].
"#,
        expect![[r#"
            title: Links
            heading L0 h1 "Links"
            link L1 Wiki "[[Target]]" target="Target"@"Target"
            link L1 Wiki "[[Target|Alias]]" target="Target"@"Target" alias="Alias"
            link L1 Wiki "[[Target#Heading]]" target="Target"@"Target" frag="Heading"
            link L1 Wiki "[[Target#H1#H2|shown]]" target="Target"@"Target" frag="H1#H2" alias="shown"
            link L2 Wiki "[[Target#^block-1]]" target="Target"@"Target" frag="^block-1"
            link L2 Wiki "[[#Local]]" target=""@"" frag="Local"
            link L2 Wiki "[[#^local-block]]" target=""@"" frag="^local-block"
            link L2 Wiki embed "![[Embedded]]" target="Embedded"@"Embedded"
            link L2 Wiki embed "![[image.png]]" target="image.png"@"image.png"
            link L3 Markdown "[md](other/Note%20One.md#Some%20Part)" target="other/Note One.md"@"other/Note%20One.md" frag="Some Part" alias="md"
            link L3 Markdown "[angle](<with space.md>)" target="with space.md"@"with space.md" alias="angle"
            link L3 Markdown embed "![img](pics/a.png)" target="pics/a.png"@"pics/a.png" alias="img"
            link L4 Wiki "[[ spaced target ]]" target="spaced target"@"spaced target"
            link L4 Wiki "[[folder/Deep Note]]" target="folder/Deep Note"@"folder/Deep Note"
            link L4 Wiki "[[../up/There]]" target="../up/There"@"../up/There"
            link L4 Wiki "[[./here]]" target="./here"@"./here"
        "#]],
    );
}

#[test]
fn nothing_counts_inside_code_math_or_html() {
    check(
        r#"`[[inline code]] #tag`

```
[[fenced]] #fenced-tag
```

    [[indented code]] #indented

<!-- [[commented]] #commented -->

Text <!-- [[inline comment]] --> after, $[[math]]$ and [[real]] #real-tag.
"#,
        expect![[r##"
            title: Note
            tag L10 real-tag at="#real-tag"
            link L10 Wiki "[[real]]" target="real"@"real"
        "##]],
    );
}

#[test]
fn tags_inline_nested_and_frontmatter() {
    check(
        "---\ntags: [Project/Weft, \"#quoted\"]\ntag: extra, more\n---\n\
         #top and #Nested/Tag/Deep, (#paren) #Ünïcode #with-dash_under.\n\
         Not tags: #123, a#b, https://x.y/#anchor, &#35;, \\#escaped, # heading-like\n\
         ## Heading with #htag\n",
        expect![[r##"
            title: Note
            heading L6 h2 "Heading with #htag"
            tag L1 Project/Weft (frontmatter) at="Project/Weft"
            tag L1 quoted (frontmatter) at="quoted"
            tag L2 extra (frontmatter) at="extra"
            tag L2 more (frontmatter) at="more"
            tag L4 top at="#top"
            tag L4 Nested/Tag/Deep at="#Nested/Tag/Deep"
            tag L4 paren at="#paren"
            tag L4 Ünïcode at="#Ünïcode"
            tag L4 with-dash_under at="#with-dash_under"
            tag L6 htag at="#htag"
        "##]],
    );
}

#[test]
fn headings_and_block_ids() {
    check(
        "# Title\n\nA paragraph ^para-1\n\n- item one ^item1\n- item two\n  - nested ^nested\n\n\
         Setext\n======\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n^table-id\n\nx^2 is not an id\n\n\
         Dup ^para-1\n\n### Deep *emphasis* `code`\n",
        expect![[r#"
            title: Title
            heading L0 h1 "Title"
            heading L8 h1 "Setext"
            heading L21 h3 "Deep emphasis code"
            block L2 ^para-1 span="^para-1" block="A paragraph ^para-1"
            block L4 ^item1 span="^item1" block="- item one ^item1"
            block L6 ^nested span="^nested" block="- nested ^nested"
            block L15 ^table-id span="^table-id" block="^table-id"
            block L19 ^para-1 span="^para-1" block="Dup ^para-1"
            diagnostic L19: duplicate block id ^para-1: links to it reach only the first one
        "#]],
    );
}

#[test]
fn title_aliases_and_frontmatter_links() {
    check(
        "---\ntitle: From Frontmatter\naliases:\n  - First Alias\n  - 42\nrelated: \"[[Other Note]]\"\n\
         part_of:\n  - \"[[Parent#Section|p]]\"\nup: \"![[Embedded]]\"\n---\n# H1 Title\n",
        expect![[r#"
            title: From Frontmatter
            aliases: ["First Alias", "42"]
            heading L10 h1 "H1 Title"
            link L5 Wiki "[[Other Note]]" target="Other Note"@"Other Note" rel="related"
            link L7 Wiki "[[Parent#Section|p]]" target="Parent"@"Parent" frag="Section" alias="p" rel="part_of"
            link L8 Wiki embed "![[Embedded]]" target="Embedded"@"Embedded" rel="up"
        "#]],
    );
    check(
        "---\nalias: Single\n---\nNo heading\n",
        expect![[r#"
        title: Note
        aliases: ["Single"]
    "#]],
    );
    check(
        "## Not h1\n# Real H1\n# Second H1\n",
        expect![[r#"
        title: Real H1
        heading L0 h2 "Not h1"
        heading L1 h1 "Real H1"
        heading L2 h1 "Second H1"
    "#]],
    );
}

#[test]
fn malformed_and_odd_frontmatter() {
    check(
        "---\ntitle: [unclosed\n---\n[[Link]]\n",
        expect![[r#"
        title: Note
        link L3 Wiki "[[Link]]" target="Link"@"Link"
        diagnostic L2: malformed YAML frontmatter (did not find expected ',' or ']' at line 2 column 1, while parsing a flow sequence at line 1 column 8); its properties are ignored
    "#]],
    );
    check(
        "---\n- a list\n---\nbody\n",
        expect![[r#"
        title: Note
        diagnostic L1: the frontmatter is not a mapping of `key: value` lines; it is ignored
    "#]],
    );
    // A `---` that is not at the very start is a thematic break, not frontmatter.
    check(
        "text\n---\ntitle: x\n---\n",
        expect![[r#"
        title: Note
        heading L0 h2 "text"
        heading L2 h2 "title: x"
    "#]],
    );
}

#[test]
fn bom_crlf_and_offsets() {
    let text = "\u{feff}---\r\ntitle: T\r\n---\r\n# Heading\r\nSee [[Target#Part]] #tag ^blk";
    check(
        text,
        expect![[r##"
        title: T
        heading L3 h1 "Heading"
        block L4 ^blk span="^blk" block="See [[Target#Part]] #tag ^blk"
        tag L4 tag at="#tag"
        link L4 Wiki "[[Target#Part]]" target="Target"@"Target" frag="Part"
    "##]],
    );
}

/// Old Mac line endings: a `\r` alone ends a line for the Markdown parser,
/// and so for the lines every heading, block, tag and link is put on.
#[test]
fn a_lone_carriage_return_ends_a_line() {
    let text = "---\rtitle: T\r---\r# Heading\rSee [[Target#Part]] #tag ^blk\r## Next";
    check(
        text,
        expect![[r##"
        title: T
        heading L3 h1 "Heading"
        heading L5 h2 "Next"
        block L4 ^blk span="^blk" block="See [[Target#Part]] #tag ^blk"
        tag L4 tag at="#tag"
        link L4 Wiki "[[Target#Part]]" target="Target"@"Target" frag="Part"
    "##]],
    );
}

#[test]
fn invalid_utf8_still_gives_a_note() {
    let bytes = b"# Caf\xe9\n[[Link]] \xff\xfe\n";
    let note = parse_note("bad.md", bytes);
    expect![[r#"
        title: Caf�
        heading L0 h1 "Caf�"
        link L1 Wiki "[[Link]]" target="Link"@"Link"
        diagnostic L0: invalid UTF-8 at byte 5: the note was read with replacement characters; save it as UTF-8 before editing it with Weft
    "#]]
    .assert_eq(&dump(&String::from_utf8_lossy(bytes), &note));
}

#[test]
fn empty_and_tiny_inputs() {
    for text in [
        "", "\n", "#", "[[", "]]", "![[", "---", "---\n", "---\n---", "[[|]]", "[[#]]", "[[#^]]",
        "^", "\u{feff}",
    ] {
        let note = parse_text("x.md", text);
        assert_eq!(note.len as usize, text.len(), "{text:?}");
    }
}

#[test]
fn a_huge_line_parses() {
    // A 50 MB line of prose with a link at its end.
    let mut text = "word ".repeat(10_000_000);
    text.push_str("[[End]]\n");
    let note = parse_text("huge.md", &text);
    assert_eq!(note.links.len(), 1);
    assert_eq!(note.links[0].target(), "End");
}

/// A link's line and columns agree with the text; `len16` is known
/// exactly when the link is on one line.
fn check_position(text: &str, l: &crate::Link) {
    check_columns(text, l.line, &l.span, (l.col, l.col16, l.len16));
}

fn check_columns(text: &str, line: u32, span: &std::ops::Range<u32>, found: (u32, u32, u16)) {
    // Lines end at `\n`, `\r\n` and a lone `\r`, as CommonMark's do.
    let before = &text[..span.start as usize];
    let breaks = before.matches(['\n', '\r']).count() - before.matches("\r\n").count();
    let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let prefix = &text[line_start..span.start as usize];
    let body = &text[span.start as usize..span.end as usize];
    let len16 = if body.contains(['\n', '\r']) {
        u16::MAX as usize
    } else {
        body.encode_utf16().count()
    };
    assert_eq!(line as usize, breaks, "{text:?}: {span:?}");
    assert_eq!(
        (found.0 as usize, found.1 as usize, found.2 as usize),
        (prefix.len(), prefix.encode_utf16().count(), len16),
        "{text:?}: {span:?}"
    );
}

#[test]
fn link_positions_are_known_in_bytes_and_utf16() {
    let text = "---\nup: \"[[Up]]\"\n---\nA [[One]] and [md](two.md)\n🙂 é [[Thrée]]\n[multi\nline](four.md) [[Five]]\n";
    let note = parse_text("n.md", text);
    let found: Vec<(&str, u32, u32, u32, u16)> = note
        .links
        .iter()
        .map(|l| (l.target(), l.line, l.col, l.col16, l.len16))
        .collect();
    assert_eq!(
        found,
        [
            ("Up", 1, 5, 5, 6),
            ("One", 3, 2, 2, 7),
            ("two.md", 3, 14, 14, 12),
            ("Thrée", 4, 8, 5, 9),
            ("four.md", 5, 0, 0, u16::MAX),
            ("Five", 6, 15, 15, 8),
        ]
    );
    for l in &note.links {
        check_position(text, l);
    }
    let tags = parse_text("t.md", "---\ntags: [a, bé]\n---\n🙂 #topic/sub and #x\n");
    for t in &tags.tags {
        let span = t.span.as_ref().expect("tags here have places");
        check_columns(
            "---\ntags: [a, bé]\n---\n🙂 #topic/sub and #x\n",
            t.line,
            span,
            (t.col, t.col16, t.len16),
        );
    }
    assert_eq!(tags.tags.len(), 4);
}

/// Random byte soup from Markdown's special characters never panics and
/// always yields spans inside the text on character boundaries.
#[test]
fn random_inputs_never_panic() {
    const ALPHABET: &[&str] = &[
        "[", "]", "[[", "]]", "!", "#", "^", "|", "(", ")", "<", ">", "`", "```", "~", "-", "---",
        "\n", "\r\n", "\r", " ", "    ", "*", "_", "$", "%", ":", "a", "é", "😀", "\u{feff}",
        "<!--", "-->", "\\", "title:", "tags:", "\"", "'", "1.", ">", "|---|", "%20", "../", "./",
        "/",
    ];
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..3_000 {
        let len = rng.usize(0..60);
        let text: String = (0..len)
            .map(|_| ALPHABET[rng.usize(..ALPHABET.len())])
            .collect();
        let note = parse_text("fuzz/n.md", &text);
        let ok = |s: &std::ops::Range<u32>| {
            s.start <= s.end
                && text.is_char_boundary(s.start as usize)
                && text.is_char_boundary(s.end as usize)
        };
        for l in &note.links {
            assert!(ok(&l.span) && ok(&l.target_span), "{text:?}: {l:?}");
            check_position(&text, l);
        }
        for t in &note.tags {
            if let Some(span) = &t.span {
                assert!(ok(span), "{text:?}");
                check_columns(&text, t.line, span, (t.col, t.col16, t.len16));
            }
        }
        for h in &note.headings {
            assert!(ok(&h.span), "{text:?}");
        }
        for b in &note.blocks {
            assert!(ok(&b.span) && ok(&b.block_span), "{text:?}");
        }
        let bytes: Vec<u8> = (0..len).map(|_| rng.u8(..)).collect();
        parse_note("fuzz/b.md", &bytes);
    }
}

/// Regression: an id on a list item with nested children was lost, and the
/// escaped pipe Obsidian writes in tables ended up in the target.
#[test]
fn block_id_on_parent_item_and_escaped_pipe_in_tables() {
    check(
        "- parent ^abc123\n  - child ^kid\n- plain\n\n| a | b |\n|---|---|\n| [[X\\|shown]] | 2 |\n",
        expect![[r#"
            title: Note
            block L0 ^abc123 span="^abc123" block="- parent ^abc123"
            block L1 ^kid span="^kid" block="- child ^kid"
            link L6 Wiki "[[X\\|shown]]" target="X"@"X" alias="shown"
        "#]],
    );
}

/// Regression: a frontmatter tag `t` got a span inside the word `tags`.
#[test]
fn frontmatter_tag_spans_start_after_the_key() {
    let text = "---\ntags: [t, a]\n---\n";
    let note = parse_text("x.md", text);
    let spans: Vec<&str> = note
        .tags
        .iter()
        .map(|t| {
            &text[t.span.clone().unwrap().start as usize..t.span.clone().unwrap().end as usize]
        })
        .collect();
    assert_eq!(spans, ["t", "a"]);
    assert_eq!(note.tags[0].span.as_ref().unwrap().start, 11);
}

/// Every parse is consistent as a persisted index checks it
/// (`Note::inconsistency`): else a snapshot of the vault would be refused
/// at every start.
#[test]
fn every_parse_is_consistent() {
    let texts: &[&[u8]] = &[
        b"",
        b"---\ntags: [a, b]\nup: \"[[x]]\"\n---\n# T\n[[a#b|c]] ![[img.png]] [m](<a b.md>) ^id\n",
        b"# \xF0\x9F\x98\x80 \r\n[[\xE2\x80\x8B]] #tag/\xC3\xA9\r\n\r\n- [[a]]\n  ^blk",
        b"```\n[[no]]\n```\n$$[[no]]$$ `[[no]]` [[yes\n]] [[a|]] [[|b]] [[]]",
        b"\xFF\xFE[[a]] # not\n###### six\n####### seven\n\tx\n> [[q]]\n",
        b"---\n: bad yaml [[x]]\n---\n[[x]]\n---\n",
    ];
    for (i, text) in texts.iter().enumerate() {
        for path in ["a.md", "deep/er/n o.md"] {
            let note = parse_note(path, text);
            assert_eq!(note.inconsistency(), None, "text {i} at {path}");
        }
    }
}

/// A note of a million links parses in one pass: each link's UTF-16 column
/// is counted on from the one before it on its line (it was counted from
/// the line's start, so a line of a million links took hours). Every link
/// is kept, with its place, so renames and backlinks miss none.
#[test]
fn a_million_links_on_one_line_parse() {
    const LINKS: usize = 1_000_000;
    let mut text = String::from("# Many\n");
    for i in 0..LINKS {
        text.push_str(if i % 2 == 0 { "[[a]] " } else { "[[é]] " });
    }
    text.push_str("\n🙂 [[b]] [[c]]\n");
    let note = parse_text("many.md", &text);
    assert_eq!(note.links.len(), LINKS + 2);
    assert!(note.diagnostics.is_empty(), "{:?}", note.diagnostics);
    for l in [0, 1, LINKS / 2, LINKS - 1, LINKS, LINKS + 1].map(|i| &note.links[i]) {
        check_position(&text, l);
    }
    let last = &note.links[LINKS - 1];
    // Six UTF-16 units per link before it (`é` is one).
    assert_eq!(
        (last.target(), last.line, last.col16),
        ("é", 1, 6 * (LINKS as u32 - 1))
    );
}

/// A file read only in part is parsed up to its last line break read, and
/// says so; a file read whole is parsed as it is.
#[test]
fn a_file_read_in_part_says_so() {
    use crate::parse::{MAX_NOTE_BYTES, parse_file};
    let whole = parse_file("n.md", b"[[a]]\n[[b]]", 11);
    assert_eq!(whole.links.len(), 2);
    assert!(whole.diagnostics.is_empty(), "{:?}", whole.diagnostics);
    // Cut in the middle of `[[b]]`: only the first line counts.
    let part = parse_file("n.md", b"[[a]]\n[[b", 3 * MAX_NOTE_BYTES);
    assert_eq!((part.len, part.links.len()), (6, 1));
    let d = &part.diagnostics[0];
    assert_eq!((d.line, d.span.clone()), (1, 6..6));
    assert!(
        d.message.starts_with(
            "the note is 48.0 MiB, more than the 16 MiB Weft reads: only lines 1 to 1 are indexed"
        ),
        "{}",
        d.message
    );
    // No line break at all: what was read is parsed.
    let line = parse_file("n.md", b"[[a]] [[b]]", MAX_NOTE_BYTES + 1);
    assert_eq!(line.links.len(), 2);
    assert!(
        line.diagnostics[0]
            .message
            .contains("only its first 16 MiB is indexed")
    );
}

/// Ten thousand nested lists, block quotes, or both, in a few lines or in
/// many: parsed without recursion troubles, and the link at the bottom
/// still counts.
#[test]
fn ten_thousand_nested_blocks_parse() {
    const DEPTH: usize = 10_000;
    let lists = format!("{}[[Deep]]\n", "- ".repeat(DEPTH));
    let quotes = format!("{}[[Deep]]\n", "> ".repeat(DEPTH));
    let mixed = format!("{}[[Deep]]\n", "> - 1. ".repeat(DEPTH / 3));
    let quote_lines: String = (1..=DEPTH / 10)
        .map(|depth| format!("{} [[Deep]]\n", ">".repeat(depth)))
        .collect();
    let brackets = format!("{}[[Deep]]{}\n", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let frontmatter = format!(
        "---\nup: {}1{}\n---\n[[Deep]]\n",
        "[".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    for (what, text, links) in [
        ("lists", &lists, 1),
        ("quotes", &quotes, 1),
        ("mixed", &mixed, 1),
        ("quote lines", &quote_lines, DEPTH / 10),
        ("brackets", &brackets, 1),
        ("frontmatter", &frontmatter, 1),
    ] {
        let note = parse_text("deep.md", text);
        assert_eq!(note.links.len(), links, "{what}");
        assert!(note.links.iter().all(|l| l.target() == "Deep"), "{what}");
        for l in &note.links {
            check_position(text, l);
        }
    }
}
