//! Fields and methods of values: the parts of Java's `String`, `List`,
//! `Map`, `ScriptDocValues`, `ZonedDateTime` and boxed numbers that
//! scripts commonly call. Anything else is an error naming the method.

use crate::ast::Span;
use crate::interp::{Interp, Run};
use crate::ops::{equals, list_index, map_key, to_java_string};
use crate::value::{class_name, Value, CELL};

/// `receiver.name`.
pub fn field(it: &mut Interp<'_>, receiver: Value, name: &str, span: Span) -> Run<Value> {
    match (&receiver, name) {
        (Value::Map(id), _) => Ok(it.heap.map(*id).get(name).cloned().unwrap_or(Value::Null)),
        (Value::List(id), "length") => Ok(Value::Int(it.heap.list(*id).len() as i64)),
        (Value::Doc(_), "value") => call(it, receiver, "getValue", Vec::new(), span),
        (Value::Doc(_), "values") => Ok(receiver),
        (Value::Doc(id), "empty") => Ok(Value::Bool(it.heap.doc(*id).values.is_empty())),
        (Value::Doc(id), "length") => Ok(Value::Int(it.heap.doc(*id).values.len() as i64)),
        (Value::DocLookup, _) => it.doc_field(name, span),
        (Value::Null, _) => Err(it.fail(
            span,
            "null_pointer_exception",
            format!("cannot access field [{name}] of a null value"),
        )),
        _ => Err(it.fail(
            span,
            "illegal_argument_exception",
            format!(
                "dynamic getter [{}, {name}] not found",
                class_name(&receiver)
            ),
        )),
    }
}

fn arity(
    it: &Interp<'_>,
    receiver: &Value,
    name: &str,
    args: &[Value],
    span: Span,
) -> crate::error::ScriptError {
    it.fail(
        span,
        "illegal_argument_exception",
        format!(
            "dynamic method [{}, {name}/{}] not found",
            class_name(receiver),
            args.len()
        ),
    )
}

fn int_arg(it: &Interp<'_>, v: &Value, span: Span) -> Run<i64> {
    match v {
        Value::Int(n) => Ok(*n),
        other => Err(it.fail(
            span,
            "class_cast_exception",
            format!("Cannot cast {} to java.lang.Integer", class_name(other)),
        )),
    }
}

fn str_arg(it: &Interp<'_>, v: &Value, span: Span) -> Run<std::rc::Rc<str>> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        Value::Null => Err(it.fail(span, "null_pointer_exception", "a string argument is null")),
        other => Err(it.fail(
            span,
            "class_cast_exception",
            format!("Cannot cast {} to java.lang.String", class_name(other)),
        )),
    }
}

