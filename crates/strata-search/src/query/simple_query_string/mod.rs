//! `simple_query_string`: the forgiving syntax (`+ | - " * ( ) ~N \`)
//! parsed by `parser` under the operators `flags` enables, translated over
//! `fields` (patterns and `^boosts`; all eligible fields, leniently, when
//! absent) like `query_string`. Malformed text never fails; bad
//! parameters do.

mod parser;

use tantivy::query::{Occur, Query};

use super::ast::SimpleQueryStringAst;
use super::text_syntax::{self, Node, Options};
use crate::error::Result;
use crate::query::context::QueryContext;
use crate::query::params::with_boost;

/// Translates a `simple_query_string` node: its text parsed under its
/// `flags` (malformed text never fails), over its fields resolved
/// against the mapping.
pub fn build(ctx: &QueryContext<'_>, q: &SimpleQueryStringAst<'_>) -> Result<Box<dyn Query>> {
    let all_fields = q.text.fields.iter().any(|s| s.name == "*");
    let opts = Options::of(ctx, &q.text, all_fields);
    let tree = parser::Parser::new(q.text.query, q.flags, opts.default_and).parse();
    // `minimum_should_match` counts the top level's optional clauses (a
    // single clause is one of one).
    let (items, single) = match tree {
        Node::Bool(items) => (items, false),
        other => (vec![(Occur::Should, other)], true),
    };
    let optional = items.iter().filter(|(o, _)| *o == Occur::Should).count();
    let required = match &q.text.minimum_should_match {
        Some(msm) => msm.resolve(optional)?,
        None => 0,
    };
    let mut clauses = Vec::with_capacity(items.len());
    for (occur, item) in &items {
        clauses.push((*occur, text_syntax::to_query(ctx, item, &opts)?));
    }
    let built = if single {
        match clauses.pop() {
            Some((_, q)) => q,
            None => Box::new(tantivy::query::EmptyQuery),
        }
    } else {
        text_syntax::bool_query(clauses, required)
    };
    Ok(with_boost(built, q.text.boost))
}

#[cfg(test)]
mod tests {
    use super::parser::Parser;
    use crate::query::text_params::SimpleFlags as Flags;
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
