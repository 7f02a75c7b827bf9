//! The search query language, parsed by hand into an expression and
//! compiled into tantivy queries.
//!
//! Syntax: `word`, `"a phrase"`, `field:value` (`title:`, `alias:`, `body:`,
//! `tag:`/`#tag`, `folder:`/`path:`, `file:`, `modified:`/`created:` with
//! `[now-7d TO now]`, `{a TO b}`, `>2024-01-01`, `2024-01`; any frontmatter
//! key: `status:draft`, `status:*`), `field:( … )`, `AND`/`&&`, `OR`/`||`,
//! `NOT`/`-`/`!`, `+`, `( … )`. Juxtaposition means AND.
//!
//! Negation is compiled as a `MustNot` clause next to the positive clauses,
//! with an all-documents clause when there is none. That is exactly the
//! `a -b` form: tantivy 0.27 matches nothing for a negative-only sub-clause
//! (`a AND NOT b` through its own parser), so `a AND NOT b`, `NOT a` and
//! `(a OR b) AND NOT c` all go through this rewrite. Must not know the
//! vault index or any protocol.
//!
//! The parts: `lex` reads the words, `parse` the grammar, `expr` is the
//! tree between them and the compiler, `compile` turns it into tantivy
//! queries.

mod compile;
mod expr;
mod lex;
mod parse;

pub(crate) use compile::boolean;
pub use compile::{Compiler, folder_terms};
pub use expr::{DateField, Expr, QueryError, Question, Target};
pub use parse::{Context, MAX_DEPTH, parse};

#[cfg(test)]
mod tests {
    use super::*;
    use weft_vault::filter::{Cmp, Filter, Folder, Test, TimeRange, Value};

    fn p(input: &str) -> Result<Expr, QueryError> {
        let keys = vec!["status".to_string(), "type".to_string()];
        parse(
            input,
            &Context {
                now: crate::clock::Now::utc(1_705_314_600),
                keys: &keys,
                types: &weft_vault::props::Types::default(),
            },
        )
    }

    fn tag(t: &str) -> Expr {
        Expr::Filter(Filter::Tag(t.into()))
    }

    fn modified(from: Option<i64>, to: Option<i64>) -> Expr {
        Expr::Filter(Filter::Modified(TimeRange { from, to }))
    }

    fn text(t: &str) -> Expr {
        Expr::Text {
            target: Target::Default,
            text: t.into(),
            phrase: false,
        }
    }

    #[test]
    fn words_fields_and_operators() {
        assert_eq!(p("mcp").unwrap(), text("mcp"));
        assert_eq!(
            p("mcp tag:research -tag:archived").unwrap(),
            Expr::And(vec![
                text("mcp"),
                tag("research"),
                Expr::Not(Box::new(tag("archived")))
            ])
        );
        assert_eq!(
            p("(tag:urgent OR tag:priority) folder:projects").unwrap(),
            Expr::And(vec![
                Expr::Or(vec![tag("urgent"), tag("priority")]),
                Expr::Filter(Filter::Folder(Folder::new("projects").unwrap()))
            ])
        );
        assert_eq!(
            p("a AND NOT b").unwrap(),
            Expr::And(vec![text("a"), Expr::Not(Box::new(text("b")))])
        );
        assert_eq!(
            p("title:\"more rust\"").unwrap(),
            Expr::Text {
                target: Target::Title,
                text: "more rust".into(),
                phrase: true
            }
        );
        assert_eq!(
            p("title:(a OR b)").unwrap(),
            Expr::Or(vec![
                Expr::Text {
                    target: Target::Title,
                    text: "a".into(),
                    phrase: false
                },
                Expr::Text {
                    target: Target::Title,
                    text: "b".into(),
                    phrase: false
                }
            ])
        );
        assert_eq!(
            p("status:draft type:*").unwrap(),
            Expr::And(vec![
                Expr::Filter(Filter::Property(
                    "status".into(),
                    Test::Equals(Value::Text("draft".into()))
                )),
                Expr::Filter(Filter::Property("type".into(), Test::Exists))
            ])
        );
        assert_eq!(p("#vc/project").unwrap(), tag("vc/project"));
        // A URL is a word, not a field.
        assert_eq!(
            p("https://example.com").unwrap(),
            text("https://example.com")
        );
        // Dashes inside words are not negation.
        assert_eq!(p("wiki-ai").unwrap(), text("wiki-ai"));
    }

