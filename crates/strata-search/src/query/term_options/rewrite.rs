//! [`Rewrite`]: Elasticsearch's `rewrite` parameter of the multi-term
//! queries (`regexp`, `wildcard`, `prefix`, `fuzzy`), as parsed. How each
//! value scores is the business of `query/regexp/rewrite.rs`, which runs it.

use serde_json::Value;

use crate::error::{Result, SearchError};

/// Elasticsearch's `rewrite` values (see `query/regexp/rewrite.rs` for how each scores).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rewrite {
    /// `constant_score` (the default) and `constant_score_boolean`.
    #[default]
    ConstantScore,
    /// `scoring_boolean`.
    ScoringBoolean,
    /// `top_terms_N`.
    TopTerms(usize),
    /// `top_terms_boost_N`.
    TopTermsBoost(usize),
    /// `top_terms_blended_freqs_N`.
    TopTermsBlendedFreqs(usize),
}

impl Rewrite {
    /// Parses the `rewrite` parameter of a `kind` query (absent: default).
    pub fn parse(kind: &str, value: Option<&Value>) -> Result<Rewrite> {
        let Some(value) = value else {
            return Ok(Rewrite::default());
        };
        let bad =
            || SearchError::illegal(format!("[{kind}] failed to parse rewrite_method [{value}]"));
        let text = value.as_str().ok_or_else(bad)?;
        let top = |rest: &str| match rest.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(bad()),
        };
        Ok(match text {
            "constant_score" | "constant_score_boolean" | "constant_score_filter" => {
                Rewrite::ConstantScore
            }
            "scoring_boolean" => Rewrite::ScoringBoolean,
            t => {
                if let Some(n) = t.strip_prefix("top_terms_blended_freqs_") {
                    Rewrite::TopTermsBlendedFreqs(top(n)?)
                } else if let Some(n) = t.strip_prefix("top_terms_boost_") {
                    Rewrite::TopTermsBoost(top(n)?)
                } else if let Some(n) = t.strip_prefix("top_terms_") {
                    Rewrite::TopTerms(top(n)?)
                } else {
                    return Err(bad());
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_every_rewrite_and_refuses_others() {
        let p = |v: Value| Rewrite::parse("regexp", Some(&v));
        assert_eq!(
            Rewrite::parse("regexp", None).unwrap(),
            Rewrite::ConstantScore
        );
        assert_eq!(
            p(json!("constant_score_boolean")).unwrap(),
            Rewrite::ConstantScore
        );
        assert_eq!(
            p(json!("scoring_boolean")).unwrap(),
            Rewrite::ScoringBoolean
        );
        assert_eq!(p(json!("top_terms_5")).unwrap(), Rewrite::TopTerms(5));
        assert_eq!(
            p(json!("top_terms_boost_2")).unwrap(),
            Rewrite::TopTermsBoost(2)
        );
        assert_eq!(
            p(json!("top_terms_blended_freqs_3")).unwrap(),
            Rewrite::TopTermsBlendedFreqs(3)
        );
        for bad in [
            json!("top_terms_"),
            json!("top_terms_0"),
            json!("fast"),
            json!(3),
        ] {
            let err = p(bad.clone()).unwrap_err();
            assert_eq!(err.status(), 400, "{bad}");
        }
    }
}
