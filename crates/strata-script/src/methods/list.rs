//! Methods of `java.util.List`: reads, writes (charged to the script's
//! heap budget), searches, `sort` (natural order) and `join`.

use super::args::{arity, int_arg, str_arg};
use crate::ast::Span;
use crate::interp::{Interp, Run};
use crate::ops::{equals, list_index, to_java_string};
use crate::value::{Value, CELL};

/// The methods of `java.util.List` scripts call.
pub(super) fn list_method(
    it: &mut Interp<'_>,
    id: usize,
    receiver: &Value,
    name: &str,
    args: Vec<Value>,
    span: Span,
) -> Run<Value> {
    let len = it.heap.list(id).len();
    match (name, args.as_slice()) {
        ("size", []) => Ok(Value::Int(len as i64)),
        ("isEmpty", []) => Ok(Value::Bool(len == 0)),
        ("add", [v]) => {
            it.heap.charge(CELL).map_err(it.budget(span))?;
            it.heap.list_mut(id).push(v.clone());
            Ok(Value::Bool(true))
        }
        ("add", [i, v]) => {
            let i = int_arg(it, i, span)?;
            if i < 0 || i as usize > len {
                return Err(it.out_of_bounds(i, len, span));
            }
            it.heap.charge(CELL).map_err(it.budget(span))?;
            it.heap.list_mut(id).insert(i as usize, v.clone());
            Ok(Value::Null)
        }
        ("addAll", [Value::List(other)]) => {
            let items = it.heap.list(*other).clone();
            it.heap
                .charge(CELL.saturating_mul(items.len()))
                .map_err(it.budget(span))?;
            let changed = !items.is_empty();
            it.heap.list_mut(id).extend(items);
            Ok(Value::Bool(changed))
        }
        ("get", [i]) => {
            let i = int_arg(it, i, span)?;
            let at = list_index(i, len)
                .filter(|_| i >= 0)
                .ok_or_else(|| it.out_of_bounds(i, len, span))?;
            Ok(it.heap.list(id)[at].clone())
        }
        ("getLength", []) => Ok(Value::Int(len as i64)),
        ("set", [i, v]) => {
            let i = int_arg(it, i, span)?;
            let at = list_index(i, len)
                .filter(|_| i >= 0)
                .ok_or_else(|| it.out_of_bounds(i, len, span))?;
            Ok(std::mem::replace(&mut it.heap.list_mut(id)[at], v.clone()))
        }
        ("contains", [v]) => Ok(Value::Bool(
            it.heap.list(id).iter().any(|x| equals(&it.heap, x, v)),
        )),
        ("indexOf" | "lastIndexOf", [v]) => {
            let list = it.heap.list(id);
            let found = if name == "indexOf" {
                list.iter().position(|x| equals(&it.heap, x, v))
            } else {
                list.iter().rposition(|x| equals(&it.heap, x, v))
            };
            Ok(Value::Int(found.map_or(-1, |i| i as i64)))
        }
        // `remove(int)` removes at an index; any other argument removes
        // the first equal element.
        ("remove", [Value::Int(i)]) => {
            let at = list_index(*i, len)
                .filter(|_| *i >= 0)
                .ok_or_else(|| it.out_of_bounds(*i, len, span))?;
            Ok(it.heap.list_mut(id).remove(at))
        }
        ("remove", [v]) => {
            let found = it.heap.list(id).iter().position(|x| equals(&it.heap, x, v));
            if let Some(at) = found {
                it.heap.list_mut(id).remove(at);
            }
            Ok(Value::Bool(found.is_some()))
        }
        ("clear", []) => {
            it.heap.list_mut(id).clear();
            Ok(Value::Null)
        }
        ("sort", [Value::Null]) => {
            sort_list(it, id, span)?;
            Ok(Value::Null)
        }
        ("join", [sep]) => {
            let sep = str_arg(it, sep, span)?;
            let parts: Vec<String> = it
                .heap
                .list(id)
                .iter()
                .map(|v| to_java_string(&it.heap, v))
                .collect();
            it.heap.string(parts.join(&sep)).map_err(it.budget(span))
        }
        (
            "stream" | "removeIf" | "forEach" | "each" | "findAll" | "collect" | "any" | "every",
            _,
        ) => Err(it.fail(
            span,
            "illegal_argument_exception",
            format!(
                "[List.{name}] takes a lambda, which Strata's Painless subset does not support"
            ),
        )),
        _ => Err(arity(it, receiver, name, &args, span)),
    }
}

/// Sorts a list of numbers or of strings in natural order.
pub fn sort_list(it: &mut Interp<'_>, id: usize, span: Span) -> Run<()> {
    let list = it.heap.list(id);
    let all_numbers = list
        .iter()
        .all(|v| matches!(v, Value::Int(_) | Value::Double(_)));
    let all_strings = list.iter().all(|v| matches!(v, Value::Str(_)));
    if !all_numbers && !all_strings {
        return Err(it.fail(
            span,
            "class_cast_exception",
            "cannot sort a list of mixed or non-comparable values",
        ));
    }
    let key = |v: &Value| match v {
        Value::Int(n) => *n as f64,
        Value::Double(f) => *f,
        _ => 0.0,
    };
    let list = it.heap.list_mut(id);
    if all_numbers {
        list.sort_by(|a, b| key(a).total_cmp(&key(b)));
    } else {
        list.sort_by(|a, b| match (a, b) {
            (Value::Str(x), Value::Str(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        });
    }
    Ok(())
}
