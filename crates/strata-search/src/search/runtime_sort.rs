//! Sorting on a runtime field: the field's script runs for each document
//! offered to the ranking, and the document sorts by its smallest
//! emitted value ascending, its largest descending (Elasticsearch's
//! default sort modes); a document that emits nothing is missing. A
//! script failure or a value of the wrong type is kept and ends the
//! segment's ranking with that error.

use std::cell::RefCell;
use std::sync::Arc;

use tantivy::{DocId, SegmentReader, TantivyError};

use super::sort::SortValue;
use crate::mapping::Mappings;
use crate::script::doc_values::SegmentDocValues;
use crate::script::fields::{RuntimeType, ScriptedFields};
use crate::script::runtime_query::{emitted_keys, Key};
use crate::script::Compiled;

/// A sort criterion's runtime field.
#[derive(Debug, Clone)]
pub(crate) struct RuntimeSort {
    name: String,
    ty: RuntimeType,
    script: Compiled,
    mappings: Arc<Mappings>,
}

impl RuntimeSort {
    /// The runtime field `name` of `scripted` when `mappings` has no
    /// field of that name (a mapped field wins).
    pub fn of(
        name: &str,
        scripted: &ScriptedFields,
        mappings: &Arc<Mappings>,
    ) -> Option<RuntimeSort> {
        if mappings.leaf(name).is_some() {
            return None;
        }
        let (ty, script) = scripted.runtime_field(name)?;
        Some(RuntimeSort {
            name: name.to_string(),
            ty,
            script: script.clone(),
            mappings: Arc::clone(mappings),
        })
    }

    /// Whether the values are numbers (`search_after` and `missing`
    /// values are read as numbers).
    pub fn numeric(&self) -> bool {
        !matches!(self.ty, RuntimeType::Keyword | RuntimeType::Ip)
    }

    /// The reader of one segment.
    pub fn reader(&self, segment: &SegmentReader, descending: bool) -> RuntimeReader {
        RuntimeReader {
            sort: self.clone(),
            doc_values: SegmentDocValues::new(segment, Arc::clone(&self.mappings)),
            descending,
            keys: RefCell::new(Vec::new()),
            error: RefCell::new(None),
        }
    }
}

/// A runtime field's sort values in one segment.
pub struct RuntimeReader {
    sort: RuntimeSort,
    doc_values: SegmentDocValues,
    descending: bool,
    keys: RefCell<Vec<Key>>,
    error: RefCell<Option<TantivyError>>,
}

impl RuntimeReader {
    /// The sort value of `doc` (missing once an error was met).
    pub fn value(&self, doc: DocId) -> SortValue {
        if self.error.borrow().is_some() {
            return SortValue::Missing;
        }
        let mut keys = self.keys.borrow_mut();
        let s = &self.sort;
        if let Err(e) = emitted_keys(&s.name, s.ty, &s.script, &self.doc_values, doc, &mut keys) {
            *self.error.borrow_mut() = Some(e);
            return SortValue::Missing;
        }
        let best = keys.iter().reduce(|a, b| {
            let b_better = if self.descending { b > a } else { b < a };
            if b_better {
                b
            } else {
                a
            }
        });
        match best {
            None => SortValue::Missing,
            Some(Key::Text(t)) if s.ty == RuntimeType::Ip => SortValue::ip(t.clone()),
            Some(Key::Text(t)) => SortValue::Str(t.clone()),
            Some(Key::Bool(b)) => SortValue::Int(i64::from(*b)),
            Some(Key::Number(n)) if s.ty == RuntimeType::Double => SortValue::Float(*n),
            Some(Key::Number(n)) => SortValue::Int(*n as i64),
        }
    }

    /// The first error met, taken.
    pub fn take_error(&self) -> Option<TantivyError> {
        self.error.borrow_mut().take()
    }
}
