//! [`FieldSpec`]: a field name or pattern with its boost (`title^2`,
//! `message*`, `*.keyword`, `*`), as a query-text query names the fields
//! it searches. Resolving patterns against the mapping is
//! `text_syntax`'s business.

use serde_json::Value;

use crate::error::{Result, SearchError};

/// One field (or pattern) with its boost.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldSpec {
    /// The name or pattern.
    pub name: String,
    /// Its boost (1 when none).
    pub boost: f32,
}

impl FieldSpec {
    /// Parses `name` or `name^boost`.
    pub fn parse(text: &str) -> Result<FieldSpec> {
        match text.rsplit_once('^') {
            Some((name, boost)) => {
                let boost = boost
                    .parse::<f32>()
                    .ok()
                    .filter(|b| b.is_finite() && *b >= 0.0)
                    .ok_or_else(|| {
                        SearchError::parsing(format!("failed to parse field boost in [{text}]"))
                    })?;
                Ok(FieldSpec {
                    name: name.to_string(),
                    boost,
                })
            }
            None => Ok(FieldSpec {
                name: text.to_string(),
                boost: 1.0,
            }),
        }
    }

    /// Parses a `fields` parameter (an array of names, or one name).
    pub fn parse_list(kind: &str, value: &Value) -> Result<Vec<FieldSpec>> {
        let items: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            one @ Value::String(_) => vec![one],
            other => {
                return Err(SearchError::parsing(format!(
                    "[{kind}] query does not support [fields] with value [{other}]"
                )))
            }
        };
        items
            .into_iter()
            .map(|v| {
                v.as_str().map(FieldSpec::parse).unwrap_or_else(|| {
                    Err(SearchError::parsing(format!(
                        "[{kind}] [fields] must hold strings, found [{v}]"
                    )))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_boosts() {
        assert_eq!(
            FieldSpec::parse("title^2.5").unwrap(),
            FieldSpec {
                name: "title".into(),
                boost: 2.5
            }
        );
        assert_eq!(FieldSpec::parse("a.b").unwrap().boost, 1.0);
        assert!(FieldSpec::parse("title^x").is_err());
        assert!(FieldSpec::parse("title^-1").is_err());
        assert!(FieldSpec::parse_list("q", &serde_json::json!([1])).is_err());
    }
}
