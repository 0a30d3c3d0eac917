//! The tree both text syntaxes parse into: [`Node`]s of boolean groups
//! over [`LeafValue`]s, the [`Options`] that say how leaves become
//! queries, the group depth limit, and [`bool_query`] (Lucene's boolean
//! semantics over translated clauses).
//!
//! A leaf of `text_syntax`: the parsers (`query_string`,
//! `simple_query_string`) and the leaf translation (`leaf`) use these
//! types without depending on the translation of the whole tree in
//! `text_syntax/mod.rs`.

use tantivy::query::{AllQuery, BooleanQuery, EmptyQuery, Occur, Query};

use super::fields::resolve_fields;
use crate::query::ast::TextParams;
use crate::query::context::QueryContext;
use crate::query::term_options::{FuzzyOptions, MultiTermOptions};
use crate::query::text_params::FieldSpec;

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
    /// The options of a query-text query with parameters `text`, its
    /// fields resolved against the mapping (`all_fields`: they are "all
    /// fields"); the parameters only `query_string` takes at their
    /// defaults.
    pub(crate) fn of(ctx: &QueryContext<'_>, text: &TextParams<'_>, all_fields: bool) -> Options {
        Options {
            default_fields: resolve_fields(ctx, &text.fields),
            all_fields,
            default_and: text.default_and,
            lenient: text.lenient,
            analyze_wildcard: text.analyze_wildcard,
            phrase_slop: 0,
            tie_breaker: 0.0,
            time_zone: None,
            multi_term: MultiTermOptions::default(),
            fuzzy: text.fuzzy,
            leading_wildcard: true,
        }
    }

    /// Values a field cannot take match nothing (asked, or implied by
    /// "all fields").
    pub(super) fn lenient(&self) -> bool {
        self.lenient || self.all_fields
    }
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
