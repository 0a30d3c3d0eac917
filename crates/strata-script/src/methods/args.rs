//! The argument checks every method shares: the "method not found"
//! error (wrong name or arity) and casts of an argument to an integer or
//! a string, with Java's exception types. A leaf.

use crate::ast::Span;
use crate::interp::{Interp, Run};
use crate::value::{class_name, Value};

pub(super) fn arity(
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

pub(super) fn int_arg(it: &Interp<'_>, v: &Value, span: Span) -> Run<i64> {
    match v {
        Value::Int(n) => Ok(*n),
        other => Err(it.fail(
            span,
            "class_cast_exception",
            format!("Cannot cast {} to java.lang.Integer", class_name(other)),
        )),
    }
}

pub(super) fn str_arg(it: &Interp<'_>, v: &Value, span: Span) -> Run<std::rc::Rc<str>> {
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
