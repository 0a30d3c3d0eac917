//! `query_string`: the Lucene query syntax Kibana and the `q=` parameter
//! send, parsed (`lexer`, `parser`) into the shared text-query tree and
//! translated over the mapping's fields (`text_syntax`).
//!
//! Supported: bare words, `field:value`, `"phrases"` (`~N` slop), `foo~N`
//! (fuzzy), `*`/`?` wildcards, `field:*` and `_exists_:field`, ranges
//! (`[a TO b]`, `{a TO b}`, `>=10`), `^boost`, `AND`/`&&`, `OR`/`||`,
//! `NOT`/`!`/`-`, `+`, parentheses, grouped values (`field:(a OR b)`,
//! `field:(a b)`), field patterns (`message*:x`, `*.keyword:y`) and
//! backslash escapes. Bare values search `default_field` or `fields`
//! (patterns and `^boosts` allowed); with neither, or with `*`, all
//! eligible fields, leniently, as `index.query.default_field` does.
//! Syntax errors are `query_shard_exception`s ("Failed to parse query").

mod lexer;
mod parser;

pub(crate) use lexer::auto_fuzziness;

use tantivy::query::Query;

use super::ast::QueryStringAst;
use super::text_syntax::{self, Options};
use crate::error::{Result, SearchError};
use crate::query::context::QueryContext;
use crate::query::params::with_boost;

/// A query text that is one range on one named field (`f:[a TO b]`,
/// `f:{a TO *]`, `f:>=5`) and nothing else.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LoneRange {
    pub field: String,
    /// As written; `None` is an open end.
    pub low: Option<String>,
    pub high: Option<String>,
    pub low_inclusive: bool,
    pub high_inclusive: bool,
}

/// The range `text` is made of, if it is only that (a field pattern, a
/// boost or any other clause gives `None`).
pub(crate) fn lone_range(text: &str) -> Option<LoneRange> {
    let tokens = lexer::lex(text).ok()?;
    let [lexer::Token::Leaf {
        field: Some(field),
        value:
            text_syntax::LeafValue::Range {
                low,
                high,
                low_inclusive,
                high_inclusive,
            },
    }] = tokens.as_slice()
    else {
        return None;
    };
    if field.contains(['*', '?']) {
        return None;
    }
    Some(LoneRange {
        field: field.clone(),
        low: low.clone(),
        high: high.clone(),
        low_inclusive: *low_inclusive,
        high_inclusive: *high_inclusive,
    })
}

/// Translates a `query_string` node: its text parsed by Lucene's syntax
/// (a syntax error is a `query_shard_exception`), over its fields
/// resolved against the mapping.
pub fn build(ctx: &QueryContext<'_>, q: &QueryStringAst<'_>) -> Result<Box<dyn Query>> {
    let specs = &q.text.fields;
    let opts = Options {
        phrase_slop: q.phrase_slop,
        tie_breaker: q.tie_breaker,
        time_zone: q.time_zone.clone(),
        multi_term: q.multi_term,
        leading_wildcard: q.leading_wildcard,
        ..Options::of(ctx, &q.text, specs.len() == 1 && specs[0].name == "*")
    };
    let query = q.text.query;
    let tree = lexer::lex(query)
        .and_then(|tokens| parser::Parser::new(tokens, opts.default_and).parse())
        .map_err(|e| SearchError::QueryShard(format!("Failed to parse query [{query}]: {e}")))?;
    let built = match (&tree, &q.text.minimum_should_match) {
        (text_syntax::Node::Bool(items), Some(msm)) => {
            let optional = items
                .iter()
                .filter(|(o, _)| *o == tantivy::query::Occur::Should)
                .count();
            let required = msm.resolve(optional)?;
            let mut clauses = Vec::with_capacity(items.len());
            for (occur, item) in items {
                clauses.push((*occur, text_syntax::to_query(ctx, item, &opts)?));
            }
            text_syntax::bool_query(clauses, required)
        }
        _ => text_syntax::to_query(ctx, &tree, &opts)?,
    };
    Ok(with_boost(built, q.text.boost))
}

#[cfg(test)]
mod tests {
    use super::lexer::{lex, Token};
    use super::parser::Parser;
    use super::{lone_range, LoneRange};
    use crate::query::text_syntax::{LeafValue, Node};
    use tantivy::query::Occur;