    #[test]
    fn dates() {
        let day = 86_400;
        let now = 1_705_314_600;
        assert_eq!(
            p("modified:[now-7d TO now]").unwrap(),
            modified(Some(now - 7 * day), Some(now + 1))
        );
        assert_eq!(
            p("created:>=2024-01-01").unwrap(),
            Expr::Filter(Filter::Created(TimeRange {
                from: Some(1_704_067_200),
                to: None
            }))
        );
        assert_eq!(
            p("modified:{* TO 2024-01-01}").unwrap(),
            modified(None, Some(1_704_067_200))
        );
        assert_eq!(
            p("modified:7d").unwrap(),
            modified(Some(now - 7 * day), None)
        );
    }

    #[test]
    fn properties_compare_by_type() {
        let date = |d: &str| Value::of_text(d);
        assert_eq!(
            p("status:<2026-12-28").unwrap(),
            Expr::Filter(Filter::Property(
                "status".into(),
                Test::Compare(Cmp::Less, date("2026-12-28"))
            ))
        );
        assert_eq!(
            p("type:>=2").unwrap(),
            Expr::Filter(Filter::Property(
                "type".into(),
                Test::Compare(Cmp::GreaterOrEqual, Value::Number(2.0))
            ))
        );
        assert_eq!(
            p("status:{2026-12-01 TO *]").unwrap(),
            Expr::Filter(Filter::Property(
                "status".into(),
                Test::Compare(Cmp::Greater, date("2026-12-01"))
            ))
        );
        assert_eq!(
            p("status:\"[[Hub]]\"").unwrap(),
            Expr::Filter(Filter::Property(
                "status".into(),
                Test::Equals(Value::Link("Hub".into()))
            ))
        );
        // Relative to now (2024-01-15T10:30Z, read in UTC here).
        assert_eq!(
            p("status:<today").unwrap(),
            Expr::Filter(Filter::Property(
                "status".into(),
                Test::Compare(Cmp::Less, date("2024-01-15"))
            ))
        );
        assert_eq!(
            p("status:[yesterday TO now+1d]").unwrap(),
            Expr::Filter(Filter::And(vec![
                Filter::Property(
                    "status".into(),
                    Test::Compare(Cmp::GreaterOrEqual, date("2024-01-14"))
                ),
                Filter::Property(
                    "status".into(),
                    Test::Compare(Cmp::LessOrEqual, date("2024-01-16T10:30"))
                ),
            ]))
        );
        assert_eq!(
            p("type:>-2").unwrap(),
            Expr::Filter(Filter::Property(
                "type".into(),
                Test::Compare(Cmp::Greater, Value::Number(-2.0))
            ))
        );
        let e = p("status:<2026-13-01").unwrap_err();
        assert!(
            e.message.contains("cannot read `2026-13-01` as a date"),
            "{e}"
        );
        let e = p("status:<").unwrap_err();
        assert!(e.message.contains("needs a value"), "{e}");
        let e = p("folder:../x").unwrap_err();
        assert!(e.message.contains("names no folder"), "{e}");
    }

    #[test]
    fn errors_say_how_to_fix() {
        let e = p("\"unclosed").unwrap_err();
        assert!(e.hint.contains("Close the phrase"), "{e}");
        let e = p("(a OR b").unwrap_err();
        assert!(e.message.contains("without its `)`"), "{e}");
        let e = p("a)").unwrap_err();
        assert!(e.message.contains("without its `(`"), "{e}");
        let e = p("titel:foo").unwrap_err();
        assert!(e.message.contains("Did you mean `title:`?"), "{e}");
        let e = p("statsu:x").unwrap_err();
        assert!(e.message.contains("Did you mean `status:`?"), "{e}");
        let e = p("modified:[2024-13-01 TO now]").unwrap_err();
        assert!(e.message.contains("cannot read `2024-13-01`"), "{e}");
        let e = p("title:").unwrap_err();
        assert!(e.message.contains("needs a value"), "{e}");
        let e = p("a OR").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = p("   ").unwrap_err();
        assert!(e.message.contains("empty"), "{e}");
        let e = p("tag:[a TO b]").unwrap_err();
        assert!(e.message.contains("does not take a range"), "{e}");
    }

