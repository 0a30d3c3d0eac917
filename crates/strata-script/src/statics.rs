//! Static members of the classes scripts use: `Math`, the boxed number
//! classes' parsing and limits, `String.valueOf`/`join`, `Boolean`,
//! `Collections.sort`/`reverse`.

use crate::ast::Span;
use crate::interp::{Interp, Run};
use crate::ops::to_java_string;
use crate::value::{class_name, Value};

/// `Class.NAME`.
pub fn field(it: &mut Interp<'_>, class: &str, name: &str, span: Span) -> Run<Value> {
    Ok(match (class, name) {
        ("Math", "PI") => Value::Double(std::f64::consts::PI),
        ("Math", "E") => Value::Double(std::f64::consts::E),
        ("Integer", "MAX_VALUE") => Value::Int(i64::from(i32::MAX)),
        ("Integer", "MIN_VALUE") => Value::Int(i64::from(i32::MIN)),
        ("Long", "MAX_VALUE") => Value::Int(i64::MAX),
        ("Long", "MIN_VALUE") => Value::Int(i64::MIN),
        ("Double", "MAX_VALUE") => Value::Double(f64::MAX),
        ("Double", "MIN_VALUE") => Value::Double(f64::from_bits(1)),
        ("Double" | "Float", "POSITIVE_INFINITY") => Value::Double(f64::INFINITY),
        ("Double" | "Float", "NEGATIVE_INFINITY") => Value::Double(f64::NEG_INFINITY),
        ("Double" | "Float", "NaN") => Value::Double(f64::NAN),
        ("Float", "MAX_VALUE") => Value::Double(f64::from(f32::MAX)),
        _ => {
            return Err(it.fail(
                span,
                "illegal_argument_exception",
                format!("static field [{class}, {name}] not found"),
            ))
        }
    })
}

fn f(v: &Value) -> Option<f64> {
    match v {
        Value::Int(n) => Some(*n as f64),
        Value::Double(x) => Some(*x),
        _ => None,
    }
}

