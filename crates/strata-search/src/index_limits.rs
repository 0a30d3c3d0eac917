//! Elasticsearch's per-index limits, settable (and updatable) as index
//! settings, each with Elasticsearch's default and error text:
//!
//! | setting | default | bounds |
//! |---|---|---|
//! | `index.max_terms_count` | 65,536 | values of one `terms` query |
//! | `index.max_result_window` | 10,000 | `from + size` of a search |
//! | `index.max_docvalue_fields_search` | 100 | `docvalue_fields` of a search |
//! | `index.max_slices_per_scroll` | 1,024 | `slice.max` of a scroll |
//! | `index.mapping.total_fields.limit` | 1,000 | fields and objects of the mapping |
//! | `index.mapping.depth.limit` | 20 | nesting of objects |
//! | `index.mapping.field_name_length.limit` | none | a field's own name |
//! | `index.mapping.nested_fields.limit` | 50 | nested objects of the mapping |
//! | `index.mapping.nested_objects.limit` | 10,000 | nested objects of one document |
//!
//! Mapping limits are checked when a mapping grows (dynamic fields, `PUT
//! _mapping`, index creation), never when a translog is replayed: what
//! was accepted once opens again.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::mapping::Mappings;

/// `index.max_terms_count`.
pub const MAX_TERMS_COUNT: &str = "max_terms_count";
/// `index.max_result_window`.
pub const MAX_RESULT_WINDOW: &str = "max_result_window";
/// `index.max_docvalue_fields_search`.
pub const MAX_DOCVALUE_FIELDS: &str = "max_docvalue_fields_search";
/// `index.max_slices_per_scroll`.
pub const MAX_SLICES_PER_SCROLL: &str = "max_slices_per_scroll";
/// `index.mapping.total_fields.limit`.
pub const TOTAL_FIELDS: &str = "mapping.total_fields.limit";
/// `index.mapping.depth.limit`.
pub const DEPTH: &str = "mapping.depth.limit";
/// `index.mapping.field_name_length.limit`.
pub const FIELD_NAME_LENGTH: &str = "mapping.field_name_length.limit";

/// `index.mapping.nested_fields.limit`.
pub const NESTED_FIELDS: &str = "mapping.nested_fields.limit";
/// `index.mapping.nested_objects.limit`.
pub const NESTED_OBJECTS: &str = "mapping.nested_objects.limit";

/// Each limit (without `index.`): its default and smallest value.
const LIMITS: [(&str, u64, u64); 9] = [
    (NESTED_FIELDS, 50, 0),
    (NESTED_OBJECTS, 10_000, 0),
    (MAX_TERMS_COUNT, 65_536, 1),
    (MAX_RESULT_WINDOW, 10_000, 1),
    (MAX_DOCVALUE_FIELDS, 100, 0),
    (MAX_SLICES_PER_SCROLL, 1_024, 1),
    (TOTAL_FIELDS, 1_000, 0),
    (DEPTH, 20, 1),
    // Elasticsearch's default is Long.MAX_VALUE: no limit.
    (FIELD_NAME_LENGTH, i64::MAX as u64, 1),
];

/// The limits set on an index (the others have their defaults).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct IndexLimits {
    set: BTreeMap<&'static str, u64>,
}

impl IndexLimits {
    /// Whether `key` (without `index.`) is one of these limits.
    pub(crate) fn knows(key: &str) -> bool {
        LIMITS.iter().any(|(name, ..)| *name == key)
    }

