//! [`TermValues`]: the parameters `rare_terms` and `significant_terms`
//! share, the values they count: `field` (required), `include` and
//! `exclude` (arrays of values; a regular expression, or anything but an
//! array or `null`, is refused) and `missing`. The values are kept as
//! written: what they mean depends on the field's type, which the scan
//! reads from the mapping (`scan_aggs`), converting them then and refusing
//! the ones that do not fit the field.

use serde_json::Value;

use super::source::field_param;
use crate::error::{Result, SearchError};

/// Which values of which field a terms scan counts.
#[derive(Debug, Clone, PartialEq)]
pub struct TermValues {
    /// The field whose values are counted.
    pub field: String,
    /// Only these values are counted (`None`: all), as written.
    pub include: Option<Vec<Value>>,
    /// These values are not counted, as written.
    pub exclude: Vec<Value>,
    /// The value a document without one counts as (`None`: such a
    /// document counts for no value), as written.
    pub missing: Option<Value>,
}

impl TermValues {
    /// The values `params` of the `kind` aggregation `name` counts.
    pub(super) fn parse(kind: &str, name: &str, params: &Value) -> Result<TermValues> {
        let field = field_param(name, kind, params)?.to_string();
        let include = values(name, params, "include")?;
        let exclude = values(name, params, "exclude")?.unwrap_or_default();
        let missing = params.get("missing").filter(|v| !v.is_null()).cloned();
        Ok(TermValues {
            field,
            include,
            exclude,
            missing,
        })
    }
}

/// The array of values `key` of the aggregation `name` (`None`: not
/// written, or `null`).
fn values(name: &str, params: &Value, key: &str) -> Result<Option<Vec<Value>>> {
    match params.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items.clone())),
        Some(other) => Err(SearchError::illegal(format!(
            "[{key}] of [{name}] must be an array of values (regular expressions are not supported), got [{other}]"
        ))),
    }
}
