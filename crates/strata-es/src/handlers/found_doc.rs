//! [`FoundDoc`]: a document as `GET /<index>/_doc/<id>` and `_mget` return
//! it, its `_source` copied byte for byte from the stored document when it
//! is returned whole (see `SourceFilter::render`).

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::{to_raw_value, RawValue};
use serde_json::Value;
use strata_search::SourceFilter;

/// A found document. Invariant: `head` is an object without `_source`.
#[derive(Debug)]
pub struct FoundDoc {
    /// `_index`, `_id`, `_version`, `_seq_no`, `_primary_term`, `found`.
    pub head: Value,
    /// The returned source, serialized; `None` when filtered out.
    pub source: Option<Box<RawValue>>,
}

impl FoundDoc {
    /// `head` with the source of `stored` (JSON bytes) as `filter` returns it.
    pub fn new(head: Value, stored: &[u8], filter: &SourceFilter) -> FoundDoc {
        let source = filter
            .render(stored)
            .and_then(|returned| to_raw_value(&returned).ok());
        FoundDoc { head, source }
    }
}

impl Serialize for FoundDoc {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Value::Object(head) = &self.head else {
            return self.head.serialize(serializer);
        };
        let mut map = serializer.serialize_map(Some(head.len() + 1))?;
        for (key, value) in head {
            map.serialize_entry(key, value)?;
        }
        if let Some(source) = &self.source {
            map.serialize_entry("_source", source)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_sources_are_verbatim_and_filters_apply() {
        let stored = br#"{"z": 1,"a":{"b":2}}"#;
        let head = json!({"_id": "1", "found": true});
        let whole = FoundDoc::new(head.clone(), stored, &SourceFilter::All);
        assert_eq!(
            serde_json::to_string(&whole).unwrap(),
            r#"{"_id":"1","found":true,"_source":{"z": 1,"a":{"b":2}}}"#
        );
        let filter = SourceFilter::parse(&json!(["a.*"])).unwrap();
        let some = FoundDoc::new(head.clone(), stored, &filter);
        assert_eq!(
            serde_json::to_value(&some).unwrap(),
            json!({"_id": "1", "found": true, "_source": {"a": {"b": 2}}})
        );
        let none = FoundDoc::new(head.clone(), stored, &SourceFilter::None);
        assert_eq!(serde_json::to_value(&none).unwrap(), head);
    }
}
