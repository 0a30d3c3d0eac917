//! [`MissingParams`]: the parameters of a `missing` aggregation (the
//! documents without a value of its field), typed when the request is
//! parsed: `field` alone. Any other key (`script` too) is refused, in the
//! words translation used before the parameters were typed.

use serde_json::Value;

use super::source::{field_param, object_of};
use crate::error::{Result, SearchError};

const KIND: &str = "missing";

/// The parameters of one `missing` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingParams {
    /// The field whose documents without a value are counted.
    pub field: String,
}

impl MissingParams {
    /// The parameters `body` of the `missing` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<MissingParams> {
        let obj = object_of(KIND, name, body)?;
        if let Some(k) = obj.keys().find(|k| k.as_str() != "field") {
            return Err(SearchError::parsing(format!(
                "[missing] unknown field [{k}] in aggregation [{name}]"
            )));
        }
        Ok(MissingParams {
            field: field_param(name, KIND, body)?.to_string(),
        })
    }

    /// The query of its documents: those without a value of the field.
    pub fn query(&self) -> Value {
        serde_json::json!({"bool": {"must_not": {"exists": {"field": self.field}}}})
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::MissingParams;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    #[test]
    fn the_field_and_its_query() {
        let m = typed("m", "missing", json!({"field": "tag"})).unwrap();
        let params = MissingParams {
            field: "tag".into(),
        };
        assert_eq!(
            params.query(),
            json!({"bool": {"must_not": {"exists": {"field": "tag"}}}})
        );
        assert_eq!(m, TypedParams::Missing(params));
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!("tag"),
                "[missing] of [m] must be an object",
                "parsing_exception",
            ),
            (
                json!({}),
                "Required one of fields [field, script], but none were specified (aggregation [m])",
                "illegal_argument_exception",
            ),
            (
                json!({"field": ["tag"]}),
                "[field] of [missing] aggregation [m] must be a string, got [[\"tag\"]]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "missing": "x"}),
                "[missing] unknown field [missing] in aggregation [m]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "script": "1"}),
                "[missing] unknown field [script] in aggregation [m]",
                "parsing_exception",
            ),
        ];
        assert_refusals("m", "missing", &cases);
    }
}
