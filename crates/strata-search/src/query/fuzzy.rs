//! The `fuzzy` query: terms of a `keyword` or `text` field within an edit
//! distance of one value (not analyzed, as in Elasticsearch), and the
//! `fuzziness` parameter (`0`, `1`, `2`, `AUTO`, `AUTO:low,high`) it shares
//! with `match_bool_prefix`.

use serde_json::Value;
use tantivy::query::{EmptyQuery, Query};

use super::context::QueryContext;
use super::params::{boosted, single_field, value_and_params};
use super::regexp::{fuzzy_term, string_field, FuzzyOptions};
use super::terms::exact_term;
use crate::error::{Result, SearchError};
use crate::store::json_term;

/// An edit distance, or Elasticsearch's `AUTO` rule by term length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fuzziness {
    /// This many edits (0 to 2).
    Edits(u8),
    /// 0 edits below `low` characters, 1 below `high`, 2 from `high` on.
    Auto { low: usize, high: usize },
}

impl Fuzziness {
    /// `AUTO:3,6`, Elasticsearch's default `AUTO`.
    pub const AUTO: Fuzziness = Fuzziness::Auto { low: 3, high: 6 };

    /// Parses a `fuzziness` value of a `kind` query.
    pub fn parse(kind: &str, value: &Value) -> Result<Fuzziness> {
        let bad = || SearchError::parsing(format!("[{kind}] failed to parse fuzziness [{value}]"));
        let text = match value {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.trim().to_string(),
            _ => return Err(bad()),
        };
        if text.eq_ignore_ascii_case("auto") {
            return Ok(Fuzziness::AUTO);
        }
        if let Some(rest) = text
            .get(..5)
            .filter(|p| p.eq_ignore_ascii_case("auto:"))
            .map(|_| &text[5..])
        {
            let (low, high) = rest.split_once(',').ok_or_else(bad)?;
            let low: usize = low.trim().parse().map_err(|_| bad())?;
            let high: usize = high.trim().parse().map_err(|_| bad())?;
            if low > high {
                return Err(bad());
            }
            return Ok(Fuzziness::Auto { low, high });
        }
        // Elasticsearch takes `1.0` as 1 and refuses more than 2 edits.
        let edits: f64 = text.parse().map_err(|_| bad())?;
        if !(0.0..=2.0).contains(&edits) || edits.fract() != 0.0 {
            return Err(SearchError::illegal(format!(
                "Valid edit distances are [0, 1, 2] but was [{text}]"
            )));
        }
        Ok(Fuzziness::Edits(edits as u8))
    }

    /// The edits allowed for `term`.
    pub fn edits(self, term: &str) -> u8 {
        match self {
            Fuzziness::Edits(n) => n,
            Fuzziness::Auto { low, high } => {
                let len = term.chars().count();
                if len < low {
                    0
                } else if len < high {
                    1
                } else {
                    2
                }
            }
        }
    }
}

/// Reads `max_expansions`, `prefix_length`, `transpositions` and `rewrite`
/// (each under its `fuzzy_` name when `prefixed`) into `options`.
pub(crate) fn fuzzy_options(
    kind: &str,
    params: &Value,
    prefixed: bool,
    options: &mut FuzzyOptions,
) -> Result<()> {
    let Some(obj) = params.as_object() else {
        return Ok(());
    };
    for (key, value) in obj {
        let name = if prefixed {
            match key.strip_prefix("fuzzy_") {
                Some(_) => key.clone(),
                None if key == "max_expansions" || key == "prefix_length" => {
                    format!("fuzzy_{key}")
                }
                None => continue,
            }
        } else {
            match key.as_str() {
                "max_expansions" | "prefix_length" | "transpositions" | "rewrite" => {
                    format!("fuzzy_{key}")
                }
                _ => continue,
            }
        };
        options.set(kind, &name, value)?;
    }
    Ok(())
}

/// `{"fuzzy": {"field": "value"}}` or `{"fuzzy": {"field": {"value",
/// "fuzziness", "max_expansions", "prefix_length", "transpositions",
/// "rewrite"}}}`.
pub fn fuzzy(ctx: &QueryContext<'_>, body: &Value) -> Result<Box<dyn Query>> {
    let (field, params) = single_field("fuzzy", body)?;
    let (value, params) = value_and_params(
        "fuzzy",
        params,
        &[
            "value",
            "fuzziness",
            "max_expansions",
            "prefix_length",
            "transpositions",
            "rewrite",
        ],
    )?;
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => {
            return Err(SearchError::parsing(format!(
                "[fuzzy] value must be a string, got [{other}]"
            )))
        }
    };
    let fuzziness = match params.get("fuzziness") {
        None => Fuzziness::AUTO,
        Some(v) => Fuzziness::parse("fuzzy", v)?,
    };
    let mut options = FuzzyOptions::default();
    fuzzy_options("fuzzy", params, false, &mut options)?;
    let Some(target) = string_field(ctx, "fuzzy", field)? else {
        return Ok(Box::new(EmptyQuery));
    };
    let term = if target == ctx.fields.text {
        let mut t = json_term(target, field);
        t.append_type_and_str(&text);
        Some(t)
    } else {
        match ctx.leaf(field) {
            Some(leaf) => exact_term(ctx.fields, field, leaf, &Value::String(text.clone()))?,
            None => None,
        }
    };
    let Some(term) = term else {
        return Ok(Box::new(EmptyQuery));
    };
    let q = fuzzy_term(&term, field, fuzziness.edits(&text), options);
    boosted(q, params)
}
