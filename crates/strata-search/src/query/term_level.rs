//! Term-level queries: `term`, `terms`, `range`, `exists`, `prefix`,
//! `wildcard`, `ids` (`regexp` has its own module). Values are not analyzed.

use std::ops::{Bound, RangeInclusive};

use serde_json::Value;
use tantivy::query::{
    BooleanQuery, ConstScoreQuery, EmptyQuery, ExistsQuery, InvertedIndexRangeQuery, Occur, Query,
    RangeQuery, TermQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::Term;

use super::ast::{ExistsAst, IdsAst, PatternAst, RangeAst, RangeBound, TermAst, TermsAst};
use super::context::QueryContext;
use super::date_range::DateRangeQuery;
use super::ip_range::{self, IpQuery};
use super::params::with_boost;
use super::regexp::{escape, string_field, term_regex};
use super::term_options::MultiTermOptions;
use super::terms::{bound_value, exact_query, typed_term};
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::document::FieldValue;
use crate::mapping::FieldType;
use crate::store::{json_term, KEYWORDS};

fn const_score(q: Box<dyn Query>) -> Box<dyn Query> {
    Box::new(ConstScoreQuery::new(q, 1.0))
}

pub fn term(ctx: &QueryContext<'_>, q: &TermAst<'_>) -> Result<Box<dyn Query>> {
    let t = term_query(ctx, q.field, q.value)?;
    Ok(with_boost(const_score(t), q.boost))
}

fn term_query(ctx: &QueryContext<'_>, field: &str, value: &Value) -> Result<Box<dyn Query>> {
    any_value(ctx, field, std::slice::from_ref(value))
}

/// Documents with one of `values` at `field` (`_id`, an address's CIDR
/// blocks, a number's column or a term per value).
fn any_value(ctx: &QueryContext<'_>, field: &str, values: &[Value]) -> Result<Box<dyn Query>> {
    if field == "_id" {
        let ids = values.iter().map(|value| {
            let id = value
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| value.to_string());
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(ctx.fields.id, &id),
                IndexRecordOption::Basic,
            ));
            (Occur::Should, q)
        });
        return Ok(Box::new(BooleanQuery::new(ids.collect())));
    }
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    if leaf.ty == FieldType::Ip {
        let mut blocks = Vec::new();
        let mut exact = Vec::new();
        for value in values {
            match ip_range::cidr_query(field, value) {
                Some(block) => blocks.push((Occur::Should, block?)),
                None => exact.push(value.clone()),
            }
        }
        if !blocks.is_empty() {
            let rest = exact_query(ctx.fields, field, leaf, &exact, IndexRecordOption::Basic)?;
            blocks.push((Occur::Should, rest));
            return Ok(Box::new(BooleanQuery::new(blocks)));
        }
    }
    exact_query(ctx.fields, field, leaf, values, IndexRecordOption::Basic)
}

/// What one value of a `terms` (or `ids`) query costs: its clause (a
/// boxed term query and its term) when built, and per segment searched at
/// once (one per search thread) a term weight and a scorer with its
/// postings block buffers. Measured: a million values took 1.6 GB on two
/// threads.
fn term_clause_bytes() -> u64 {
    const CLAUSE: u64 = 256;
    const PER_SEGMENT: u64 = 1536;
    let threads = crate::kernels::cpu::processors() as u64;
    CLAUSE + PER_SEGMENT * threads
}

/// Refuses more values than `index.max_terms_count` (for `terms` only,
/// as Elasticsearch) and reserves their clauses.
fn reserve_clauses(ctx: &QueryContext<'_>, kind: &str, field: &str, count: usize) -> Result<()> {
    if kind == "terms" {
        ctx.limits.check_terms_count(count)?;
    }
    ctx.memory.reserve(
        count as u64 * term_clause_bytes(),
        &format!("<{kind} query [{field}]>"),
    )
}

pub fn terms(ctx: &QueryContext<'_>, q: &TermsAst<'_>) -> Result<Box<dyn Query>> {
    any_term(ctx, "terms", q.field, q.values, q.boost)
}

pub fn ids(ctx: &QueryContext<'_>, q: &IdsAst<'_>) -> Result<Box<dyn Query>> {
    any_term(ctx, "ids", "_id", q.values, q.boost)
}

/// Documents with one of `values` at `field` (`terms` or `ids`, `kind`).
fn any_term(
    ctx: &QueryContext<'_>,
    kind: &str,
    field: &str,
    values: &[Value],
    boost: f64,
) -> Result<Box<dyn Query>> {
    reserve_clauses(ctx, kind, field, values.len())?;
    Ok(with_boost(
        const_score(any_value(ctx, field, values)?),
        boost,
    ))
}

pub fn exists(ctx: &QueryContext<'_>, q: &ExistsAst<'_>) -> Result<Box<dyn Query>> {
    Ok(with_boost(const_score(field_exists(ctx, q.field)), q.boost))
}