/// `receiver.name(args)`.
pub fn call(
    it: &mut Interp<'_>,
    receiver: Value,
    name: &str,
    args: Vec<Value>,
    span: Span,
) -> Run<Value> {
    // Methods every object has.
    match (name, args.as_slice()) {
        ("toString", []) if receiver != Value::Null => {
            let text = to_java_string(&it.heap, &receiver);
            return it.heap.string(text).map_err(it.budget(span));
        }
        ("equals", [other]) if receiver != Value::Null => {
            return Ok(Value::Bool(equals(&it.heap, &receiver, other)))
        }
        _ => {}
    }
    match &receiver {
        Value::Str(s) => string_method(it, s.clone(), name, &args, span),
        Value::List(id) => list_method(it, *id, &receiver, name, args, span),
        Value::Map(id) => map_method(it, *id, &receiver, name, args, span),
        Value::Doc(id) => {
            let values = &it.heap.doc(*id).values;
            match (name, args.as_slice()) {
                ("getValue", []) => values.first().cloned().ok_or_else(|| {
                    let field = &it.heap.doc(*id).name;
                    it.fail(
                        span,
                        "illegal_state_exception",
                        format!("A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field! (field [{field}])"),
                    )
                }),
                ("size", []) => Ok(Value::Int(values.len() as i64)),
                ("isEmpty", []) => Ok(Value::Bool(values.is_empty())),
                ("get", [i]) => {
                    let i = int_arg(it, i, span)?;
                    let at = list_index(i, values.len()).ok_or_else(|| it.out_of_bounds(i, values.len(), span))?;
                    Ok(values[at].clone())
                }
                ("contains", [v]) => Ok(Value::Bool(values.iter().any(|x| equals(&it.heap, x, v)))),
                _ => Err(arity(it, &receiver, name, &args, span)),
            }
        }
        Value::Date(ms) => match (name, args.as_slice()) {
            ("toInstant" | "withZoneSameInstant" | "getZonedDateTime", _) => Ok(Value::Date(*ms)),
            (_, []) => crate::dates::getter(*ms, name)
                .map(Value::Int)
                .ok_or_else(|| arity(it, &receiver, name, &args, span)),
            ("isBefore", [Value::Date(other)]) => Ok(Value::Bool(ms < other)),
            ("isAfter", [Value::Date(other)]) => Ok(Value::Bool(ms > other)),
            _ => Err(arity(it, &receiver, name, &args, span)),
        },
        Value::Int(n) => match (name, args.as_slice()) {
            ("intValue" | "longValue" | "shortValue" | "byteValue", []) => Ok(Value::Int(*n)),
            ("doubleValue" | "floatValue", []) => Ok(Value::Double(*n as f64)),
            ("compareTo", [Value::Int(m)]) => Ok(Value::Int(n.cmp(m) as i64)),
            _ => Err(arity(it, &receiver, name, &args, span)),
        },
        Value::Double(f) => match (name, args.as_slice()) {
            ("intValue" | "longValue", []) => Ok(Value::Int(*f as i64)),
            ("doubleValue" | "floatValue", []) => Ok(Value::Double(*f)),
            ("isNaN", []) => Ok(Value::Bool(f.is_nan())),
            ("isInfinite", []) => Ok(Value::Bool(f.is_infinite())),
            ("compareTo", [Value::Double(g)]) => Ok(Value::Int(f.total_cmp(g) as i64)),
            _ => Err(arity(it, &receiver, name, &args, span)),
        },
        Value::Bool(b) => match (name, args.as_slice()) {
            ("booleanValue", []) => Ok(Value::Bool(*b)),
            _ => Err(arity(it, &receiver, name, &args, span)),
        },
        Value::DocLookup => match (name, args.as_slice()) {
            ("get", [Value::Str(field)]) => it.doc_field(&field.clone(), span),
            ("containsKey", [Value::Str(field)]) => {
                let found = it.doc.is_some_and(|d| d.contains(field));
                Ok(Value::Bool(found))
            }
            _ => Err(arity(it, &receiver, name, &args, span)),
        },
        Value::Null => Err(it.fail(
            span,
            "null_pointer_exception",
            format!("cannot invoke [{name}] on a null value"),
        )),
    }
}

fn char_index(s: &str, i: i64) -> Option<usize> {
    if i < 0 {
        return None;
    }
    let i = i as usize;
    if i == s.chars().count() {
        return Some(s.len());
    }
    s.char_indices().nth(i).map(|(b, _)| b)
}