    /// Regression: thousands of nested `(`, `-`, `!`, `NOT` or `+` used to
    /// recurse in the parser, the compiler and the drop until the stack
    /// overflowed and the daemon serving the vault aborted.
    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = 100_000;
        for query in [
            format!("{}a{}", "(".repeat(deep), ")".repeat(deep)),
            format!("{}a", "-".repeat(deep)),
            format!("{}a", "!".repeat(deep)),
            format!("{}a", "+".repeat(deep)),
            format!("{}a", "NOT ".repeat(deep)),
            format!("{}a", "- ( ".repeat(deep)),
            format!("title:{}a{}", "(".repeat(deep), ")".repeat(deep)),
        ] {
            let e = p(&query).unwrap_err();
            assert!(e.message.contains("nested too deeply"), "{e}");
        }
        // The limit itself parses, and compiles.
        let ok = format!("{}a{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert_eq!(p(&ok).unwrap(), text("a"));
        let ok = format!("{}a", "-".repeat(MAX_DEPTH));
        assert!(p(&ok).is_ok());
        let over = format!(
            "{}a{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert!(p(&over).is_err());
    }

    #[test]
    fn a_query_of_filters_alone_is_one_note_filter() {
        let folder = || Filter::Folder(Folder::new("projects").unwrap());
        assert_eq!(
            p("tag:work (folder:projects OR -tag:done)")
                .unwrap()
                .filter(),
            Ok(Filter::And(vec![
                Filter::Tag("work".into()),
                Filter::Or(vec![
                    folder(),
                    Filter::Not(Box::new(Filter::Tag("done".into())))
                ]),
            ]))
        );
        assert_eq!(p("tag:work budget").unwrap().filter(), Err("budget".into()));
        assert_eq!(
            p("folder:projects \"big plan\"").unwrap().filter(),
            Err("\"big plan\"".into())
        );
    }

    /// A literal for a key the vault declares text is the text as written:
    /// no number, no date (so no date error), no relative day.
    #[test]
    fn a_literal_of_a_key_declared_text_is_text() {
        let keys = vec!["zip".to_string(), "due".to_string()];
        let types =
            weft_vault::props::Types::parse(r#"{"types": {"zip": "text"}}"#).expect("types.json");
        let read = |input: &str| {
            parse(
                input,
                &Context {
                    now: crate::clock::Now::utc(1_705_314_600),
                    keys: &keys,
                    types: &types,
                },
            )
        };
        let zip = |test: Test| Expr::Filter(Filter::Property("zip".into(), test));
        assert_eq!(
            read("zip:01234").unwrap(),
            zip(Test::Equals(Value::Text("01234".into())))
        );
        assert_eq!(
            read("zip:>=today").unwrap(),
            zip(Test::Compare(
                Cmp::GreaterOrEqual,
                Value::Text("today".into())
            ))
        );
        assert_eq!(
            read("zip:2026-13-45").unwrap(),
            zip(Test::Equals(Value::Text("2026-13-45".into())))
        );
        assert_eq!(
            read("zip:\"[[Hub]]\"").unwrap(),
            zip(Test::Equals(Value::Link("Hub".into())))
        );
        // Undeclared: typed by what it looks like, as before.
        assert!(read("due:2026-13-45").is_err());
        assert_eq!(
            p("status:01234").unwrap(),
            Expr::Filter(Filter::Property(
                "status".into(),
                Test::Equals(Value::Number(1234.0))
            ))
        );
    }
}
