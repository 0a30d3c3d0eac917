//! The parsed form both `query_string` and `simple_query_string` produce
//! (a tree of boolean groups over leaf clauses), and its translation into
//! tantivy queries over the fields the clauses resolve to.
//!
//! - `fields`: default fields and field patterns (`*`, `message*`,
//!   `title^2`) resolved against the mapping.
//! - `leaf`: one leaf clause on one field (match, phrase, wildcard, fuzzy,
//!   regular expression, range, exists), with leniency.
//!
//! A leaf over several fields is a `dis_max` of one query per field (the
//! `best_fields` behaviour). Leaves never panic on user text: a value a
//! field cannot take is an error, or nothing when the query is lenient.

mod fields;
mod leaf;

use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, Occur, Query,
};

pub(crate) use fields::{resolve_fields, FieldSpec};

use super::regexp::{FuzzyOptions, MultiTermOptions};
use super::QueryContext;
use crate::error::Result;

/// Deepest nesting of parenthesised groups either syntax parses. The
/// parsers, the translation and tantivy's weights recurse once per level,
/// so this bounds their stack use (a few hundred bytes a level) well
/// inside any worker's stack; `query_string` refuses a deeper query,
/// `simple_query_string` (which never fails) reads deeper parentheses as
/// plain grouping of the level it is at.
pub(crate) const MAX_GROUP_DEPTH: usize = 100;

/// A leaf's value, as the query text wrote it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LeafValue {
    /// A single word (analyzed for text fields); `wildcard` when it has an
    /// unescaped `*` or `?`.
    Word { text: String, wildcard: bool },
    /// A quoted phrase with its slop (`"a b"~2`; `None`: the default).
    Phrase { text: String, slop: Option<u32> },
    /// A word with an edit distance (`foo~1`).
    Fuzzy { text: String, distance: u8 },
    /// A prefix (`foo*` in `simple_query_string`).
    Prefix(String),
    /// A regular expression in Lucene's syntax (`/joh?n/` in `query_string`).
    Regex(String),
    /// A range; `None` is an open end.
    Range {
        low: Option<String>,
        high: Option<String>,
        low_inclusive: bool,
        high_inclusive: bool,
    },
}

/// A node of the parsed query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// Every document (a bare `*`).
    All,
    /// Nothing (an empty query).
    Nothing,
    /// A value on a field (`None`: the default fields).
    Leaf {
        field: Option<String>,
        value: LeafValue,
    },
    /// A boolean group.
    Bool(Vec<(Occur, Node)>),
    /// A boosted node (`^2`).
    Boost(Box<Node>, f32),
}

/// How leaves become queries.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Fields of a leaf without one, with boosts.
    pub default_fields: Vec<FieldSpec>,
    /// The default fields are "all fields" (forces leniency, as Elasticsearch does).
    pub all_fields: bool,
    /// Multi-word text within one leaf: all words required.
    pub default_and: bool,
    /// Values a field cannot take match nothing instead of failing.
    pub lenient: bool,
    /// Lower-case and split wildcard terms on text fields.
    pub analyze_wildcard: bool,
    /// Slop of phrases without `~N`.
    pub phrase_slop: u32,
    /// `dis_max` tie breaker across fields.
    pub tie_breaker: f32,
    /// Time zone of date range bounds, passed to `range`.
    pub time_zone: Option<String>,
    /// `rewrite` and `max_determinized_states` of wildcard, prefix and
    /// regexp leaves.
    pub multi_term: MultiTermOptions,
    /// `fuzzy_*` of `value~N` leaves.
    pub fuzzy: FuzzyOptions,
    /// A wildcard leaf may start with `*` or `?` (`allow_leading_wildcard`).
    pub leading_wildcard: bool,
}

impl Options {
    fn lenient(&self) -> bool {
        self.lenient || self.all_fields
    }
}

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

/// A boolean query with Lucene's semantics: a purely negative group
/// matches everything else, and without required clauses at least
/// `max(1, min_should)` optional ones must match.
pub(crate) fn bool_query(
    mut clauses: Vec<(Occur, Box<dyn Query>)>,
    min_should: usize,
) -> Box<dyn Query> {
    let has_must = clauses.iter().any(|(o, _)| *o == Occur::Must);
    let shoulds = clauses.iter().filter(|(o, _)| *o == Occur::Should).count();
    if !has_must && shoulds == 0 {
        if clauses.is_empty() {
            return Box::new(EmptyQuery);
        }
        clauses.push((Occur::Must, Box::new(AllQuery)));
    }
    let required = if has_must {
        min_should
    } else {
        min_should.max(1)
    };
    let required = required.min(shoulds);
    if required > 0 {
        Box::new(BooleanQuery::with_minimum_required_clauses(
            clauses, required,
        ))
    } else {
        Box::new(BooleanQuery::new(clauses))
    }
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
