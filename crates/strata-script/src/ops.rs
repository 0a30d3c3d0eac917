//! Operators on values with Java's rules: integer arithmetic wraps,
//! integer division truncates and fails on zero, a double on either side
//! makes a double, `+` with a string concatenates, `==` compares values
//! (numbers across int and double), casts truncate.

use crate::ast::{BinOp, Span, Ty, UnOp};
use crate::interp::state::{Interp, Run};
use crate::value::{class_name, java_double, Heap, Value, MAX_VALUE_DEPTH};

/// A list index, negative counting from the end as Painless allows.
pub fn list_index(i: i64, len: usize) -> Option<usize> {
    let at = if i < 0 { i + len as i64 } else { i };
    (0..len as i64).contains(&at).then_some(at as usize)
}

/// The string a map key becomes (maps here are keyed by strings, as JSON is).
pub fn map_key(heap: &Heap, key: &Value) -> String {
    match key {
        Value::Str(s) => s.to_string(),
        other => to_java_string(heap, other),
    }
}

/// Java's `String.valueOf`.
pub fn to_java_string(heap: &Heap, value: &Value) -> String {
    let mut out = String::new();
    write_java(heap, value, &mut out, 0);
    out
}

fn write_java(heap: &Heap, value: &Value, out: &mut String, depth: usize) {
    if depth > MAX_VALUE_DEPTH {
        out.push_str("...");
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(n) => out.push_str(&n.to_string()),
        Value::Double(f) => out.push_str(&java_double(*f)),
        Value::Str(s) => out.push_str(s),
        Value::Date(ms) => out.push_str(&crate::dates::iso(*ms)),
        Value::DocLookup => out.push_str("doc"),
        Value::List(_) | Value::Doc(_) => {
            let items = match value {
                Value::List(id) => heap.list(*id),
                Value::Doc(id) => &heap.doc(*id).values,
                _ => unreachable!("matched above"),
            };
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_java(heap, item, out, depth + 1);
            }
            out.push(']');
        }
        Value::Map(id) => {
            out.push('{');
            for (i, (k, v)) in heap.map(*id).iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push('=');
                write_java(heap, v, out, depth + 1);
            }
            out.push('}');
        }
    }
}

/// Value equality (`==`, `equals`): numbers by value across int and
/// double, strings, lists and maps by content.
pub fn equals(heap: &Heap, a: &Value, b: &Value) -> bool {
    equals_at(heap, a, b, 0)
}

fn equals_at(heap: &Heap, a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_VALUE_DEPTH {
        return false;
    }
    match (a, b) {
        (Value::Int(x), Value::Double(y)) | (Value::Double(y), Value::Int(x)) => (*x as f64) == *y,
        (Value::List(x), Value::List(y)) => {
            x == y || {
                let (l, r) = (heap.list(*x), heap.list(*y));
                l.len() == r.len()
                    && l.iter()
                        .zip(r)
                        .all(|(p, q)| equals_at(heap, p, q, depth + 1))
            }
        }
        (Value::Map(x), Value::Map(y)) => {
            x == y || {
                let (l, r) = (heap.map(*x), heap.map(*y));
                l.len() == r.len()
                    && l.iter()
                        .zip(r)
                        .all(|((kp, p), (kq, q))| kp == kq && equals_at(heap, p, q, depth + 1))
            }
        }
        _ => a == b,
    }
}

fn num(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n) => Some(*n as f64),
        Value::Double(f) => Some(*f),
        _ => None,
    }
}

fn refuse(
    it: &Interp<'_>,
    op: &str,
    l: &Value,
    r: &Value,
    span: Span,
) -> crate::error::ScriptError {
    if *l == Value::Null || *r == Value::Null {
        return it.fail(
            span,
            "null_pointer_exception",
            format!("cannot apply [{op}] to a null value"),
        );
    }
    it.fail(
        span,
        "class_cast_exception",
        format!(
            "Cannot apply [{op}] operation to types [{}] and [{}].",
            class_name(l),
            class_name(r)
        ),
    )
}

