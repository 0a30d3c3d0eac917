//! `filter_path`: keeps only the parts of a reply that match one of a
//! comma-separated list of dotted paths. `*` matches within one key and
//! `**` any number of levels; arrays are transparent (a path applies to
//! each element). Exclusions (`-path`) remove what they match, after the
//! inclusions are applied.

use serde_json::{Map, Value};
use strata_search::wildcard_match;

/// Applies `filter_path` to `value`. An expression without any usable
/// pattern leaves the value as it is; when nothing matches the result is
/// an empty object, as in Elasticsearch.
pub fn apply(expression: &str, value: Value) -> Value {
    let mut patterns: Vec<Vec<&str>> = Vec::new();
    let mut exclusions: Vec<Vec<&str>> = Vec::new();
    for p in expression
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match p.strip_prefix('-') {
            Some(excluded) if !excluded.is_empty() => {
                exclusions.push(excluded.split('.').collect())
            }
            Some(_) => {}
            None => patterns.push(p.split('.').collect()),
        }
    }
    let mut value = if patterns.is_empty() {
        value
    } else {
        let refs: Vec<&[&str]> = patterns.iter().map(Vec::as_slice).collect();
        filter(value, &refs).unwrap_or_else(|| Value::Object(Map::new()))
    };
    for excluded in &exclusions {
        exclude(&mut value, excluded);
    }
    value
}

/// Removes from `value` every member `pattern` matches.
fn exclude(value: &mut Value, pattern: &[&str]) {
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let next = descend(&[pattern], &key);
                if next.iter().any(|rest| rest.is_empty()) {
                    map.remove(&key);
                } else if let Some(child) = map.get_mut(&key) {
                    for rest in next {
                        exclude(child, rest);
                    }
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| exclude(item, pattern)),
        _ => {}
    }
}

fn filter(value: Value, patterns: &[&[&str]]) -> Option<Value> {
    if patterns.iter().any(|p| p.is_empty()) {
        return Some(value);
    }
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, child) in map {
                let next = descend(patterns, &key);
                if next.is_empty() {
                    continue;
                }
                if let Some(kept) = filter(child, &next) {
                    out.insert(key, kept);
                }
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        Value::Array(items) => {
            let kept: Vec<Value> = items
                .into_iter()
                .filter_map(|item| filter(item, patterns))
                .collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        _ => None,
    }
}

/// The patterns left for the children under `key`.
fn descend<'a>(patterns: &[&'a [&'a str]], key: &str) -> Vec<&'a [&'a str]> {
    let mut next = Vec::new();
    for pattern in patterns {
        let Some((first, rest)) = pattern.split_first() else {
            continue;
        };
        if *first == "**" {
            next.push(*pattern);
            if let Some((second, after)) = rest.split_first() {
                if wildcard_match(second, key) {
                    next.push(after);
                }
            } else {
                next.push(rest);
            }
        } else if wildcard_match(first, key) {
            next.push(rest);
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_matching_paths() {
        let v = json!({"took": 3, "hits": {"total": {"value": 2}, "hits": [
            {"_id": "a", "_source": {"x": 1}}, {"_id": "b", "_source": {"x": 2}}]}});
        assert_eq!(
            apply("hits.hits._id,took", v.clone()),
            json!({"took": 3, "hits": {"hits": [{"_id": "a"}, {"_id": "b"}]}})
        );
        assert_eq!(
            apply("hits.total.*", v.clone())["hits"]["total"]["value"],
            2
        );
        assert_eq!(apply("**._id", v.clone())["hits"]["hits"][1]["_id"], "b");
        assert_eq!(apply("nothing", v.clone()), json!({}));
        let mut without_took = v.clone();
        without_took.as_object_mut().unwrap().remove("took");
        assert_eq!(apply("-took", v.clone()), without_took);
        assert_eq!(
            apply("hits.hits.*,-hits.hits._source", v.clone()),
            json!({"hits": {"hits": [{"_id": "a"}, {"_id": "b"}]}})
        );
        assert_eq!(
            apply("-**.x", v.clone())["hits"]["hits"][0],
            json!({"_id": "a", "_source": {}})
        );
    }
}
