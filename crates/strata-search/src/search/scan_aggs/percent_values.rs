//! The `values` of a `percentiles` or `percentile_ranks` reply computed
//! here, as Elasticsearch 8 writes them: keyed by the percent (or value)
//! as Java prints a double (`"50.0": v`), or a list of `{key, value}`; a
//! value is `null` when no document had one; each non-null value of a
//! date field also written as a date (`"50.0_as_string"`,
//! `value_as_string`).

use serde_json::{json, Map, Value};

use crate::search::java_double::java_double;

/// `{"values": ...}` for `keys` and their `values` (in the same order),
/// each value also written by `text` when given.
pub(super) fn render(
    keys: &[f64],
    values: &[Option<f64>],
    keyed: bool,
    text: Option<&dyn Fn(f64) -> String>,
) -> Value {
    let entries = keys.iter().zip(values).map(|(&key, &value)| {
        let written = value.and_then(|v| text.map(|t| t(v)));
        (key, value.map_or(Value::Null, |v| json!(v)), written)
    });
    let values = if keyed {
        let mut out = Map::new();
        for (key, value, written) in entries {
            let key = java_double(key);
            if let Some(written) = written {
                out.insert(format!("{key}_as_string"), json!(written));
            }
            out.insert(key, value);
        }
        Value::Object(out)
    } else {
        entries
            .map(|(key, value, written)| {
                let mut entry = Map::new();
                entry.insert("key".into(), json!(key));
                entry.insert("value".into(), value);
                if let Some(written) = written {
                    entry.insert("value_as_string".into(), json!(written));
                }
                Value::Object(entry)
            })
            .collect()
    };
    json!({ "values": values })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyed_unkeyed_null_and_written_values() {
        let text = |v: f64| format!("<{v}>");
        let out = render(&[50.0, 99.5], &[Some(2.0), None], true, Some(&text));
        assert_eq!(
            out,
            json!({"values": {"50.0": 2.0, "50.0_as_string": "<2>", "99.5": null}})
        );
        let keys: Vec<_> = out["values"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["50.0", "50.0_as_string", "99.5"]);
        let out = render(&[1.0e7], &[Some(3.0)], false, Some(&text));
        assert_eq!(
            out,
            json!({"values": [{"key": 1.0e7, "value": 3.0, "value_as_string": "<3>"}]})
        );
        let out = render(&[1.0e7], &[Some(3.0)], true, None);
        assert_eq!(out, json!({"values": {"1.0E7": 3.0}}));
    }
}
