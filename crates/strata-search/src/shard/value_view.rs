//! A borrowed tantivy [`Value`] over a document's parsed values, so that
//! `CompactDoc` copies them once, straight from the parse.
//!
//! The values of one JSON field of the schema (`f`, `k` or `txt`) are a
//! run of `(dotted path, value)` pairs sorted by path: the field's object
//! has one entry per path, its value alone or an array of the path's
//! values in order. Building that object as `OwnedValue`s first (a vector
//! per object and per array, a copy of every term string for `k`) cost a
//! second copy of each document; this view yields the same entries in the
//! same order, so the tantivy document is byte for byte the one the owned
//! object gave.

use tantivy::schema::document::{ReferenceValue, ReferenceValueLeaf, Value};

use crate::mapping::document::FieldValue;

/// Which values of a run an object or array shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Every value.
    All,
    /// Only values queried by their terms: strings and booleans
    /// ([`is_term`]).
    Terms,
}

impl Pick {
    fn takes(self, value: &FieldValue) -> bool {
        match self {
            Pick::All => true,
            Pick::Terms => is_term(value),
        }
    }
}

/// The values queried by their terms (in `k`): strings and booleans.
/// Numbers, dates and addresses are left to their columns.
pub(crate) fn is_term(value: &FieldValue) -> bool {
    matches!(value, FieldValue::Keyword(_) | FieldValue::Bool(_))
}

/// One node of the view.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ValueView<'a> {
    /// The object of a run sorted by path: one entry per path that has a
    /// picked value.
    Object(&'a [(String, FieldValue)], Pick),
    /// The picked values of one path's run (more than one).
    Array(&'a [(String, FieldValue)], Pick),
    /// One value.
    Leaf(&'a FieldValue),
}

impl<'a> ValueView<'a> {
    /// The object of `values` (sorted by path, stable within a path) that
    /// shows the values `pick` takes; `None` when it takes none.
    pub(crate) fn object(values: &'a [(String, FieldValue)], pick: Pick) -> Option<Self> {
        values
            .iter()
            .any(|(_, v)| pick.takes(v))
            .then_some(ValueView::Object(values, pick))
    }
}

impl<'a> Value<'a> for ValueView<'a> {
    type ArrayIter = Picked<'a>;
    type ObjectIter = Paths<'a>;

    fn as_value(&self) -> ReferenceValue<'a, Self> {
        match *self {
            ValueView::Object(values, pick) => ReferenceValue::Object(Paths { values, pick }),
            ValueView::Array(values, pick) => ReferenceValue::Array(Picked {
                values: values.iter(),
                pick,
            }),
            ValueView::Leaf(value) => ReferenceValue::Leaf(leaf(value)),
        }
    }
}

fn leaf(value: &FieldValue) -> ReferenceValueLeaf<'_> {
    match value {
        FieldValue::Text(s) | FieldValue::Keyword(s) | FieldValue::Ip(s) => {
            ReferenceValueLeaf::Str(s)
        }
        FieldValue::Long(n) | FieldValue::Date(n) => ReferenceValueLeaf::I64(*n),
        FieldValue::Double(f) => ReferenceValueLeaf::F64(*f),
        FieldValue::Bool(b) => ReferenceValueLeaf::Bool(*b),
    }
}

/// The picked values of one path, each a leaf.
pub(crate) struct Picked<'a> {
    values: std::slice::Iter<'a, (String, FieldValue)>,
    pick: Pick,
}

impl<'a> Iterator for Picked<'a> {
    type Item = ValueView<'a>;

    fn next(&mut self) -> Option<ValueView<'a>> {
        let pick = self.pick;
        self.values
            .by_ref()
            .find(|(_, v)| pick.takes(v))
            .map(|(_, v)| ValueView::Leaf(v))
    }
}

/// An object's entries: each path once, with its one picked value or an
/// array of them; a path with none is skipped.
pub(crate) struct Paths<'a> {
    values: &'a [(String, FieldValue)],
    pick: Pick,
}

impl<'a> Iterator for Paths<'a> {
    type Item = (&'a str, ValueView<'a>);

    fn next(&mut self) -> Option<(&'a str, ValueView<'a>)> {
        loop {
            let (path, _) = self.values.first()?;
            let len = self.values.partition_point(|(p, _)| p == path);
            // Sorted by path, so the run of `path` is the prefix; the
            // predicate holds on it and fails after it.
            let (run, rest) = self.values.split_at(len);
            self.values = rest;
            let mut picked = run.iter().filter(|(_, v)| self.pick.takes(v));
            let Some((_, first)) = picked.next() else {
                continue;
            };
            let view = if picked.next().is_none() {
                ValueView::Leaf(first)
            } else {
                ValueView::Array(run, self.pick)
            };
            return Some((path.as_str(), view));
        }
    }
}

#[cfg(test)]
#[path = "value_view_tests.rs"]
mod tests;