    /// Sets `key` (without `index.`) from a settings value; `null` resets
    /// it to its default.
    pub(crate) fn set(&mut self, key: &str, value: &Value) -> Result<()> {
        let Some(&(name, _, min)) = LIMITS.iter().find(|(name, ..)| *name == key) else {
            return Err(SearchError::illegal(format!(
                "unknown setting [index.{key}]"
            )));
        };
        if value.is_null() {
            self.set.remove(name);
            return Ok(());
        }
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let n: i64 = text.trim().parse().map_err(|_| {
            SearchError::illegal(format!(
                "Failed to parse value [{text}] for setting [index.{name}]"
            ))
        })?;
        if n < min as i64 {
            return Err(SearchError::illegal(format!(
                "Failed to parse value [{text}] for setting [index.{name}] must be >= {min}"
            )));
        }
        self.set.insert(name, n as u64);
        Ok(())
    }

    /// The limits set explicitly, as `(key without index., value)`, for
    /// `GET _settings` (defaults are not shown, as in Elasticsearch).
    pub(crate) fn explicit(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.set.iter().map(|(k, v)| (*k, *v))
    }

    fn get(&self, key: &str) -> u64 {
        self.set.get(key).copied().unwrap_or_else(|| {
            LIMITS
                .iter()
                .find(|(name, ..)| *name == key)
                .map_or(u64::MAX, |(_, default, _)| *default)
        })
    }

    /// `index.max_terms_count`.
    pub(crate) fn max_terms_count(&self) -> usize {
        usize::try_from(self.get(MAX_TERMS_COUNT)).unwrap_or(usize::MAX)
    }

    /// `index.max_result_window`.
    pub(crate) fn max_result_window(&self) -> usize {
        usize::try_from(self.get(MAX_RESULT_WINDOW)).unwrap_or(usize::MAX)
    }

    /// `index.max_slices_per_scroll`.
    pub(crate) fn max_slices_per_scroll(&self) -> u64 {
        self.get(MAX_SLICES_PER_SCROLL)
    }

    /// Refuses a search whose `from + size` passes `index.max_result_window`.
    pub(crate) fn check_result_window(&self, window: usize) -> Result<()> {
        let max = self.max_result_window();
        if window > max {
            return Err(SearchError::illegal(format!(
                "Result window is too large, from + size must be less than or equal to: [{max}] but was [{window}]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.{MAX_RESULT_WINDOW}] index level setting."
            )));
        }
        Ok(())
    }

    /// Refuses a `terms` query of more than `index.max_terms_count` values.
    pub(crate) fn check_terms_count(&self, count: usize) -> Result<()> {
        let max = self.max_terms_count();
        if count > max {
            return Err(SearchError::illegal(format!(
                "The number of terms [{count}] used in the Terms Query request has exceeded the allowed maximum of [{max}]. This maximum can be set by changing the [index.{MAX_TERMS_COUNT}] index level setting."
            )));
        }
        Ok(())
    }

    /// Refuses more `docvalue_fields` than `index.max_docvalue_fields_search`.
    pub(crate) fn check_docvalue_fields(&self, count: usize) -> Result<()> {
        let max = self.get(MAX_DOCVALUE_FIELDS);
        if count as u64 > max {
            return Err(SearchError::illegal(format!(
                "Trying to retrieve too many docvalue_fields. Must be less than or equal to: [{max}] but was [{count}]. This limit can be set by changing the [index.{MAX_DOCVALUE_FIELDS}] index level setting."
            )));
        }
        Ok(())
    }

    /// Refuses a document with more nested objects than
    /// `index.mapping.nested_objects.limit`.
    pub(crate) fn check_nested_objects(&self, count: usize) -> Result<()> {
        let max = self.get(NESTED_OBJECTS);
        if count as u64 > max {
            return Err(SearchError::DocumentParsing(format!(
                "The number of nested documents has exceeded the allowed limit of [{max}]. This limit can be set by changing the [index.{NESTED_OBJECTS}] index level setting."
            )));
        }
        Ok(())
    }

