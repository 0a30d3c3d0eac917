//! Methods of `java.util.Map`: reads, writes (charged to the script's
//! heap budget), key and value views, `entrySet`.

use super::args::arity;
use crate::ast::Span;
use crate::interp::{Interp, Run};
use crate::ops::{equals, map_key};
use crate::value::{Value, CELL};

/// The methods of `java.util.Map` scripts call.
pub(super) fn map_method(
    it: &mut Interp<'_>,
    id: usize,
    receiver: &Value,
    name: &str,
    args: Vec<Value>,
    span: Span,
) -> Run<Value> {
    let key = |it: &Interp<'_>, k: &Value| map_key(&it.heap, k);
    match (name, args.as_slice()) {
        ("size", []) => Ok(Value::Int(it.heap.map(id).len() as i64)),
        ("isEmpty", []) => Ok(Value::Bool(it.heap.map(id).is_empty())),
        ("get", [k]) => Ok(it.heap.map(id).get(&key(it, k)).cloned().unwrap_or(Value::Null)),
        ("getOrDefault", [k, default]) => Ok(it.heap.map(id).get(&key(it, k)).cloned().unwrap_or_else(|| default.clone())),
        ("containsKey", [k]) => Ok(Value::Bool(it.heap.map(id).contains_key(&key(it, k)))),
        ("containsValue", [v]) => Ok(Value::Bool(it.heap.map(id).values().any(|x| equals(&it.heap, x, v)))),
        ("put", [k, v]) => {
            let k = key(it, k);
            it.heap.charge(k.len() + 2 * CELL).map_err(it.budget(span))?;
            Ok(it.heap.map_mut(id).insert(k, v.clone()).unwrap_or(Value::Null))
        }
        ("putIfAbsent", [k, v]) => {
            let k = key(it, k);
            if let Some(old) = it.heap.map(id).get(&k) {
                return Ok(old.clone());
            }
            it.heap.charge(k.len() + 2 * CELL).map_err(it.budget(span))?;
            it.heap.map_mut(id).insert(k, v.clone());
            Ok(Value::Null)
        }
        ("putAll", [Value::Map(other)]) => {
            let entries = it.heap.map(*other).clone();
            it.heap.charge(entries.len().saturating_mul(3 * CELL)).map_err(it.budget(span))?;
            it.heap.map_mut(id).extend(entries);
            Ok(Value::Null)
        }
        ("remove", [k]) => {
            let k = key(it, k);
            Ok(it.heap.map_mut(id).remove(&k).unwrap_or(Value::Null))
        }
        ("clear", []) => {
            it.heap.map_mut(id).clear();
            Ok(Value::Null)
        }
        ("keySet", []) => {
            let keys: Vec<String> = it.heap.map(id).keys().cloned().collect();
            let mut out = Vec::with_capacity(keys.len());
            for k in keys {
                out.push(it.heap.string(k).map_err(it.budget(span))?);
            }
            it.heap.new_list(out).map_err(it.budget(span))
        }
        ("values", []) => {
            let values: Vec<Value> = it.heap.map(id).values().cloned().collect();
            it.heap.new_list(values).map_err(it.budget(span))
        }
        ("getKey", []) if it.heap.is_entry(id) => Ok(it.heap.map(id).get("key").cloned().unwrap_or(Value::Null)),
        ("getValue", []) if it.heap.is_entry(id) => Ok(it.heap.map(id).get("value").cloned().unwrap_or(Value::Null)),
        ("entrySet", []) => {
            let pairs: Vec<(String, Value)> = it.heap.map(id).iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let mut out = Vec::with_capacity(pairs.len());
            for (k, v) in pairs {
                let key = it.heap.string(k).map_err(it.budget(span))?;
                out.push(it.heap.new_entry(key, v).map_err(it.budget(span))?);
            }
            it.heap.new_list(out).map_err(it.budget(span))
        }
        ("forEach" | "removeIf" | "computeIfAbsent" | "compute" | "merge" | "each" | "findAll", _) => Err(it.fail(
            span,
            "illegal_argument_exception",
            format!("[Map.{name}] takes a lambda, which Strata's Painless subset does not support (iterate over entrySet() or keySet() instead)"),
        )),
        _ => Err(arity(it, receiver, name, &args, span)),
    }
}
