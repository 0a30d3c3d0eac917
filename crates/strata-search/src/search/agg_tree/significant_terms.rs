//! [`SignificantTermsParams`]: a `significant_terms` aggregation's
//! parameters, typed when the request is parsed: the values counted
//! ([`TermValues`]: `field`, `include`, `exclude`, `missing`), `size`
//! (default 10, at least 1), `shard_size` (at least 1, if written),
//! `min_doc_count` (default 3) and `shard_min_doc_count` (counts: one
//! shard here, so the shard ones change nothing), the score
//! ([`Heuristic`]: `jlh`, the default, or `percentage`; the other
//! heuristics Elasticsearch knows are refused) and `background_filter`,
//! parsed here once into a [`ParsedQuery`] (a bad query is refused with
//! its path, `[aggs][s][significant_terms][background_filter]...`).
//! `execution_hint` is accepted and changes nothing; `script` and any
//! other key are refused, in the words the scan used before the
//! parameters were typed. Converting the values to the field's type is the
//! scan's (`scan_aggs`), against the mapping.

use serde_json::Value;

use super::source::{check_keys, count_param, object_of};
use super::term_values::TermValues;
use crate::error::{QueryStep, Result, SearchError};
use crate::query::ParsedQuery;

const KIND: &str = "significant_terms";

/// The heuristics Elasticsearch knows that are not computed here.
const UNSUPPORTED: &[&str] = &[
    "mutual_information",
    "chi_square",
    "gnd",
    "script_heuristic",
];

/// How `significant_terms` scores a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heuristic {
    /// `jlh` (the default): the absolute change in frequency times the
    /// relative one.
    Jlh,
    /// `percentage`: foreground documents over background documents.
    Percentage,
}

/// The parameters of one `significant_terms` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct SignificantTermsParams {
    /// The values counted.
    pub values: TermValues,
    /// Most buckets returned.
    pub size: usize,
    /// Elasticsearch's per-shard `size`, if written (checked, unused).
    pub shard_size: Option<u64>,
    /// Fewest foreground documents a returned value has.
    pub min_doc_count: u64,
    /// Elasticsearch's per-shard `min_doc_count`, if written (checked,
    /// unused).
    pub shard_min_doc_count: Option<u64>,
    /// The score.
    pub heuristic: Heuristic,
    /// The query selecting the background documents (`None`: the whole
    /// index), parsed.
    pub background_filter: Option<ParsedQuery>,
}

impl SignificantTermsParams {
    /// The parameters `body` of the `significant_terms` aggregation
    /// `name`.
    pub fn parse(name: &str, body: &Value) -> Result<SignificantTermsParams> {
        object_of(KIND, name, body)?;
        let params = body;
        check_keys(
            name,
            KIND,
            params,
            &[
                "field",
                "size",
                "shard_size",
                "min_doc_count",
                "shard_min_doc_count",
                "background_filter",
                "include",
                "exclude",
                "missing",
                "execution_hint",
                "jlh",
                "percentage",
                "mutual_information",
                "chi_square",
                "gnd",
                "script_heuristic",
            ],
        )?;
        if let Some(other) = UNSUPPORTED.iter().find(|h| params.get(**h).is_some()) {
            return Err(SearchError::illegal(format!(
                "significance heuristic [{other}] of [{name}] is not supported (jlh and percentage are)"
            )));
        }
        let heuristic = if params.get("percentage").is_some() {
            Heuristic::Percentage
        } else {
            Heuristic::Jlh
        };
        let size = positive(name, params, "size", 10)?;
        let shard_size = match params.get("shard_size") {
            None => None,
            Some(_) => Some(positive(name, params, "shard_size", 0)?),
        };
        let values = TermValues::parse(KIND, name, params)?;
        let min_doc_count = count_param(name, params, "min_doc_count", 3)?;
        let shard_min_doc_count = match params.get("shard_min_doc_count") {
            None => None,
            Some(_) => Some(count_param(name, params, "shard_min_doc_count", 0)?),
        };
        let background_filter = match params.get("background_filter") {
            None => None,
            Some(q) => Some(
                ParsedQuery::parse(q.clone())
                    .map_err(|e| e.in_query(QueryStep::Key("background_filter".into())))?,
            ),
        };
        Ok(SignificantTermsParams {
            values,
            size: usize::try_from(size).unwrap_or(usize::MAX),
            shard_size,
            min_doc_count,
            shard_min_doc_count,
            heuristic,
            background_filter,
        })
    }
}