/// `Class.name(args)`.
pub fn call(
    it: &mut Interp<'_>,
    class: &str,
    name: &str,
    args: Vec<Value>,
    span: Span,
) -> Run<Value> {
    let missing = |it: &Interp<'_>| {
        it.fail(
            span,
            "illegal_argument_exception",
            format!("static method [{class}, {name}/{}] not found", args.len()),
        )
    };
    if args.contains(&Value::Null) && class != "String" {
        return Err(it.fail(
            span,
            "null_pointer_exception",
            format!("[{class}.{name}] got a null argument"),
        ));
    }
    match class {
        "Math" => math(it, name, &args, span).ok_or_else(|| missing(it))?,
        "Integer" | "Long" => match (name, args.as_slice()) {
            ("parseInt" | "parseLong" | "valueOf", [Value::Str(s)]) => s
                .trim_start_matches('+')
                .parse::<i64>()
                .map(Value::Int)
                .map_err(|_| {
                    it.fail(
                        span,
                        "number_format_exception",
                        format!("For input string: \"{s}\""),
                    )
                }),
            ("valueOf", [Value::Int(n)]) => Ok(Value::Int(*n)),
            ("toString", [v]) => {
                let t = to_java_string(&it.heap, v);
                it.heap.string(t).map_err(it.budget(span))
            }
            ("max", [Value::Int(a), Value::Int(b)]) => Ok(Value::Int(*a.max(b))),
            ("min", [Value::Int(a), Value::Int(b)]) => Ok(Value::Int(*a.min(b))),
            ("compare", [Value::Int(a), Value::Int(b)]) => Ok(Value::Int(a.cmp(b) as i64)),
            ("signum", [Value::Int(a)]) => Ok(Value::Int(a.signum())),
            _ => Err(missing(it)),
        },
        "Double" | "Float" => match (name, args.as_slice()) {
            ("parseDouble" | "parseFloat" | "valueOf", [Value::Str(s)]) => {
                s.trim().parse::<f64>().map(Value::Double).map_err(|_| {
                    it.fail(
                        span,
                        "number_format_exception",
                        format!("For input string: \"{s}\""),
                    )
                })
            }
            ("valueOf", [v]) => f(v).map(Value::Double).ok_or_else(|| missing(it)),
            ("isNaN", [v]) => Ok(Value::Bool(f(v).is_some_and(f64::is_nan))),
            ("isInfinite", [v]) => Ok(Value::Bool(f(v).is_some_and(f64::is_infinite))),
            ("isFinite", [v]) => Ok(Value::Bool(f(v).is_some_and(f64::is_finite))),
            ("compare", [a, b]) => match (f(a), f(b)) {
                (Some(a), Some(b)) => Ok(Value::Int(a.total_cmp(&b) as i64)),
                _ => Err(missing(it)),
            },
            ("toString", [v]) => {
                let t = to_java_string(&it.heap, v);
                it.heap.string(t).map_err(it.budget(span))
            }
            _ => Err(missing(it)),
        },
        "Boolean" => match (name, args.as_slice()) {
            ("parseBoolean", [Value::Str(s)]) => Ok(Value::Bool(s.eq_ignore_ascii_case("true"))),
            ("valueOf", [Value::Bool(b)]) => Ok(Value::Bool(*b)),
            ("toString", [Value::Bool(b)]) => {
                it.heap.string(b.to_string()).map_err(it.budget(span))
            }
            _ => Err(missing(it)),
        },
        "String" => match (name, args.as_slice()) {
            ("valueOf", [v]) => {
                let t = to_java_string(&it.heap, v);
                it.heap.string(t).map_err(it.budget(span))
            }
            ("join", [Value::Str(sep), Value::List(id)]) => {
                let parts: Vec<String> = it
                    .heap
                    .list(*id)
                    .iter()
                    .map(|v| to_java_string(&it.heap, v))
                    .collect();
                it.heap.string(parts.join(sep)).map_err(it.budget(span))
            }
            _ => Err(missing(it)),
        },
        "Character" => match (name, args.as_slice()) {
            (
                "isDigit" | "isLetter" | "isWhitespace" | "isUpperCase" | "isLowerCase",
                [Value::Str(s)],
            ) => {
                let c = s.chars().next().unwrap_or('\0');
                Ok(Value::Bool(match name {
                    "isDigit" => c.is_ascii_digit(),
                    "isLetter" => c.is_alphabetic(),
                    "isWhitespace" => c.is_whitespace(),
                    "isUpperCase" => c.is_uppercase(),
                    _ => c.is_lowercase(),
                }))
            }
            _ => Err(missing(it)),
        },
        "MovingFunctions" => match args.split_first() {
            Some((Value::List(id), rest)) => {
                let values: Vec<f64> = it.heap.list(*id).iter().filter_map(f).collect();
                let rest: Option<Vec<f64>> = rest.iter().map(f).collect();
                rest.and_then(|rest| crate::moving_functions::call(name, &values, &rest))
                    .map(Value::Double)
                    .ok_or_else(|| missing(it))
            }
            _ => Err(missing(it)),
        },
        "Collections" => match (name, args.as_slice()) {
            ("sort", [Value::List(id)]) => {
                crate::methods::sort_list(it, *id, span)?;
                Ok(Value::Null)
            }
            ("reverse", [Value::List(id)]) => {
                it.heap.list_mut(*id).reverse();
                Ok(Value::Null)
            }
            ("max" | "min", [Value::List(id)]) => {
                let list = it.heap.list(*id);
                let best = list
                    .iter()
                    .filter_map(|v| f(v).map(|x| (x, v)))
                    .reduce(|a, b| {
                        let keep_a = if name == "max" {
                            a.0 >= b.0
                        } else {
                            a.0 <= b.0
                        };
                        if keep_a {
                            a
                        } else {
                            b
                        }
                    });
                match best {
                    Some((_, v)) if !list.is_empty() => Ok(v.clone()),
                    _ => Err(it.fail(
                        span,
                        "no_such_element_exception",
                        "the collection is empty or not numeric",
                    )),
                }
            }
            _ => Err(missing(it)),
        },
        _ => Err(missing(it)),
    }
}

