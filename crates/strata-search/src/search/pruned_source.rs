//! Parses only the parts of a stored `_source` that some dotted paths
//! reach, skipping the rest without building it: `docvalue_fields` needs
//! one or two values of a hit whose source is otherwise copied verbatim.
//!
//! A key is kept whole when its dotted path (from the root, through
//! objects and arrays) equals a requested path, descended into when it is
//! a proper prefix of one (`a` for `a.b`, also dotted keys such as `a.b`
//! for `a.b.c`), and skipped otherwise. So
//! [`super::docvalues::source_values`] finds in the pruned value exactly
//! what it finds in the whole source.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The parts of `source` on the way to `paths`; `Value::Null` when the
/// bytes are not JSON.
pub(crate) fn parse(source: &[u8], paths: &[&str]) -> Value {
    let mut de = serde_json::Deserializer::from_slice(source);
    Pruned { prefix: "", paths }
        .deserialize(&mut de)
        .unwrap_or(Value::Null)
}

/// Deserializes the value found at `prefix` (a dotted path, empty at the root).
struct Pruned<'p> {
    prefix: &'p str,
    paths: &'p [&'p str],
}

/// What to do with the value at a dotted path.
enum Keep {
    Whole,
    Descend,
    Skip,
}

impl Pruned<'_> {
    fn keep(&self, path: &str) -> Keep {
        let mut keep = Keep::Skip;
        for p in self.paths {
            if *p == path {
                return Keep::Whole;
            }
            if p.len() > path.len() && p.starts_with(path) && p.as_bytes()[path.len()] == b'.' {
                keep = Keep::Descend;
            }
        }
        keep
    }
}

impl<'de> DeserializeSeed<'de> for Pruned<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Pruned<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut path = String::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            path.clear();
            if !self.prefix.is_empty() {
                path.push_str(self.prefix);
                path.push('.');
            }
            path.push_str(&key);
            match self.keep(&path) {
                Keep::Whole => {
                    out.insert(key.into_owned(), map.next_value::<Value>()?);
                }
                Keep::Descend => {
                    let inner = map.next_value_seed(Pruned {
                        prefix: &path,
                        paths: self.paths,
                    })?;
                    out.insert(key.into_owned(), inner);
                }
                Keep::Skip => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        // Arrays do not add to the path: `source_values` flattens them.
        let mut out = Vec::new();
        while let Some(item) = seq.next_element_seed(Pruned {
            prefix: self.prefix,
            paths: self.paths,
        })? {
            out.push(item);
        }
        Ok(Value::Array(out))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::docvalues::source_values;
    use serde_json::json;

    fn found<'a>(source: &'a Value, path: &str) -> Vec<&'a Value> {
        let mut out = Vec::new();
        source_values(source, path, &mut out);
        out
    }

    #[test]
    fn keeps_only_what_the_paths_reach() {
        let source = json!({
            "@timestamp": "2026-01-01T00:00:00Z",
            "big": {"x": [1, 2, 3], "y": "text"},
            "a": {"b": {"c": 1, "d": 2}, "e": 3},
            "a.b": {"c": 4},
            "list": [{"n": 1, "m": 9}, {"n": [2, 3]}],
            "esc\"aped": 1
        });
        let bytes = serde_json::to_vec(&source).unwrap();
        let paths = ["@timestamp", "a.b.c", "list.n", "missing.path"];
        let pruned = parse(&bytes, &paths);
        assert_eq!(
            pruned,
            json!({
                "@timestamp": "2026-01-01T00:00:00Z",
                "a": {"b": {"c": 1}},
                "a.b": {"c": 4},
                "list": [{"n": 1}, {"n": [2, 3]}]
            })
        );
        for path in paths {
            assert_eq!(found(&pruned, path), found(&source, path), "{path}");
        }
    }

    #[test]
    fn a_requested_object_is_kept_whole_and_bad_bytes_give_null() {
        let bytes = br#"{"a": {"b": {"c": 1}}, "z": 0}"#;
        assert_eq!(parse(bytes, &["a.b"]), json!({"a": {"b": {"c": 1}}}));
        assert_eq!(parse(bytes, &["a", "a.b"]), json!({"a": {"b": {"c": 1}}}));
        assert_eq!(parse(b"{\"a\": ", &["a"]), Value::Null);
        assert_eq!(parse(bytes, &[]), json!({}));
    }
}
