//! The `fuzzy` query: terms of a `keyword` or `text` field within an edit
//! distance of one value (not analyzed, as in Elasticsearch). Its
//! `fuzziness` (`0`, `1`, `2`, `AUTO`, `AUTO:low,high`) is parsed into the
//! tree (`query/term_options`).

use serde_json::Value;
use tantivy::query::{EmptyQuery, Query};

use super::ast::FuzzyAst;
use super::context::QueryContext;
use super::params::with_boost;
use super::regexp::{fuzzy_term, string_field};
use super::terms::exact_term;
use crate::error::Result;
use crate::store::json_term;

/// Translates a `fuzzy` node: an unmapped field matches nothing; a `text`
/// field's value is one term as written, a `keyword`'s its exact term.
pub fn fuzzy(ctx: &QueryContext<'_>, q: &FuzzyAst<'_>) -> Result<Box<dyn Query>> {
    let field = q.field;
    let Some(target) = string_field(ctx, "fuzzy", field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let term = if target == ctx.fields.text {
        let mut t = json_term(target, field);
        t.append_type_and_str(&q.value);
        Some(t)
    } else {
        match ctx.leaf(field) {
            Some(leaf) => exact_term(ctx.fields, field, leaf, &Value::String(q.value.clone()))?,
            None => None,
        }
    };
    let Some(term) = term else {
        return Ok(Box::new(EmptyQuery));
    };
    let q2 = fuzzy_term(&term, field, q.fuzziness.edits(&q.value), q.options);
    Ok(with_boost(q2, q.boost))
}
