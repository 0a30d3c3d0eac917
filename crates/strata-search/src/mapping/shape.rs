//! [`MappingShape`]: what the mapping limits (`index.mapping.*.limit`)
//! count over the property tree: fields and objects, the deepest object,
//! the longest name.
//!
//! A leaf of `mapping`: it walks the tree of `property` and names no
//! `Mappings`.

use std::collections::BTreeMap;

use super::property::Property;

/// What [`Mappings::shape`](super::Mappings::shape) counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MappingShape {
    /// Fields, multi-fields and objects (Elasticsearch's total fields).
    pub fields: u64,
    /// The path of an object nested deepest, if any.
    pub deepest_object: Option<String>,
    /// The longest field or object name (one level, not a path).
    pub longest_name: String,
}

impl MappingShape {
    fn note_name(&mut self, name: &str) {
        if name.chars().count() > self.longest_name.chars().count() {
            self.longest_name = name.to_string();
        }
    }

    /// The shallowest object whose depth passes `limit`, if any (the
    /// root is depth 1, an object `a.b` depth 3, as Elasticsearch counts).
    pub(crate) fn deepest_object_beyond(&self, limit: u64) -> Option<String> {
        let path = self.deepest_object.as_deref()?;
        let depth = path.matches('.').count() as u64 + 2;
        if depth <= limit {
            return None;
        }
        let keep = usize::try_from(limit.max(1)).unwrap_or(usize::MAX);
        Some(path.split('.').take(keep).collect::<Vec<_>>().join("."))
    }
}

/// The counts the mapping limits check over `properties`: fields and
/// objects, the deepest object, the longest field name. One walk, no
/// recursion.
pub(super) fn shape_of(properties: &BTreeMap<String, Property>) -> MappingShape {
    let mut shape = MappingShape::default();
    let mut deepest_dots = None;
    let mut stack: Vec<(String, &BTreeMap<String, Property>)> = vec![(String::new(), properties)];
    while let Some((prefix, props)) = stack.pop() {
        for (name, prop) in props {
            shape.note_name(name);
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            shape.fields += 1;
            match prop {
                Property::Field(leaf) => {
                    for sub in leaf.fields.keys() {
                        shape.note_name(sub);
                        shape.fields += 1;
                    }
                }
                Property::Object(children) => {
                    let dots = path.matches('.').count();
                    if deepest_dots.is_none_or(|d| dots > d) {
                        deepest_dots = Some(dots);
                        shape.deepest_object = Some(path.clone());
                    }
                    stack.push((path, children));
                }
            }
        }
    }
    shape
}
