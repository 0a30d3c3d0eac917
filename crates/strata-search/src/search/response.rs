//! [`SearchResponse`]: a search's reply body with its hits already
//! serialized.
//!
//! Each hit is rendered to JSON text by the fetch phase (in parallel on
//! the search pool), with `_source` copied byte for byte from the stored
//! document, as Elasticsearch returns it. Building every hit as a
//! [`Value`] instead parsed and re-serialized every source: most of the
//! cost of a 500-hit page, and the keys came out sorted.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A search reply. Invariant: `body["hits"]["hits"]`, when present, is an
/// empty array that stands for `hits`.
#[derive(Debug, Clone)]
pub struct SearchResponse {
    /// Everything but the hits (`took`, `_shards`, `hits.total`,
    /// `aggregations`, ...), free to change in place.
    pub body: Value,
    /// The hits of the page, in order, each one JSON object.
    pub hits: Vec<Box<RawValue>>,
    /// How long the fetch phase (loading and serializing `hits`) took;
    /// the rest of the search was its query phase.
    pub fetch_took: std::time::Duration,
}

impl SearchResponse {
    /// The reply as one [`Value`] (the hits parsed back).
    pub fn into_value(self) -> Value {
        if self.hits.is_empty() {
            return self.body;
        }
        // Serializing into a `Value` cannot fail: every hit is valid JSON.
        serde_json::to_value(&self).unwrap_or(self.body)
    }
}

/// A score as JSON the way a hit's `_score` is written: the shortest
/// decimal of the `f32` (`0.16786811`, not `0.16786810755729675`), `null`
/// when not finite. `max_score` must read the same as the best hit.
pub(crate) fn score_json(score: f32) -> Value {
    if !score.is_finite() {
        return Value::Null;
    }
    score
        .to_string()
        .parse::<f64>()
        .map_or(Value::Null, Value::from)
}

impl Serialize for SearchResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(body) = &self.body else {
            return self.body.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(body.len()))?;
        for (key, value) in body {
            match (key.as_str(), value) {
                ("hits", Value::Object(section)) => map.serialize_entry(
                    key,
                    &HitsSection {
                        section,
                        hits: &self.hits,
                    },
                )?,
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

/// The `hits` object with the serialized hits in place of its array.
struct HitsSection<'a> {
    section: &'a Map<String, Value>,
    hits: &'a [Box<RawValue>],
}

impl Serialize for HitsSection<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.section.len()))?;
        for (key, value) in self.section {
            if key == "hits" {
                map.serialize_entry(key, self.hits)?;
            } else {
                map.serialize_entry(key, value)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn hits_are_spliced_verbatim_and_parse_back() {
        let response = SearchResponse {
            body: json!({"took": 3, "hits": {"total": {"value": 2}, "hits": []}}),
            hits: vec![
                raw(r#"{"_id":"1","_source":{"z":1, "a":2}}"#),
                raw(r#"{"_id":"2"}"#),
            ],
            fetch_took: std::time::Duration::ZERO,
        };
        let text = serde_json::to_string(&response).unwrap();
        assert!(text.contains(r#"[{"_id":"1","_source":{"z":1, "a":2}},{"_id":"2"}]"#));
        let value = response.into_value();
        assert_eq!(value["hits"]["hits"][0]["_source"]["z"], 1);
        assert_eq!(value["hits"]["hits"][1]["_id"], "2");
        assert_eq!(value["hits"]["total"]["value"], 2);
        assert_eq!(value["took"], 3);
    }

    #[test]
    fn scores_read_as_their_f32() {
        assert_eq!(score_json(0.167_868_11).to_string(), "0.16786811");
        assert_eq!(
            score_json(0.167_868_11),
            serde_json::from_str::<Value>(&serde_json::to_string(&0.167_868_11f32).unwrap())
                .unwrap()
        );
        assert_eq!(score_json(1.0).to_string(), "1.0");
        assert_eq!(score_json(f32::NAN), Value::Null);
    }

    #[test]
    fn a_body_without_hits_is_unchanged() {
        let body = json!({"took": 1, "aggregations": {"a": {"value": 1.0}}});
        let response = SearchResponse {
            body: body.clone(),
            hits: Vec::new(),
            fetch_took: std::time::Duration::ZERO,
        };
        assert_eq!(serde_json::to_value(&response).unwrap(), body);
        assert_eq!(response.into_value(), body);
    }
}
