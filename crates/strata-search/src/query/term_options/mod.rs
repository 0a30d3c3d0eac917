//! The options of the multi-term queries (`prefix`, `wildcard`, `regexp`,
//! `fuzzy`, and `query_string`'s and the `*_prefix` queries' use of them),
//! as parsed from a request: how an automaton is built and scored
//! ([`MultiTermOptions`], [`Rewrite`]), which regexp operators are on
//! ([`Flags`]), and how far a fuzzy term reaches ([`Fuzziness`],
//! [`FuzzyOptions`]).
//!
//! A leaf: plain values and their parsing, naming no translator, so both
//! the query tree (`query/ast`) and the translators that run the options
//! (`query/regexp`) use them without importing each other.

mod fuzzy;
mod regexp_flags;
mod rewrite;

pub(crate) use fuzzy::{Fuzziness, FuzzyOptions};
pub(crate) use regexp_flags::Flags;
pub(crate) use rewrite::Rewrite;

use serde_json::Value;

use crate::error::{Result, SearchError};

/// Elasticsearch's default `max_determinized_states`.
pub(crate) const DEFAULT_MAX_DETERMINIZED_STATES: usize = 10_000;

/// How a multi-term query's automaton is built and scored.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MultiTermOptions {
    pub case_insensitive: bool,
    pub max_states: usize,
    pub rewrite: Rewrite,
}

impl Default for MultiTermOptions {
    fn default() -> Self {
        MultiTermOptions {
            case_insensitive: false,
            max_states: DEFAULT_MAX_DETERMINIZED_STATES,
            rewrite: Rewrite::default(),
        }
    }
}

impl MultiTermOptions {
    /// `case_insensitive`, `max_determinized_states` and `rewrite` of a
    /// `kind` query's parameters (each optional).
    pub fn parse(kind: &str, params: &Value) -> Result<MultiTermOptions> {
        let case_insensitive = match params.get("case_insensitive") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[{kind}] case_insensitive must be a boolean, got [{other}]"
                )))
            }
        };
        let max_states = match params.get("max_determinized_states") {
            None => DEFAULT_MAX_DETERMINIZED_STATES,
            Some(v) => v
                .as_u64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                .filter(|&n| n > 0)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    SearchError::parsing(format!(
                        "[{kind}] max_determinized_states must be a positive integer, got [{v}]"
                    ))
                })?,
        };
        Ok(MultiTermOptions {
            case_insensitive,
            max_states,
            rewrite: Rewrite::parse(kind, params.get("rewrite"))?,
        })
    }
}