/// Documents with a value at `field`, or below it for an object. Typed
/// values are found by their fast columns in `f` (tantivy's
/// `ExistsQuery`, which reads only the columns' indexes), text values by
/// `_field_names`, which holds the paths of text values and of the
/// objects above them. Segments written before `_field_names` was
/// narrowed to text hold every path there; each branch below is also
/// right for them.
fn field_exists(ctx: &QueryContext<'_>, field: &str) -> Box<dyn Query> {
    let names = || -> Box<dyn Query> {
        let t = Term::from_field_text(ctx.fields.field_names, field);
        Box::new(TermQuery::new(t, IndexRecordOption::Basic))
    };
    let column = format!("{KEYWORDS}.{field}");
    match ctx.leaf(field).map(|l| l.ty) {
        Some(FieldType::Text) => names(),
        // A point is two columns below its path.
        Some(FieldType::GeoPoint) => Box::new(ExistsQuery::new(column, true)),
        Some(_) => Box::new(ExistsQuery::new(column, false)),
        // An object (or an unmapped path): any typed value below it, or
        // any text value.
        None => Box::new(BooleanQuery::new(vec![
            (Occur::Should, Box::new(ExistsQuery::new(column, true))),
            (Occur::Should, names()),
        ])),
    }
}

pub fn range(ctx: &QueryContext<'_>, q: &RangeAst<'_>) -> Result<Box<dyn Query>> {
    let field = q.field;
    let Some(leaf) = ctx.leaf(field) else {
        return Ok(Box::new(EmptyQuery));
    };
    let format = q.format.map(DateFormat::parse).transpose()?;
    // `lte` and `gt` round date math up (`now/d` is the day's last millisecond).
    let bound = |b: Option<RangeBound<'_>>, upper: bool| -> Result<Bound<FieldValue>> {
        let Some(b) = b else {
            return Ok(Bound::Unbounded);
        };
        let v = bound_value(
            field,
            leaf,
            b.value,
            format.as_ref(),
            ctx.now_millis,
            q.time_zone,
            upper == b.inclusive,
        )?;
        Ok(if b.inclusive {
            Bound::Included(v)
        } else {
            Bound::Excluded(v)
        })
    };
    let lower = bound(q.lower, false)?;
    let upper = bound(q.upper, true)?;
    if leaf.ty == FieldType::Ip {
        return Ok(with_boost(
            const_score(ip_range_query(field, lower, upper)?),
            q.boost,
        ));
    }
    let (lower, upper) = if leaf.ty.is_integer() {
        (integer_bound(lower, true), integer_bound(upper, false))
    } else {
        (lower, upper)
    };
    // Dates go through zone maps (`date_range`); `None`: a bound is not a
    // date (tantivy's range handles it), `Some(None)`: nothing fits.
    let millis = (leaf.ty == FieldType::Date).then(|| date_millis(&lower, &upper));
    let text = leaf.ty == FieldType::Text;
    let to_term = |b: Bound<FieldValue>| -> Bound<Term> {
        let term = |v: &FieldValue| match (text, v) {
            (true, FieldValue::Keyword(s)) => {
                let mut t = json_term(ctx.fields.text, field);
                t.append_type_and_str(s);
                t
            }
            _ => range_term(ctx, field, v),
        };
        match b {
            Bound::Included(v) => Bound::Included(term(&v)),
            Bound::Excluded(v) => Bound::Excluded(term(&v)),
            Bound::Unbounded => Bound::Unbounded,
        }
    };
    let (lower, upper) = (to_term(lower), to_term(upper));
    // No bound: every document with the field (tantivy's ranges need one;
    // its inverted-index range panics without).
    if matches!((&lower, &upper), (Bound::Unbounded, Bound::Unbounded)) {
        return Ok(with_boost(const_score(field_exists(ctx, field)), q.boost));
    }
    let query: Box<dyn Query> = match leaf.ty {
        FieldType::Text | FieldType::Keyword | FieldType::Ip => {
            Box::new(InvertedIndexRangeQuery::new(lower, upper))
        }
        _ => {
            let range = RangeQuery::new(lower, upper);
            match millis.flatten() {
                Some(Some(millis)) => {
                    let column = format!("{KEYWORDS}.{field}");
                    Box::new(DateRangeQuery::new(column, millis, range))
                }
                Some(None) => Box::new(EmptyQuery),
                None => Box::new(range),
            }
        }
    };
    Ok(with_boost(const_score(query), q.boost))
}