    fn parse(q: &str, and: bool) -> Node {
        Parser::new(lex(q).unwrap(), and).parse().unwrap()
    }

    fn word(field: Option<&str>, text: &str) -> Node {
        Node::Leaf {
            field: field.map(str::to_string),
            value: LeafValue::Word {
                text: text.into(),
                wildcard: text.contains(['*', '?']),
            },
        }
    }

    #[test]
    fn lone_ranges_are_recognised() {
        let range = |low: Option<&str>, high: Option<&str>, li, hi| LoneRange {
            field: "a.b".into(),
            low: low.map(str::to_string),
            high: high.map(str::to_string),
            low_inclusive: li,
            high_inclusive: hi,
        };
        assert_eq!(
            lone_range("a.b: [200 TO 300]"),
            Some(range(Some("200"), Some("300"), true, true))
        );
        assert_eq!(
            lone_range("a.b:{1 TO *]"),
            Some(range(Some("1"), None, false, true))
        );
        assert_eq!(
            lone_range("a.b:>=5"),
            Some(range(Some("5"), None, true, false))
        );
        for other in [
            "a.b:[1 TO 2] OR c:3",
            "[1 TO 2]",
            "a*:[1 TO 2]",
            "a.b:[1 TO 2]^2",
            "a.b:1",
            "a.b:(",
        ] {
            assert_eq!(lone_range(other), None, "{other}");
        }
    }

    #[test]
    fn operators_and_groups() {
        assert_eq!(
            parse("a -b", false),
            Node::Bool(vec![
                (Occur::Should, word(None, "a")),
                (Occur::MustNot, word(None, "b"))
            ])
        );
        assert_eq!(
            parse("f:(x y)", true),
            Node::Bool(vec![
                (Occur::Must, word(Some("f"), "x")),
                (Occur::Must, word(Some("f"), "y"))
            ])
        );
        assert_eq!(
            parse("f:(x OR g:y)^2", true),
            Node::Boost(
                Box::new(Node::Bool(vec![
                    (Occur::Should, word(Some("f"), "x")),
                    (Occur::Should, word(Some("g"), "y"))
                ])),
                2.0
            )
        );
        assert_eq!(parse(r"p:a\:b", false), word(Some("p"), "a:b"));
        assert_eq!(
            lex("x:>=5 y:\"a b\"~3 z~").unwrap(),
            vec![
                Token::Leaf {
                    field: Some("x".into()),
                    value: LeafValue::Range {
                        low: Some("5".into()),
                        high: None,
                        low_inclusive: true,
                        high_inclusive: false
                    }
                },
                Token::Leaf {
                    field: Some("y".into()),
                    value: LeafValue::Phrase {
                        text: "a b".into(),
                        slop: Some(3)
                    }
                },
                Token::Leaf {
                    field: None,
                    value: LeafValue::Fuzzy {
                        text: "z".into(),
                        distance: 0
                    }
                },
            ]
        );
        for bad in [
            "(a:b", "a:b)", "a:[1 2]", "a:", "f:(a", "\"open", "a^x", "AND", ")", "a:/x",
        ] {
            assert!(
                lex(bad)
                    .and_then(|t| Parser::new(t, false).parse())
                    .is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn regular_expressions() {
        let regex = |field: Option<&str>, p: &str| Node::Leaf {
            field: field.map(str::to_string),
            value: LeafValue::Regex(p.into()),
        };
        assert_eq!(
            parse("user:/jo.n[0-9]+/", false),
            regex(Some("user"), "jo.n[0-9]+")
        );
        // An escaped slash stays escaped for the expression's parser.
        assert_eq!(parse(r"url:/a\/b.*/", false), regex(Some("url"), r"a\/b.*"));
        assert_eq!(
            parse("/ab+/ AND f:x", false),
            Node::Bool(vec![
                (Occur::Must, regex(None, "ab+")),
                (Occur::Must, word(Some("f"), "x"))
            ])
        );
        // Mid-word, `/` is part of the word.
        assert_eq!(parse("path:a/b", false), word(Some("path"), "a/b"));
    }
}
