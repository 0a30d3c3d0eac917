//! A `_bulk` body parsed: NDJSON action lines (`index`, `create`,
//! `update`, `delete`), each but `delete` followed by its source line,
//! made into [`Item`]s with their index (from the line or the path) and
//! id. A malformed action line fails the whole request, as in
//! Elasticsearch; every parsed line is reserved on the request breaker.

use serde_json::{Map, Value};
use strata_search::{estimate_parsed_json, MemoryAccount};

use crate::error::{EsError, Result};
use crate::ndjson;

/// The four bulk operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Index,
    Create,
    Update,
    Delete,
}

impl Op {
    fn parse(name: &str, line: usize) -> Result<Op> {
        Ok(match name {
            "index" => Op::Index,
            "create" => Op::Create,
            "update" => Op::Update,
            "delete" => Op::Delete,
            other => {
                return Err(EsError::IllegalArgument(format!(
                    "Malformed action/metadata line [{line}], expected field [create], [delete], [index] or [update] but found [{other}]"
                )))
            }
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Op::Index => "index",
            Op::Create => "create",
            Op::Update => "update",
            Op::Delete => "delete",
        }
    }
}

/// One parsed item.
pub(super) struct Item<'a> {
    pub(super) op: Op,
    pub(super) index: String,
    pub(super) id: Option<String>,
    pub(super) meta: Map<String, Value>,
    pub(super) source: Option<&'a [u8]>,
}

/// The items of `body`; each item's parsed action line is reserved on
/// `memory` (a bulk of many small deletes is all action lines).
pub(super) fn parse_items<'a>(
    body: &'a [u8],
    path_index: Option<&str>,
    memory: &MemoryAccount,
) -> Result<Vec<Item<'a>>> {
    let lines = ndjson::lines(body)?;
    if lines.is_empty() {
        return Err(EsError::ActionValidation("no requests added".into()));
    }
    memory.reserve(
        (lines.len() * std::mem::size_of::<&[u8]>()) as u64,
        "<bulk_request>",
    )?;
    let mut items = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let number = i + 1;
        memory.reserve(
            std::mem::size_of::<Item<'_>>() as u64 + 2 * estimate_parsed_json(lines[i]),
            "<bulk_request>",
        )?;
        let action = ndjson::parse_line(lines[i], i)?;
        let Some((name, meta)) = action
            .as_object()
            .and_then(|o| (o.len() == 1).then(|| o.iter().next()).flatten())
        else {
            return Err(EsError::IllegalArgument(format!(
                "Malformed action/metadata line [{number}], expected a single operation object"
            )));
        };
        let op = Op::parse(name, number)?;
        let meta = meta.as_object().cloned().ok_or_else(|| {
            EsError::IllegalArgument(format!(
                "Malformed action/metadata line [{number}], expected START_OBJECT but found [{meta}]"
            ))
        })?;
        let source = if op == Op::Delete {
            i += 1;
            None
        } else {
            let Some(line) = lines.get(i + 1) else {
                return Err(EsError::IllegalArgument(format!(
                    "The bulk request must be terminated by a newline [\\n]; action line [{number}] has no source"
                )));
            };
            i += 2;
            Some(*line)
        };
        let index = meta
            .get("_index")
            .and_then(Value::as_str)
            .or(path_index)
            .ok_or_else(|| EsError::ActionValidation("index is missing".into()))?
            .to_string();
        let id = meta.get("_id").map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        if id.is_none() && matches!(op, Op::Update | Op::Delete) {
            return Err(EsError::ActionValidation("id is missing".into()));
        }
        items.push(Item {
            op,
            index,
            id,
            meta,
            source,
        });
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_parse_with_defaults_and_errors() {
        let body =
            b"{\"index\":{\"_id\":1}}\n{\"a\":1}\n{\"delete\":{\"_index\":\"x\",\"_id\":\"2\"}}\n";
        let unaccounted = MemoryAccount::unaccounted();
        let items = parse_items(body, Some("logs"), &unaccounted).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(
            (items[0].index.as_str(), items[0].id.as_deref()),
            ("logs", Some("1"))
        );
        assert_eq!(items[1].op, Op::Delete);
        assert!(parse_items(b"{\"index\":{}}\n{}\n", None, &unaccounted).is_err());
        assert!(parse_items(b"{\"frob\":{}}\n", Some("x"), &unaccounted).is_err());
        assert!(parse_items(b"{\"index\":{}}\n", Some("x"), &unaccounted).is_err());
        assert!(parse_items(b"{\"index\":{}}\n{}", Some("x"), &unaccounted).is_err());
    }
}