/// A binary operator.
pub fn binary(it: &mut Interp<'_>, op: BinOp, l: Value, r: Value, span: Span) -> Run<Value> {
    use BinOp::*;
    let symbol = symbol(op);
    match op {
        Eq => return Ok(Value::Bool(equals(&it.heap, &l, &r))),
        Ne => return Ok(Value::Bool(!equals(&it.heap, &l, &r))),
        RefEq => return Ok(Value::Bool(same(&l, &r))),
        RefNe => return Ok(Value::Bool(!same(&l, &r))),
        _ => {}
    }
    if op == Add && (matches!(l, Value::Str(_)) || matches!(r, Value::Str(_))) {
        let mut text = to_java_string(&it.heap, &l);
        text.push_str(&to_java_string(&it.heap, &r));
        return it.heap.string(text).map_err(it.budget(span));
    }
    if matches!(op, BitAnd | BitOr | BitXor) {
        if let (Value::Bool(a), Value::Bool(b)) = (&l, &r) {
            return Ok(Value::Bool(match op {
                BitAnd => a & b,
                BitOr => a | b,
                _ => a ^ b,
            }));
        }
    }
    if let (Value::Int(a), Value::Int(b)) = (&l, &r) {
        let (a, b) = (*a, *b);
        return Ok(match op {
            Add => Value::Int(a.wrapping_add(b)),
            Sub => Value::Int(a.wrapping_sub(b)),
            Mul => Value::Int(a.wrapping_mul(b)),
            Div | Rem if b == 0 => return Err(it.fail(span, "arithmetic_exception", "/ by zero")),
            Div => Value::Int(a.wrapping_div(b)),
            Rem => Value::Int(a.wrapping_rem(b)),
            Shl => Value::Int(a.wrapping_shl(b as u32 & 63)),
            Shr => Value::Int(a.wrapping_shr(b as u32 & 63)),
            UShr => Value::Int(((a as u64) >> (b as u32 & 63)) as i64),
            BitAnd => Value::Int(a & b),
            BitOr => Value::Int(a | b),
            BitXor => Value::Int(a ^ b),
            Lt => Value::Bool(a < b),
            Le => Value::Bool(a <= b),
            Gt => Value::Bool(a > b),
            Ge => Value::Bool(a >= b),
            Eq | Ne | RefEq | RefNe => unreachable!("handled above"),
        });
    }
    if let (Value::Date(a), Value::Date(b)) = (&l, &r) {
        if matches!(op, Lt | Le | Gt | Ge) {
            return Ok(Value::Bool(match op {
                Lt => a < b,
                Le => a <= b,
                Gt => a > b,
                _ => a >= b,
            }));
        }
    }
    let (Some(a), Some(b)) = (num(&l), num(&r)) else {
        return Err(refuse(it, symbol, &l, &r, span));
    };
    Ok(match op {
        Add => Value::Double(a + b),
        Sub => Value::Double(a - b),
        Mul => Value::Double(a * b),
        Div => Value::Double(a / b),
        Rem => Value::Double(a % b),
        Lt => Value::Bool(a < b),
        Le => Value::Bool(a <= b),
        Gt => Value::Bool(a > b),
        Ge => Value::Bool(a >= b),
        _ => return Err(refuse(it, symbol, &l, &r, span)),
    })
}

/// `===`: the same list or map, or equal primitives.
fn same(l: &Value, r: &Value) -> bool {
    match (l, r) {
        (Value::Str(a), Value::Str(b)) => std::rc::Rc::ptr_eq(a, b) || a == b,
        _ => l == r,
    }
}

fn symbol(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Rem => "%",
        Shl => "<<",
        Shr => ">>",
        UShr => ">>>",
        BitAnd => "&",
        BitOr => "|",
        BitXor => "^",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        Eq => "==",
        Ne => "!=",
        RefEq => "===",
        RefNe => "!==",
    }
}

/// A unary operator.
pub fn unary(it: &mut Interp<'_>, op: UnOp, v: Value, span: Span) -> Run<Value> {
    Ok(match (op, &v) {
        (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
        (UnOp::Neg, Value::Int(n)) => Value::Int(n.wrapping_neg()),
        (UnOp::Neg, Value::Double(f)) => Value::Double(-f),
        (UnOp::Plus, Value::Int(_) | Value::Double(_)) => v,
        (UnOp::BitNot, Value::Int(n)) => Value::Int(!n),
        (_, Value::Null) => {
            return Err(it.fail(
                span,
                "null_pointer_exception",
                "cannot apply a unary operator to a null value",
            ))
        }
        _ => {
            return Err(it.fail(
                span,
                "class_cast_exception",
                format!(
                    "Cannot apply a unary operator to type [{}].",
                    class_name(&v)
                ),
            ))
        }
    })
}

/// An explicit cast.
pub fn cast(it: &mut Interp<'_>, ty: Ty, v: Value, span: Span) -> Run<Value> {
    match (ty, &v) {
        // Java's narrowing: truncation toward zero, NaN to 0, saturating.
        (Ty::Integer, Value::Double(f)) => Ok(Value::Int(*f as i64)),
        (Ty::Floating, Value::Int(n)) => Ok(Value::Double(*n as f64)),
        _ => it.coerce(ty, v, span),
    }
}

/// `x instanceof T`.
pub fn instance_of(v: &Value, class: &str) -> bool {
    match class {
        "def" | "Object" => *v != Value::Null,
        "Number" => matches!(v, Value::Int(_) | Value::Double(_)),
        "int" | "long" | "Integer" | "Long" | "short" | "byte" | "Short" | "Byte" => {
            matches!(v, Value::Int(_))
        }
        "double" | "float" | "Double" | "Float" => matches!(v, Value::Double(_)),
        "boolean" | "Boolean" => matches!(v, Value::Bool(_)),
        "String" | "CharSequence" => matches!(v, Value::Str(_)),
        "List" | "ArrayList" | "Collection" | "Iterable" => matches!(v, Value::List(_)),
        "Map" | "HashMap" => matches!(v, Value::Map(_)),
        "ZonedDateTime" => matches!(v, Value::Date(_)),
        _ => false,
    }
}
