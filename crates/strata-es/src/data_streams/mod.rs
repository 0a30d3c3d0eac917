//! Data streams: a name that writes go to and searches read from, backed
//! by hidden-style indices `.ds-<name>-<yyyy.MM.dd>-<generation>`.
//!
//! Built on what the catalog has: the stream's name is a write alias over
//! its backing indices (so searches, `_count` and `_rollover` on the name
//! work as for any alias, and rollover names the next generation), and the
//! set of stream names is kept in `<root>/data_streams.json`. A stream is
//! created by `PUT _data_stream/<name>` or by the first write to a name
//! that a composable template with `data_stream: {}` matches; its backing
//! indices get that template's settings and mappings plus `@timestamp` as
//! a `date`. Writes to a stream must be `op_type=create` and carry an
//! `@timestamp` (checked by [`check_write`]).
//!
//! - `registry`: [`DataStreams`], the set of names the node keeps.

mod registry;

pub use registry::DataStreams;

use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::{AliasAction, SearchError, SearchIndex, TemplateBody};

use crate::error::{EsError, Result};
use crate::node::Node;

/// The timestamp field every stream document needs.
pub const TIMESTAMP: &str = "@timestamp";

/// The composable template that makes `name` a data stream, and the
/// body of its backing indices.
fn stream_template(node: &Node, name: &str) -> Result<Option<(String, Value)>> {
    let templates = node.catalog.templates();
    let Some(tname) = templates.composable_for(name) else {
        return Ok(None);
    };
    let Some(t) = templates.composable.get(tname) else {
        return Ok(None);
    };
    if !t.data_stream {
        return Ok(None);
    }
    let mut merged = TemplateBody::default();
    for layer in templates.layers_for(name) {
        merged.merge(layer);
    }
    let mut mappings = merged.mappings.clone().unwrap_or_else(|| json!({}));
    if !mappings.is_object() {
        mappings = json!({});
    }
    if mappings.get("properties").is_none() {
        mappings["properties"] = json!({});
    }
    let props = &mut mappings["properties"];
    if props.get(TIMESTAMP).is_none() {
        props[TIMESTAMP] = json!({"type": "date"});
    }
    // Backing indices are hidden: `*` reaches them through the stream's
    // name only, unless `expand_wildcards` includes `hidden`.
    let mut settings = merged.settings_value();
    if !settings.is_object() {
        settings = json!({});
    }
    settings["index.hidden"] = json!(true);
    Ok(Some((
        tname.to_string(),
        json!({"settings": settings, "mappings": mappings}),
    )))
}

/// The name of generation `generation` of `stream`'s backing indices.
pub fn backing_name(stream: &str, generation: u64) -> String {
    let today = chrono_day(crate::host::now_millis());
    format!(".ds-{stream}-{today}-{generation:06}")
}

