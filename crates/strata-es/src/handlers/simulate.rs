//! `POST /_index_template/_simulate_index/<name>`: the settings, mappings
//! and aliases a new index of that name would get from the templates, and
//! the other composable templates its name matches (`overlapping`).

use serde_json::{json, Value};
use strata_search::{wildcard_match, TemplateBody};

use crate::error::Result;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `/_index_template/_simulate_index/<name>`.
pub fn simulate_index(node: &Node, name: &str, _req: &EsRequest) -> Result<Reply> {
    let templates = node.catalog.templates();
    let winner = templates.composable_for(name).map(str::to_string);
    let mut merged = TemplateBody::default();
    for layer in templates.layers_for(name) {
        merged.merge(layer);
    }
    let mut template = merged.to_json(true);
    let stream = winner
        .as_deref()
        .and_then(|w| templates.composable.get(w))
        .is_some_and(|t| t.data_stream);
    if stream {
        if template["mappings"].get("properties").is_none() {
            template["mappings"]["properties"] = json!({});
        }
        if template["mappings"]["properties"]
            .get(crate::data_streams::TIMESTAMP)
            .is_none()
        {
            template["mappings"]["properties"][crate::data_streams::TIMESTAMP] =
                json!({"type": "date"});
        }
    }
    let overlapping: Vec<Value> = templates
        .composable
        .iter()
        .filter(|(n, t)| {
            Some(n.as_str()) != winner.as_deref()
                && t.index_patterns.iter().any(|p| wildcard_match(p, name))
        })
        .map(|(n, t)| json!({"name": n, "index_patterns": t.index_patterns}))
        .collect();
    Ok(Reply::ok(json!({
        "template": template,
        "overlapping": overlapping,
    })))
}