    /// Checks a mapping that grew by `added` fields against the mapping
    /// limits (`illegal_argument_exception`s, as a `PUT _mapping` gets
    /// them; a document's dynamic fields wrap them in a
    /// `document_parsing_exception`).
    pub(crate) fn check_mapping(&self, mappings: &Mappings, added: usize) -> Result<()> {
        let shape = mappings.shape();
        let total = self.get(TOTAL_FIELDS);
        if shape.fields > total {
            let adding = if added > 0 {
                format!(" while adding new fields [{added}]")
            } else {
                String::new()
            };
            return Err(SearchError::illegal(format!(
                "Limit of total fields [{total}] has been exceeded{adding}"
            )));
        }
        let depth = self.get(DEPTH);
        if let Some(object) = shape.deepest_object_beyond(depth) {
            return Err(SearchError::illegal(format!(
                "Limit of mapping depth [{depth}] has been exceeded due to object field [{object}]"
            )));
        }
        let nested = self.get(NESTED_FIELDS);
        if mappings.nested_paths().count() as u64 > nested {
            return Err(SearchError::illegal(format!(
                "Limit of nested fields [{nested}] has been exceeded"
            )));
        }
        let length = self.get(FIELD_NAME_LENGTH);
        if shape.longest_name.chars().count() as u64 > length {
            return Err(SearchError::illegal(format!(
                "Field name [{}] is longer than the limit of [{length}] characters",
                shape.longest_name
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn defaults_settings_and_bounds() {
        let mut l = IndexLimits::default();
        assert_eq!(
            (l.max_terms_count(), l.max_result_window()),
            (65_536, 10_000)
        );
        l.set(MAX_RESULT_WINDOW, &json!("20000")).unwrap();
        assert_eq!(l.max_result_window(), 20_000);
        assert!(l.check_result_window(20_000).is_ok());
        let e = l.check_result_window(20_001).unwrap_err();
        assert!(e.to_string().contains("[index.max_result_window]"), "{e}");
        assert!(l.set(MAX_TERMS_COUNT, &json!(0)).is_err());
        assert!(l.set(DEPTH, &json!("deep")).is_err());
        l.set(MAX_RESULT_WINDOW, &Value::Null).unwrap();
        assert_eq!(l.explicit().count(), 0);
        let e = l.check_terms_count(65_537).unwrap_err();
        assert_eq!(
            e.to_string(),
            "The number of terms [65537] used in the Terms Query request has exceeded the allowed maximum of [65536]. This maximum can be set by changing the [index.max_terms_count] index level setting."
        );
        assert!(l.check_docvalue_fields(101).is_err());
    }

    #[test]
    fn mapping_limits_count_fields_objects_and_depth() {
        let mut l = IndexLimits::default();
        // a (object), a.b (text), a.b.raw (multi-field), c (long): 4.
        let m = Mappings::parse(&json!({"properties": {
            "a": {"properties": {"b": {"type": "text", "fields": {"raw": {"type": "keyword"}}}}},
            "c": {"type": "long"}
        }}))
        .unwrap();
        l.set(TOTAL_FIELDS, &json!(4)).unwrap();
        l.check_mapping(&m, 0).unwrap();
        l.set(TOTAL_FIELDS, &json!(3)).unwrap();
        assert_eq!(
            l.check_mapping(&m, 2).unwrap_err().to_string(),
            "Limit of total fields [3] has been exceeded while adding new fields [2]"
        );
        l.set(TOTAL_FIELDS, &Value::Null).unwrap();
        // Object "a" has depth 2 (the root is 1).
        l.set(DEPTH, &json!(1)).unwrap();
        assert_eq!(
            l.check_mapping(&m, 0).unwrap_err().to_string(),
            "Limit of mapping depth [1] has been exceeded due to object field [a]"
        );
        l.set(DEPTH, &json!(2)).unwrap();
        l.check_mapping(&m, 0).unwrap();
        l.set(FIELD_NAME_LENGTH, &json!(2)).unwrap();
        assert_eq!(
            l.check_mapping(&m, 0).unwrap_err().to_string(),
            "Field name [raw] is longer than the limit of [2] characters"
        );
    }
}