fn string_method(
    it: &mut Interp<'_>,
    s: std::rc::Rc<str>,
    name: &str,
    args: &[Value],
    span: Span,
) -> Run<Value> {
    let receiver = Value::Str(s.clone());
    let text = |it: &mut Interp<'_>, t: String| it.heap.string(t).map_err(it.budget(span));
    let bounds = |it: &Interp<'_>, i: i64| {
        it.fail(
            span,
            "string_index_out_of_bounds_exception",
            format!("index {i}, length {}", s.chars().count()),
        )
    };
    match (name, args) {
        ("length", []) => Ok(Value::Int(s.chars().count() as i64)),
        ("isEmpty", []) => Ok(Value::Bool(s.is_empty())),
        ("toLowerCase", []) => text(it, s.to_lowercase()),
        ("toUpperCase", []) => text(it, s.to_uppercase()),
        ("trim" | "strip", []) => text(it, s.trim().to_string()),
        ("contains", [v]) => Ok(Value::Bool(s.contains(&*str_arg(it, v, span)?))),
        ("startsWith", [v]) => Ok(Value::Bool(s.starts_with(&*str_arg(it, v, span)?))),
        ("endsWith", [v]) => Ok(Value::Bool(s.ends_with(&*str_arg(it, v, span)?))),
        ("equalsIgnoreCase", [v]) => Ok(Value::Bool(matches!(v, Value::Str(o) if o.to_lowercase() == s.to_lowercase()))),
        ("compareTo", [v]) => Ok(Value::Int(s.cmp(&str_arg(it, v, span)?) as i64)),
        ("concat", [v]) => {
            let other = str_arg(it, v, span)?;
            text(it, format!("{s}{other}"))
        }
        ("indexOf" | "lastIndexOf", [v]) => {
            let needle = str_arg(it, v, span)?;
            let found = if name == "indexOf" { s.find(&*needle) } else { s.rfind(&*needle) };
            Ok(Value::Int(found.map_or(-1, |b| s[..b].chars().count() as i64)))
        }
        ("charAt", [i]) => {
            let i = int_arg(it, i, span)?;
            let ch = usize::try_from(i).ok().and_then(|i| s.chars().nth(i)).ok_or_else(|| bounds(it, i))?;
            text(it, ch.to_string())
        }
        ("substring", [from]) | ("substring", [from, _]) => {
            let from = int_arg(it, from, span)?;
            let to = match args.get(1) {
                Some(to) => int_arg(it, to, span)?,
                None => s.chars().count() as i64,
            };
            let (Some(a), Some(b)) = (char_index(&s, from), char_index(&s, to)) else {
                return Err(bounds(it, if char_index(&s, from).is_none() { from } else { to }));
            };
            if a > b {
                return Err(bounds(it, to - from));
            }
            text(it, s[a..b].to_string())
        }
        ("replace", [from, to]) => {
            let (from, to) = (str_arg(it, from, span)?, str_arg(it, to, span)?);
            let estimate = s.len().saturating_mul(to.len().max(1));
            it.heap.charge(estimate).map_err(it.budget(span))?;
            text(it, s.replace(&*from, &to))
        }
        ("splitOnToken", [token]) | ("splitOnToken", [token, _]) => {
            let token = str_arg(it, token, span)?;
            if token.is_empty() {
                return Err(it.fail(span, "illegal_argument_exception", "Cannot split on an empty token"));
            }
            let limit = match args.get(1) {
                Some(l) => int_arg(it, l, span)?,
                None => 0,
            };
            let parts: Vec<String> = if limit > 0 {
                s.splitn(limit as usize, &*token).map(str::to_string).collect()
            } else {
                s.split(&*token).map(str::to_string).collect()
            };
            let mut out = Vec::with_capacity(parts.len());
            for part in parts {
                out.push(text(it, part)?);
            }
            it.heap.new_list(out).map_err(it.budget(span))
        }
        ("hashCode", []) => {
            // Java's String.hashCode over UTF-16 units.
            let h = s.encode_utf16().fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)));
            Ok(Value::Int(i64::from(h)))
        }
        ("split" | "matches" | "replaceAll" | "replaceFirst", _) => Err(it.fail(
            span,
            "illegal_argument_exception",
            format!("[String.{name}] uses regular expressions, which Strata's Painless subset does not support (use splitOnToken or replace)"),
        )),
        _ => Err(arity(it, &receiver, name, args, span)),
    }
}

fn list_method(
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

fn map_method(
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