/// The count `key` of the aggregation `name` (`default` if not written),
/// which must not be 0.
fn positive(name: &str, params: &Value, key: &str, default: u64) -> Result<u64> {
    let n = count_param(name, params, key, default)?;
    if n == 0 {
        return Err(SearchError::illegal(format!(
            "[{key}] must be greater than 0. Found [0] in [{name}]"
        )));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{Heuristic, SignificantTermsParams, TermValues};
    use crate::error::{QueryStep, Result};
    use crate::query::ParsedQuery;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<SignificantTermsParams> {
        match typed("s", "significant_terms", params)? {
            TypedParams::SignificantTerms(s) => Ok(s),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn defaults_and_values_as_written() {
        let plain = parsed(json!({"field": "tag"})).unwrap();
        assert_eq!(
            plain,
            SignificantTermsParams {
                values: TermValues {
                    field: "tag".into(),
                    include: None,
                    exclude: Vec::new(),
                    missing: None,
                },
                size: 10,
                shard_size: None,
                min_doc_count: 3,
                shard_min_doc_count: None,
                heuristic: Heuristic::Jlh,
                background_filter: None,
            }
        );
        let full = parsed(json!({"field": "tag", "size": "5", "shard_size": 50,
            "min_doc_count": 0, "shard_min_doc_count": "1", "percentage": {},
            "background_filter": {"term": {"kind": "a"}}, "execution_hint": "map",
            "include": ["a"], "exclude": ["b"], "missing": "none"}))
        .unwrap();
        assert_eq!((full.size, full.shard_size), (5, Some(50)));
        assert_eq!((full.min_doc_count, full.shard_min_doc_count), (0, Some(1)));
        assert_eq!(full.heuristic, Heuristic::Percentage);
        let background = full.background_filter.as_ref().map(ParsedQuery::json);
        assert_eq!(background, Some(&json!({"term": {"kind": "a"}})));
        assert_eq!(full.values.include, Some(vec![json!("a")]));
        assert_eq!(full.values.exclude, vec![json!("b")]);
        assert_eq!(full.values.missing, Some(json!("none")));
        // `jlh` named explicitly is the default; `percentage` wins over it.
        let jlh = parsed(json!({"field": "tag", "jlh": {}})).unwrap();
        assert_eq!(jlh.heuristic, Heuristic::Jlh);
        let both = parsed(json!({"field": "tag", "jlh": {}, "percentage": {}})).unwrap();
        assert_eq!(both.heuristic, Heuristic::Percentage);
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!(["tag"]),
                "[significant_terms] of [s] must be an object",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "order": {"_count": "asc"}}),
                "[significant_terms] unknown field [order]",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "tag", "script": "1"}),
                "[script] of [significant_terms] aggregation [s] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"size": 2}),
                "Required one of fields [field, script], but none were specified (aggregation [s])",
                "illegal_argument_exception",
            ),
            (
                json!({"field": 1}),
                "[field] of [significant_terms] aggregation [s] must be a string, got [1]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "chi_square": {}}),
                "significance heuristic [chi_square] of [s] is not supported (jlh and percentage are)",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "gnd": null}),
                "significance heuristic [gnd] of [s] is not supported (jlh and percentage are)",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "size": 0}),
                "[size] must be greater than 0. Found [0] in [s]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "size": 1.5}),
                "[size] of aggregation [s] must be a non-negative integer, got [1.5]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "shard_size": 0}),
                "[shard_size] must be greater than 0. Found [0] in [s]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "shard_size": "many"}),
                "[shard_size] of aggregation [s] must be a non-negative integer, got [\"many\"]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "min_doc_count": -3}),
                "[min_doc_count] of aggregation [s] must be a non-negative integer, got [-3]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "shard_min_doc_count": -1}),
                "[shard_min_doc_count] of aggregation [s] must be a non-negative integer, got [-1]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "include": "a|b"}),
                "[include] of [s] must be an array of values (regular expressions are not supported), got [\"a|b\"]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "exclude": 3}),
                "[exclude] of [s] must be an array of values (regular expressions are not supported), got [3]",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("s", "significant_terms", &cases);
    }

    #[test]
    fn a_bad_background_filter_is_refused_with_its_path() {
        let err = parsed(json!({"field": "tag", "background_filter": {"nope": {}}})).unwrap_err();
        assert_eq!(err.to_string(), "unknown query [nope]");
        let path =
            ["s", "significant_terms", "background_filter"].map(|k| QueryStep::Key(k.into()));
        assert_eq!(err.query_path(), Some(&path[..]));
    }
}