fn math(it: &Interp<'_>, name: &str, args: &[Value], span: Span) -> Option<Run<Value>> {
    // Integer forms that stay integers in Java.
    match (name, args) {
        ("abs", [Value::Int(n)]) => return Some(Ok(Value::Int(n.wrapping_abs()))),
        ("max", [Value::Int(a), Value::Int(b)]) => return Some(Ok(Value::Int(*a.max(b)))),
        ("min", [Value::Int(a), Value::Int(b)]) => return Some(Ok(Value::Int(*a.min(b)))),
        ("floorDiv" | "floorMod", [Value::Int(a), Value::Int(b)]) => {
            if *b == 0 {
                return Some(Err(it.fail(span, "arithmetic_exception", "/ by zero")));
            }
            let q = a.wrapping_div(*b);
            let q = if a.wrapping_rem(*b) != 0 && ((*a < 0) != (*b < 0)) {
                q - 1
            } else {
                q
            };
            let v = if name == "floorDiv" {
                q
            } else {
                a.wrapping_sub(q.wrapping_mul(*b))
            };
            return Some(Ok(Value::Int(v)));
        }
        ("random", []) => return Some(Ok(Value::Double(random_unit()))),
        _ => {}
    }
    let nums: Option<Vec<f64>> = args.iter().map(f).collect();
    let Some(nums) = nums else {
        let bad = args
            .iter()
            .find(|a| f(a).is_none())
            .map_or("null", class_name);
        return Some(Err(it.fail(
            span,
            "class_cast_exception",
            format!("Cannot cast {bad} to java.lang.Number"),
        )));
    };
    let v = match (name, nums.as_slice()) {
        ("abs", [x]) => x.abs(),
        ("max", [a, b]) => a.max(*b),
        ("min", [a, b]) => a.min(*b),
        ("pow", [a, b]) => a.powf(*b),
        ("sqrt", [x]) => x.sqrt(),
        ("cbrt", [x]) => x.cbrt(),
        ("log", [x]) => x.ln(),
        ("log10", [x]) => x.log10(),
        ("log1p", [x]) => x.ln_1p(),
        ("exp", [x]) => x.exp(),
        ("expm1", [x]) => x.exp_m1(),
        ("floor", [x]) => x.floor(),
        ("ceil", [x]) => x.ceil(),
        ("rint", [x]) => x.round_ties_even(),
        ("round", [x]) => return Some(Ok(Value::Int((x + 0.5).floor() as i64))),
        ("signum", [x]) => {
            if *x == 0.0 || x.is_nan() {
                *x
            } else {
                x.signum()
            }
        }
        ("sin", [x]) => x.sin(),
        ("cos", [x]) => x.cos(),
        ("tan", [x]) => x.tan(),
        ("asin", [x]) => x.asin(),
        ("acos", [x]) => x.acos(),
        ("atan", [x]) => x.atan(),
        ("atan2", [y, x]) => y.atan2(*x),
        ("sinh", [x]) => x.sinh(),
        ("cosh", [x]) => x.cosh(),
        ("tanh", [x]) => x.tanh(),
        ("hypot", [a, b]) => a.hypot(*b),
        ("toRadians", [x]) => x.to_radians(),
        ("toDegrees", [x]) => x.to_degrees(),
        _ => return None,
    };
    Some(Ok(Value::Double(v)))
}

/// A uniform double in [0, 1) from the standard library's random hash keys.
fn random_unit() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(0);
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}
