//! `simple_query_string`: the forgiving syntax (`+ | - " * ( ) ~N \`)
//! parsed by `parser` under the operators `flags` enables, translated over
//! `fields` (patterns and `^boosts`; all eligible fields, leniently, when
//! absent) like `query_string`. Malformed text never fails; bad
//! parameters do.

mod flags;
mod parser;

use serde_json::Value;
use tantivy::query::{Occur, Query};

use super::query_string::and_operator;
use super::text_syntax::{self, resolve_fields, FieldSpec, Node, Options};
use crate::error::{Result, SearchError};
use crate::query::context::QueryContext;
use crate::query::params::{boosted, minimum_should_match};
use flags::Flags;

/// Parameters accepted and without effect here (the standard analyzer
/// makes no synonyms; `boost` and `_name` are read by the caller).
const ACCEPTED: &[&str] = &["auto_generate_synonyms_phrase_query", "boost", "_name"];

/// Builds a `simple_query_string` query.
pub fn build(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let params = body.as_object().ok_or_else(|| {
        SearchError::parsing(
            "[simple_query_string] query malformed, no start_object after query name",
        )
    })?;
    let mut query = None;
    let mut fields = None;
    let mut flags = Flags::ALL;
    let mut msm = None;
    let mut opts = Options {
        default_fields: Vec::new(),
        all_fields: false,
        default_and: false,
        lenient: false,
        analyze_wildcard: false,
        phrase_slop: 0,
        tie_breaker: 0.0,
        time_zone: None,
        multi_term: Default::default(),
        fuzzy: Default::default(),
        leading_wildcard: true,
    };
    for (key, v) in params {
        let unsupported = || {
            SearchError::parsing(format!(
                "[simple_query_string] query does not support [{key}] with value [{v}]"
            ))
        };
        match key.as_str() {
            "query" => query = Some(v.as_str().ok_or_else(unsupported)?),
            "fields" => fields = Some(FieldSpec::parse_list("simple_query_string", v)?),
            "default_operator" => opts.default_and = and_operator("simple_query_string", v)?,
            "flags" => flags = Flags::parse(v)?,
            "lenient" => opts.lenient = v.as_bool().ok_or_else(unsupported)?,
            "analyze_wildcard" => opts.analyze_wildcard = v.as_bool().ok_or_else(unsupported)?,
            "minimum_should_match" => msm = Some(v),
            "analyzer" => match v.as_str() {
                Some("standard" | "default") => {}
                _ => {
                    return Err(SearchError::illegal(format!(
                        "[simple_query_string] analyzer [{v}] is not supported"
                    )))
                }
            },
            k if k.starts_with("fuzzy_") && opts.fuzzy.set("simple_query_string", k, v)? => {}
            "quote_field_suffix" => {
                return Err(SearchError::illegal(
                    "[simple_query_string] [quote_field_suffix] is not supported by this server",
                ))
            }
            k if ACCEPTED.contains(&k) => {}
            _ => {
                return Err(SearchError::parsing(format!(
                    "[simple_query_string] unsupported field [{key}]"
                )))
            }
        }
    }
    let query =
        query.ok_or_else(|| SearchError::parsing("[simple_query_string] query text missing"))?;
    let specs = match fields {
        Some(f) if !f.is_empty() => f,
        _ => vec![FieldSpec::parse("*")?],
    };
    opts.all_fields = specs.iter().any(|s| s.name == "*");
    opts.default_fields = resolve_fields(ctx, &specs);
    let tree = parser::Parser::new(query, flags, opts.default_and).parse();
    // `minimum_should_match` counts the top level's optional clauses (a
    // single clause is one of one).
    let (items, single) = match tree {
        Node::Bool(items) => (items, false),
        other => (vec![(Occur::Should, other)], true),
    };
    let optional = items.iter().filter(|(o, _)| *o == Occur::Should).count();
    let required = match msm {
        Some(v) => minimum_should_match(v, optional)?,
        None => 0,
    };
    let mut clauses = Vec::with_capacity(items.len());
    for (occur, item) in &items {
        clauses.push((*occur, text_syntax::to_query(ctx, item, &opts)?));
    }
    let q = if single {
        match clauses.pop() {
            Some((_, q)) => q,
            None => Box::new(tantivy::query::EmptyQuery),
        }
    } else {
        text_syntax::bool_query(clauses, required)
    };
    boosted(q, body)
}

#[cfg(test)]
mod tests {
    use super::flags::Flags;
    use super::parser::Parser;
    use crate::query::text_syntax::{LeafValue, Node};
    use tantivy::query::Occur;

    fn word(text: &str) -> Node {
        Node::Leaf {
            field: None,
            value: LeafValue::Word {
                text: text.into(),
                wildcard: false,
            },
        }
    }

    #[test]
    fn operators_fold_left_and_never_fail() {
        let p = |q: &str| Parser::new(q, Flags::ALL, false).parse();
        assert_eq!(
            p("a | b + c"),
            Node::Bool(vec![
                (
                    Occur::Must,
                    Node::Bool(vec![(Occur::Should, word("a")), (Occur::Should, word("b"))])
                ),
                (Occur::Must, word("c")),
            ])
        );
        assert_eq!(
            p("-a"),
            Node::Bool(vec![
                (Occur::MustNot, word("a")),
                (Occur::Should, Node::All)
            ])
        );
        assert_eq!(
            p("fo* \"x y\"~2 ab~1"),
            Node::Bool(vec![
                (
                    Occur::Should,
                    Node::Leaf {
                        field: None,
                        value: LeafValue::Prefix("fo".into())
                    }
                ),
                (
                    Occur::Should,
                    Node::Leaf {
                        field: None,
                        value: LeafValue::Phrase {
                            text: "x y".into(),
                            slop: Some(2)
                        }
                    }
                ),
                (
                    Occur::Should,
                    Node::Leaf {
                        field: None,
                        value: LeafValue::Fuzzy {
                            text: "ab".into(),
                            distance: 1
                        }
                    }
                ),
            ])
        );
        for junk in [
            "((a", "a)))", "\"open", "+|-", "~~~", "\\", "(((", "\"", "-", "*",
        ] {
            let _ = p(junk); // must not panic
        }
        assert_eq!(p("\"open"), word("open"));
        let none = Flags::parse(&serde_json::json!("NONE")).unwrap();
        assert_eq!(Parser::new("a -b", none, false).parse(), word("a -b"));
    }
}
