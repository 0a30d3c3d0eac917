//! The documents a search (or one of its passes) runs on: the root
//! documents, or the nested objects at a path below parents that match a
//! query. A leaf: the request carries one, `nested_aggs` makes them.

use crate::query::ParsedQuery;

/// The documents a search (or one of its passes) runs on.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum DocScope {
    /// Root documents.
    #[default]
    Root,
    /// The nested objects at `path` whose parent (in the `parent` scope)
    /// matches `parent_query`.
    Nested {
        /// The nested object's dotted path.
        path: String,
        /// The scope of the parents.
        parent: Box<DocScope>,
        /// What the parents match (the query and bucket filters there).
        parent_query: ParsedQuery,
    },
}

impl DocScope {
    /// The nested path of the scope's documents (`None`: root documents).
    pub(crate) fn path(&self) -> Option<&str> {
        match self {
            DocScope::Root => None,
            DocScope::Nested { path, .. } => Some(path),
        }
    }
}
