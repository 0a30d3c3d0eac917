//! `type: nested` objects. Each object of a nested array is indexed as a
//! hidden document of its own (`shard/document.rs`), so that a `nested`
//! query matches a parent only when one object satisfies all its clauses.
//! The mapping keeps the nested objects' paths beside the property tree
//! (a nested object is an object there, with sub-properties as usual);
//! `Mappings` answers for them (`add_nested`, `nested_scope_of`).
//!
//! A leaf of `mapping`: the options of one nested object, naming no
//! `Mappings`, so the mapping and its property tree both use it.

use serde_json::{json, Map, Value};

use crate::error::{Result, SearchError};

/// A nested object's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NestedObject {
    /// `include_in_parent`: its values are also indexed in the parent.
    pub include_in_parent: bool,
    /// `include_in_root`: its values are also indexed in the root document.
    pub include_in_root: bool,
}

impl NestedObject {
    /// The parameters a nested mapping takes besides an object's.
    pub const PARAMS: &'static [&'static str] = &["include_in_parent", "include_in_root"];

    /// Parses the options of the nested mapping at `path`.
    pub fn parse(path: &str, body: &Map<String, Value>) -> Result<NestedObject> {
        let flag = |name: &str| -> Result<bool> {
            match body.get(name) {
                None => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
                Some(other) => Err(SearchError::MapperParsing(format!(
                    "Failed to parse value [{other}] as only [true] or [false] are allowed. \
                     (field [{path}], parameter [{name}])"
                ))),
            }
        };
        Ok(NestedObject {
            include_in_parent: flag("include_in_parent")?,
            include_in_root: flag("include_in_root")?,
        })
    }

    /// The mapping JSON without `properties`.
    pub fn to_json(self) -> Value {
        let mut out = json!({"type": "nested"});
        if self.include_in_parent {
            out["include_in_parent"] = json!(true);
        }
        if self.include_in_root {
            out["include_in_root"] = json!(true);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::{FieldType, Mappings};

    #[test]
    fn nested_objects_parse_nest_and_round_trip() {
        let body = json!({"properties": {
            "user": {"type": "nested", "include_in_parent": true, "properties": {
                "first": {"type": "keyword"},
                "pets": {"type": "nested", "properties": {"name": {"type": "keyword"}}}
            }},
            "plain": {"properties": {"x": {"type": "long"}}}
        }});
        let m = Mappings::parse(&body).unwrap();
        assert!(m.has_nested());
        assert_eq!(m.nested_paths().collect::<Vec<_>>(), ["user", "user.pets"]);
        assert!(m.nested_object("user").unwrap().include_in_parent);
        assert_eq!(m.leaf("user.pets.name").unwrap().ty, FieldType::Keyword);
        assert_eq!(
            m.nested_scope_of("user.pets.name", false),
            Some("user.pets")
        );
        assert_eq!(m.nested_scope_of("user.pets", false), Some("user"));
        assert_eq!(m.nested_scope_of("user.pets", true), Some("user.pets"));
        assert_eq!(m.nested_scope_of("plain.x", true), None);
        let back = m.to_json();
        assert_eq!(back["properties"]["user"]["type"], "nested");
        assert_eq!(back["properties"]["user"]["include_in_parent"], true);
        assert_eq!(
            back["properties"]["user"]["properties"]["pets"]["type"],
            "nested"
        );
        assert!(back["properties"]["plain"].get("type").is_none());
        let again = Mappings::parse(&back).unwrap();
        assert_eq!(again.to_json(), back);
    }

    #[test]
    fn object_and_nested_do_not_change_into_each_other() {
        let mut m = Mappings::parse(&json!({"properties": {
            "o": {"properties": {"x": {"type": "long"}}},
            "leaf": {"type": "keyword"}
        }}))
        .unwrap();
        let e = m
            .merge_json(&json!({"properties": {"o": {"type": "nested"}}}))
            .unwrap_err();
        assert!(e.to_string().contains("non-nested"), "{e}");
        assert!(m
            .merge_json(&json!({"properties": {"leaf": {"type": "nested"}}}))
            .is_err());
        assert!(
            Mappings::parse(&json!({"properties": {"n": {"type": "nested", "bogus": 1}}})).is_err()
        );
        // An empty nested object is kept.
        m.merge_json(&json!({"properties": {"e": {"type": "nested"}}}))
            .unwrap();
        assert!(m.nested_object("e").is_some());
        assert_eq!(m.to_json()["properties"]["e"], json!({"type": "nested"}));
    }
}
