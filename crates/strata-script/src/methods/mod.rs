//! Fields and methods of values: the parts of Java's `String`, `List`,
//! `Map`, `ScriptDocValues`, `ZonedDateTime` and boxed numbers that
//! scripts commonly call. Anything else is an error naming the method.
//!
//! `string`, `list`, `map`: the methods of those classes; `args`: the
//! argument checks they share. The rest (documents, dates, numbers) is
//! here.

mod args;
mod list;
mod map;
mod string;

use crate::ast::Span;
use crate::interp::{Interp, Run};
use crate::ops::{equals, list_index, to_java_string};
use crate::value::{class_name, Value};
use args::{arity, int_arg};
use list::list_method;
pub use list::sort_list;
use map::map_method;
use string::string_method;

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
