//! Field names, patterns and boosts (`title^2`, `message*`, `*.keyword`,
//! `*`) resolved against the mapping into the concrete fields a clause
//! searches.
//!
//! A pattern keeps the fields whose type can answer a text query (text,
//! keyword, numbers, dates, booleans, ip), as Elasticsearch's
//! `index.query.default_field: *` does; `geo_point` is never included. A
//! plain name is kept as written, mapped or not (an unmapped field
//! matches nothing).

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::mapping::FieldType;
use crate::query::context::QueryContext;

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

/// True for the types a text query can search.
pub(crate) fn eligible(ty: FieldType) -> bool {
    ty != FieldType::GeoPoint
}

/// The concrete fields of `specs`: patterns expanded (each field once, with
/// the highest boost that names it), plain names kept.
pub(crate) fn resolve_fields(ctx: &QueryContext<'_>, specs: &[FieldSpec]) -> Vec<FieldSpec> {
    let mut out: Vec<FieldSpec> = Vec::new();
    let mut add = |name: &str, boost: f32| match out.iter_mut().find(|s| s.name == name) {
        Some(existing) => existing.boost = existing.boost.max(boost),
        None => out.push(FieldSpec {
            name: name.to_string(),
            boost,
        }),
    };
    for spec in specs {
        if spec.name.contains('*') {
            for (path, leaf) in ctx.mappings.leaf_paths() {
                if eligible(leaf.ty) && crate::catalog::wildcard_match(&spec.name, path) {
                    add(path, spec.boost);
                }
            }
        } else {
            add(&spec.name, spec.boost);
        }
    }
    out
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
