//! Methods of `java.lang.String`: lengths, searches, substrings (by
//! character, as Java counts them), case, trimming, splitting.

use super::args::{arity, int_arg, str_arg};
use crate::ast::Span;
use crate::interp::{Interp, Run};
use crate::value::Value;

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

/// The methods of `java.lang.String` scripts call.
pub(super) fn string_method(
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