/// `yyyy.MM.dd` of a UTC instant in milliseconds.
fn chrono_day(ms: u64) -> String {
    let days = (ms / 86_400_000) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Creates data stream `name` (`PUT _data_stream/<name>` or a first write).
pub fn create(node: &Node, name: &str) -> Result<Arc<SearchIndex>> {
    let mut names = node.data_streams.names.lock();
    if names.contains(name) || node.catalog.resolve(name).is_ok_and(|f| !f.is_empty()) {
        return Err(EsError::ResourceAlreadyExists(format!(
            "data_stream [{name}] already exists"
        )));
    }
    let (_, body) = stream_template(node, name)?.ok_or_else(|| {
        EsError::IllegalArgument(format!(
            "no matching index template found for data stream [{name}]"
        ))
    })?;
    let backing = backing_name(name, 1);
    let index = node.catalog.create_index(&backing, &body)?;
    let link = AliasAction::parse(
        &json!({"add": {"index": backing, "alias": name, "is_write_index": true}}),
    )?;
    if let Err(e) = node.catalog.update_aliases(&[link]) {
        // Let go first: a deletion waits for the index's holders.
        drop(index);
        let _ = node.catalog.delete(&backing);
        return Err(e.into());
    }
    let mut next = names.clone();
    next.insert(name.to_string());
    node.data_streams.save(&next)?;
    *names = next;
    Ok(index)
}

/// The stream's write index when a write to `name` should create data
/// stream `name` (no index or alias of that name, and a data stream
/// template matches it); `None` otherwise.
pub fn auto_create(node: &Node, name: &str) -> Result<Option<Arc<SearchIndex>>> {
    if node.data_streams.contains(name) || stream_template(node, name)?.is_none() {
        return Ok(None);
    }
    match create(node, name) {
        Ok(index) => Ok(Some(index)),
        // Created meanwhile by another write.
        Err(EsError::ResourceAlreadyExists(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A document write to `target`: a data stream takes only `op_type=create`
/// and documents with an `@timestamp`.
pub fn check_write(node: &Node, target: &str, create_op: bool, source: &[u8]) -> Result<()> {
    if !node.data_streams.contains(target) {
        return Ok(());
    }
    if !create_op {
        return Err(EsError::IllegalArgument(
            "only write ops with an op_type of create are allowed in data streams".into(),
        ));
    }
    let has_timestamp = serde_json::from_slice::<Value>(source)
        .ok()
        .is_some_and(|doc| doc.get(TIMESTAMP).is_some_and(|t| !t.is_null()));
    if !has_timestamp {
        return Err(EsError::Search {
            source: SearchError::DocumentParsing(format!(
                "data stream timestamp field [{TIMESTAMP}] is missing"
            )),
            index: None,
            position: None,
        });
    }
    Ok(())
}

/// A rollover of `target`: for a data stream, the next generation's
/// name and a body giving it the stream's settings and mappings (the
/// request's `conditions` kept); otherwise `body` as it is.
pub fn rollover_args(node: &Node, target: &str, body: Value) -> Result<(Value, Option<String>)> {
    if !node.data_streams.contains(target) {
        return Ok((body, None));
    }
    if let Some(k) = body
        .as_object()
        .and_then(|o| o.keys().find(|k| *k != "conditions"))
    {
        return Err(EsError::IllegalArgument(format!(
            "aliases, mappings, and index settings may not be specified when rolling over a data stream, got [{k}]"
        )));
    }
    let (_, mut next_body) = stream_template(node, target)?.ok_or_else(|| {
        EsError::IllegalArgument(format!(
            "no matching index template found for data stream [{target}]"
        ))
    })?;
    if let Some(c) = body.get("conditions") {
        next_body["conditions"] = c.clone();
    }
    let generation = backing_indices(node, target)
        .iter()
        .filter_map(|i| {
            i.name()
                .rsplit('-')
                .next()
                .and_then(|g| g.parse::<u64>().ok())
        })
        .max()
        .unwrap_or(0);
    Ok((next_body, Some(backing_name(target, generation + 1))))
}

/// The backing indices of `stream`, oldest first.
pub fn backing_indices(node: &Node, stream: &str) -> Vec<Arc<SearchIndex>> {
    let mut list = node.catalog.resolve(stream).unwrap_or_default();
    list.sort_by(|a, b| a.name().cmp(b.name()));
    list
}

/// `GET _data_stream[/<names>]` entry of one stream.
pub fn describe(node: &Node, stream: &str) -> Value {
    let indices = backing_indices(node, stream);
    let template = stream_template(node, stream).ok().flatten().map(|(t, _)| t);
    let generation = indices
        .last()
        .and_then(|i| {
            i.name()
                .rsplit('-')
                .next()
                .and_then(|g| g.parse::<u64>().ok())
        })
        .unwrap_or(indices.len() as u64);
    json!({
        "name": stream,
        "timestamp_field": {"name": TIMESTAMP},
        "indices": indices.iter().map(|i| json!({
            "index_name": i.name(),
            "index_uuid": i.settings().uuid,
            "prefer_ilm": false,
            "managed_by": "Unmanaged",
        })).collect::<Vec<_>>(),
        "generation": generation,
        "status": "GREEN",
        "template": template,
        "next_generation_managed_by": "Unmanaged",
        "prefer_ilm": false,
        "hidden": false,
        "system": false,
        "allow_custom_routing": false,
        "replicated": false,
        "rollover_on_write": false,
    })
}

/// Deletes `stream` and its backing indices.
pub fn delete(node: &Node, stream: &str) -> Result<()> {
    let mut names = node.data_streams.names.lock();
    if !names.contains(stream) {
        return Err(EsError::ResourceNotFound(format!(
            "data_stream matching [{stream}] not found"
        )));
    }
    let backing: Vec<String> = backing_indices(node, stream)
        .iter()
        .map(|i| i.name().to_string())
        .collect();
    if !backing.is_empty() {
        node.catalog.delete(&backing.join(","))?;
    }
    let mut next = names.clone();
    next.remove(stream);
    node.data_streams.save(&next)?;
    *names = next;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn day_names() {
        assert_eq!(super::chrono_day(0), "1970.01.01");
        assert_eq!(super::chrono_day(1_700_000_000_000), "2023.11.14");
        assert_eq!(super::chrono_day(951_782_400_000), "2000.02.29");
    }
}
