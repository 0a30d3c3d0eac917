//! The parsed form both `query_string` and `simple_query_string` produce
//! (a tree of boolean groups over leaf clauses), and its translation into
//! tantivy queries over the fields the clauses resolve to.
//!
//! - `fields`: default fields and field patterns (`*`, `message*`,
//!   `title^2`) resolved against the mapping.
//! - `tree`: the parsed tree, its options and Lucene's boolean query.
//! - `leaf`: one leaf clause on one field (match, phrase, wildcard, fuzzy,
//!   regular expression, range, exists), with leniency.
//!
//! A leaf over several fields is a `dis_max` of one query per field (the
//! `best_fields` behaviour). Leaves never panic on user text: a value a
//! field cannot take is an error, or nothing when the query is lenient.

mod fields;
mod leaf;
mod tree;

use tantivy::query::{AllQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, Query};

use crate::query::text_params::FieldSpec;
use fields::resolve_fields;
pub(crate) use tree::{bool_query, LeafValue, Node, Options, MAX_GROUP_DEPTH};

use crate::error::Result;
use crate::query::context::QueryContext;

/// Translates a parsed query.
pub(crate) fn to_query(
    ctx: &QueryContext<'_>,
    node: &Node,
    opts: &Options,
) -> Result<Box<dyn Query>> {
    Ok(match node {
        Node::All => Box::new(AllQuery),
        Node::Nothing => Box::new(EmptyQuery),
        Node::Boost(inner, boost) => Box::new(BoostQuery::new(to_query(ctx, inner, opts)?, *boost)),
        Node::Bool(items) => {
            let mut clauses = Vec::with_capacity(items.len() + 1);
            for (occur, item) in items {
                clauses.push((*occur, to_query(ctx, item, opts)?));
            }
            bool_query(clauses, 0)
        }
        Node::Leaf { field, value } => leaf_query(ctx, field.as_deref(), value, opts)?,
    })
}

fn leaf_query(
    ctx: &QueryContext<'_>,
    field: Option<&str>,
    value: &LeafValue,
    opts: &Options,
) -> Result<Box<dyn Query>> {
    if field == Some("_exists_") {
        let LeafValue::Word { text, .. } = value else {
            return Ok(Box::new(EmptyQuery));
        };
        if !text.contains('*') {
            return leaf::exists(ctx, text);
        }
        // `_exists_:pattern*`: any field the pattern names.
        let mut clauses = Vec::new();
        for spec in resolve_fields(ctx, &[FieldSpec::parse(text)?]) {
            clauses.push((Occur::Should, leaf::exists(ctx, &spec.name)?));
        }
        return Ok(bool_query(clauses, 0));
    }
    let (specs, lenient) = match field {
        Some(f) => {
            let specs = resolve_fields(ctx, &[FieldSpec::parse(f)?]);
            let all = f == "*";
            (specs, opts.lenient || all)
        }
        None => {
            if *value
                == (LeafValue::Word {
                    text: "*".into(),
                    wildcard: true,
                })
                && opts.all_fields
            {
                return Ok(Box::new(AllQuery));
            }
            (opts.default_fields.clone(), opts.lenient())
        }
    };
    let mut per_field: Vec<Box<dyn Query>> = Vec::with_capacity(specs.len());
    for spec in &specs {
        let q = match leaf::on_field(ctx, &spec.name, value, opts) {
            Ok(q) => q,
            Err(_) if lenient => continue,
            Err(e) => return Err(e),
        };
        per_field.push(if spec.boost == 1.0 {
            q
        } else {
            Box::new(BoostQuery::new(q, spec.boost))
        });
    }
    Ok(match per_field.len() {
        0 => Box::new(EmptyQuery),
        1 => per_field.remove(0),
        _ => Box::new(DisjunctionMaxQuery::with_tie_breaker(
            per_field,
            opts.tie_breaker,
        )),
    })
}