/// A date range's bounds as inclusive epoch milliseconds: `None` when a
/// bound is not a date value, `Some(None)` when no date fits between them.
fn date_millis(
    lower: &Bound<FieldValue>,
    upper: &Bound<FieldValue>,
) -> Option<Option<RangeInclusive<i64>>> {
    let millis = |v: &FieldValue| match v {
        FieldValue::Date(n) | FieldValue::Long(n) => Some(*n),
        _ => None,
    };
    let low = match lower {
        Bound::Unbounded => Some(i64::MIN),
        Bound::Included(v) => Some(millis(v)?),
        Bound::Excluded(v) => millis(v)?.checked_add(1),
    };
    let high = match upper {
        Bound::Unbounded => Some(i64::MAX),
        Bound::Included(v) => Some(millis(v)?),
        Bound::Excluded(v) => millis(v)?.checked_sub(1),
    };
    Some(match (low, high) {
        (Some(low), Some(high)) if low <= high => Some(low..=high),
        _ => None,
    })
}

/// A range over an `ip` field, compared as addresses rather than as text.
fn ip_range_query(
    field: &str,
    lower: Bound<FieldValue>,
    upper: Bound<FieldValue>,
) -> Result<Box<dyn Query>> {
    // `bound_value` gives an ip field's bounds as their text.
    let text = |b: &Bound<FieldValue>| -> Result<Bound<u128>> {
        ip_range::ip_bound(match b {
            Bound::Included(FieldValue::Keyword(s)) => Bound::Included(s.as_str()),
            Bound::Excluded(FieldValue::Keyword(s)) => Bound::Excluded(s.as_str()),
            Bound::Unbounded => Bound::Unbounded,
            other => {
                return Err(SearchError::parsing(format!(
                    "failed to create query: [{field}] is an ip field, not [{other:?}]"
                )))
            }
        })
    };
    Ok(match ip_range::inclusive(text(&lower)?, text(&upper)?) {
        Some(range) => Box::new(IpQuery::range(field, range)),
        None => Box::new(EmptyQuery),
    })
}

/// A typed term for a range bound: a string's in `k` (the inverted
/// index's range), a number's in `f` (tantivy's range reads its column);
/// floats stay f64 (the columns are f64).
fn range_term(ctx: &QueryContext<'_>, field: &str, v: &FieldValue) -> Term {
    match v {
        FieldValue::Double(f) => {
            let mut t = json_term(ctx.fields.values, field);
            t.append_type_and_fast_value(*f);
            t
        }
        FieldValue::Keyword(_) | FieldValue::Text(_) | FieldValue::Bool(_) | FieldValue::Ip(_) => {
            typed_term(ctx.fields.terms, field, v)
        }
        FieldValue::Long(_) | FieldValue::Date(_) => typed_term(ctx.fields.values, field, v),
    }
}

/// Integer fields: fractional bounds rounded inward, as i64.
fn integer_bound(b: Bound<FieldValue>, lower: bool) -> Bound<FieldValue> {
    let f = match &b {
        Bound::Included(FieldValue::Double(f)) | Bound::Excluded(FieldValue::Double(f)) => *f,
        _ => return b,
    };
    let inclusive = matches!(b, Bound::Included(_));
    let clamp = |x: f64| x.clamp(i64::MIN as f64, i64::MAX as f64) as i64;
    if f.fract() == 0.0 {
        let n = FieldValue::Long(clamp(f));
        return if inclusive {
            Bound::Included(n)
        } else {
            Bound::Excluded(n)
        };
    }
    Bound::Included(FieldValue::Long(clamp(if lower {
        f.ceil()
    } else {
        f.floor()
    })))
}

/// Translates a `prefix` node.
pub fn prefix(ctx: &QueryContext<'_>, q: &PatternAst<'_>) -> Result<Box<dyn Query>> {
    Ok(with_boost(
        prefix_on(ctx, q.field, q.value, q.options)?,
        q.boost,
    ))
}

/// Terms of `field` starting with `value`.
pub(crate) fn prefix_on(
    ctx: &QueryContext<'_>,
    field: &str,
    value: &str,
    options: MultiTermOptions,
) -> Result<Box<dyn Query>> {
    let Some(target) = string_field(ctx, "prefix", field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let mut pattern: String = value.chars().map(escape).collect();
    pattern.push_str(".*");
    term_regex(ctx, target, field, &pattern, options, "prefix")
}

/// Translates a `wildcard` node.
pub fn wildcard(ctx: &QueryContext<'_>, q: &PatternAst<'_>) -> Result<Box<dyn Query>> {
    Ok(with_boost(
        wildcard_on(ctx, q.field, q.value, q.options)?,
        q.boost,
    ))
}

/// Terms of `field` matching the `*`/`?` pattern `value`.
pub(crate) fn wildcard_on(
    ctx: &QueryContext<'_>,
    field: &str,
    value: &str,
    options: MultiTermOptions,
) -> Result<Box<dyn Query>> {
    let Some(target) = string_field(ctx, "wildcard", field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let mut pattern = String::new();
    for c in value.chars() {
        match c {
            '*' => pattern.push_str(".*"),
            '?' => pattern.push('.'),
            c => pattern.push_str(&escape(c)),
        }
    }
    term_regex(ctx, target, field, &pattern, options, "wildcard")
}
