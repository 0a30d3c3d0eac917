//! The index a document write goes to: the index named, an alias's write
//! index, a data stream's (created on the first write when a template asks
//! for one), or a new index from the matching templates.

use std::sync::Arc;

use serde_json::Value;
use strata_search::{SearchError, SearchIndex};

use crate::node::Node;

/// The index to write `name` to: the index, an alias's write index,
/// or a new index created from the matching templates and dynamic
/// mapping if neither exists (Elasticsearch's automatic creation).
pub fn index_for_write(node: &Node, name: &str) -> Result<Arc<SearchIndex>, SearchError> {
    if let Some(index) = node.catalog.write_index(name)? {
        return Ok(index);
    }
    if let Some(index) = crate::data_streams::auto_create(node, name)
        .map_err(|e| SearchError::IllegalArgument(e.reason()))?
    {
        return Ok(index);
    }
    match node.catalog.create_index(name, &Value::Null) {
        Err(SearchError::IndexExists(_)) => node.catalog.get(name),
        other => other,
    }
}
