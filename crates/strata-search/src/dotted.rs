//! Elasticsearch's two spellings of settings: nested objects
//! (`{"index": {"refresh_interval": "1s"}}`) and dotted keys
//! (`{"index.refresh_interval": "1s"}`), which may be mixed. [`flatten`]
//! turns either into dotted pairs, [`nest`] turns dotted pairs back into
//! objects.

use serde_json::{Map, Value};

/// The leaves of `value` as `(dotted path, value)`, in the object's order.
/// A value that is not an object has no path, so it yields nothing; callers
/// that require an object check that first.
pub fn flatten(value: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    if let Value::Object(map) = value {
        for (k, v) in map {
            flatten_into(k, v, &mut out);
        }
    }
    out
}

fn flatten_into(prefix: &str, value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                flatten_into(&format!("{prefix}.{k}"), v, out);
            }
        }
        other => out.push((prefix.to_string(), other.clone())),
    }
}

/// Dotted pairs as nested objects (`a.b` and `a.c` share `a`); a later key
/// whose path crosses an earlier leaf replaces it.
pub fn nest<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
    let mut root = Map::new();
    for (key, value) in pairs {
        let parts: Vec<&str> = key.split('.').collect();
        insert_path(&mut root, &parts, value);
    }
    Value::Object(root)
}

fn insert_path(map: &mut Map<String, Value>, parts: &[&str], value: Value) {
    match parts {
        [] => {}
        [last] => {
            map.insert(last.to_string(), value);
        }
        [first, rest @ ..] => {
            let entry = map
                .entry(first.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            if let Value::Object(inner) = entry {
                insert_path(inner, rest, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_spellings_round_trip() {
        let body = json!({"index": {"a": 1, "b.c": "x"}, "index.d": true, "top": null});
        let flat = flatten(&body);
        let keys: Vec<&str> = flat.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["index.a", "index.b.c", "index.d", "top"]);
        assert_eq!(
            nest(flat.iter().map(|(k, v)| (k.as_str(), v.clone()))),
            json!({"index": {"a": 1, "b": {"c": "x"}, "d": true}, "top": null})
        );
        assert!(flatten(&json!("scalar")).is_empty());
    }
}
