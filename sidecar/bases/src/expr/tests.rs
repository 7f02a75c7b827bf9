use super::*;

/// The tree as text, fully bracketed: precedence made visible.
fn shape(e: &Expr) -> String {
    match &e.kind {
        Kind::Null => "null".into(),
        Kind::Bool(b) => b.to_string(),
        Kind::Number(n) => n.to_string(),
        Kind::Str(s) => format!("{s:?}"),
        Kind::Regex { pattern, flags } => format!("/{pattern}/{flags}"),
        Kind::List(items) => format!(
            "[{}]",
            items.iter().map(shape).collect::<Vec<_>>().join(", ")
        ),
        Kind::Object(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", shape(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Kind::Name(n) => n.clone(),
        Kind::Member(o, n, _) => format!("{}.{n}", shape(o)),
        Kind::Index(o, i) => format!("{}[{}]", shape(o), shape(i)),
        Kind::Call(n, args) => format!(
            "{n}({})",
            args.iter().map(shape).collect::<Vec<_>>().join(", ")
        ),
        Kind::Method(o, n, _, args) => format!(
            "{}.{n}({})",
            shape(o),
            args.iter().map(shape).collect::<Vec<_>>().join(", ")
        ),
        Kind::Unary(op, e) => format!("({op:?} {})", shape(e)),
        Kind::Binary(op, a, b) => format!("({} {} {})", shape(a), op.symbol(), shape(b)),
    }
}

fn p(src: &str) -> String {
    shape(&parse(src).unwrap_or_else(|e| panic!("{src}: {e}")))
}

#[test]
fn precedence_is_javascripts() {
    assert_eq!(p("a || b && c"), "(a || (b && c))");
    assert_eq!(p("a == 1 + 2 * 3"), "(a == (1 + (2 * 3)))");
    assert_eq!(p("1 - 2 - 3"), "((1 - 2) - 3)");
    assert_eq!(
        p("!a.isEmpty() && -b < 3"),
        "((Not a.isEmpty()) && ((Neg b) < 3))"
    );
    assert_eq!(
        p("(now() - birthday).years.floor()"),
        "(now() - birthday).years.floor()"
    );
    assert_eq!(
        p(r#"if(status == "done", "✅", if(x, 1))"#),
        r#"if((status == "done"), "✅", if(x, 1))"#
    );
    assert_eq!(
        p("list(type)[0].asFile().properties.icon"),
        "list(type)[0].asFile().properties.icon"
    );
    assert_eq!(
        p(r#"note["my key"] != null"#),
        r#"(note["my key"] != null)"#
    );
    assert_eq!(
        p("[1, 'a', {b: 2, \"c d\": [ ]}]"),
        r#"[1, "a", {b: 2, c d: []}]"#
    );
    assert_eq!(
        p("/^\\d+$/.matches(file.basename)"),
        "/^\\d+$/.matches(file.basename)"
    );
    assert_eq!(p("a === b"), "(a == b)");
}

#[test]
fn errors_say_what_and_where() {
    let e = parse("a == ").unwrap_err();
    assert!(e.message.contains("ends"), "{e:?}");
    let e = parse("a b").unwrap_err();
    assert_eq!(e.span, 2..3);
    assert!(e.message.contains("`b`"), "{e:?}");
    assert!(parse("f(1, 2").unwrap_err().message.contains("`)`"));
    assert!(parse("(a)(1)").unwrap_err().message.contains("called"));
    assert!(parse("").unwrap_err().message.contains("empty"));
    assert!(parse("a.").unwrap_err().message.contains("name after"));
}

#[test]
fn nesting_and_length_are_bounded() {
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(parse(&deep).unwrap_err().message.contains("bytes long"));
    let deep = format!("{}1{}", "(".repeat(200), ")".repeat(200));
    assert!(parse(&deep).unwrap_err().message.contains("nests"));
    let nots = format!("{}a", "!".repeat(500));
    assert!(parse(&nots).unwrap_err().message.contains("nests"));
    let chain = format!("a{}", ".b".repeat(1000));
    assert!(parse(&chain).is_err());
    let long_sum = vec!["1"; 2000].join("+");
    assert!(
        parse(&long_sum).is_ok(),
        "a flat chain of operators is no nesting"
    );
}

#[test]
fn property_references_are_found_with_their_places() {
    let src = r#"status == "x" && note.due < today() && note["the key"] && this.topics.contains(file) && list(genre).map(value + acc).filter(index > 0) && formula.f && file.name && this.file.name && this.note.kind"#;
    let refs = parse(src).unwrap().property_refs();
    let names: Vec<(&str, &str)> = refs
        .iter()
        .map(|r| (r.name.as_str(), &src[r.span.clone()]))
        .collect();
    assert_eq!(
        names,
        [
            ("status", "status"),
            ("due", "due"),
            ("the key", "\"the key\""),
            ("topics", "topics"),
            ("genre", "genre"),
            ("kind", "kind"),
        ]
    );
    assert_eq!(refs[2].form, RefForm::Quoted);
    // Outside a list method, `value` is a property like any other.
    let refs = parse("value > 3").unwrap().property_refs();
    assert_eq!(refs.len(), 1);
}

/// A base file by its extension, in any case, whatever characters its
/// name holds (regression: the last five bytes were sliced, which panics
/// inside a character).
#[test]
fn a_base_path_is_told_by_its_extension_without_slicing_a_character() {
    use crate::base::is_base_path;
    assert!(is_base_path("Views/All.base") && is_base_path("x.BASE"));
    assert!(!is_base_path(".base") && !is_base_path("notes/a.md"));
    assert!(!is_base_path("é1234") && !is_base_path("Café"));
}
