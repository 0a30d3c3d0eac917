//! Values and replies as the debugger prints them, in Redis's words: a
//! Lua value as `ldbCatStackValue` writes it (strings quoted and escaped,
//! numbers as `%g`, tables as `{1; 2}` or `{[k]=v; ...}`, nested at most
//! [`MAX_DEPTH`] deep), and a command's reply as `ldbRedisProtocolToHuman`
//! does (`[1,"a"]`, `{k => v}`, `~(..)`, `#true`, `(double) 1.5`, ...).

use mlua::Value;

use crate::monitor::line::push_repr;
use crate::number::format_g;

/// Levels of nested tables shown (Redis's `LUA_MINSTACK / 2`).
const MAX_DEPTH: usize = 10;

/// Levels of nested replies shown (a reply never nests this deep but
/// through the `lua stack limit` a script cannot pass).
const MAX_REPLY_DEPTH: usize = 64;

/// Appends `value` as the debugger shows it.
pub(super) fn push_value(out: &mut Vec<u8>, value: &Value) {
    push_value_at(out, value, 0);
}

fn push_value_at(out: &mut Vec<u8>, value: &Value, level: usize) {
    if level == MAX_DEPTH {
        out.extend_from_slice(b"<max recursion level reached! Nested table?>");
        return;
    }
    match value {
        Value::String(s) => push_repr(out, &s.as_bytes()),
        Value::Boolean(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Integer(n) => out.extend_from_slice(format_g(*n as f64, 6).as_bytes()),
        Value::Number(n) => out.extend_from_slice(format_g(*n, 6).as_bytes()),
        Value::Nil => out.extend_from_slice(b"nil"),
        Value::Table(table) => {
            // Both shapes at once, as the order of `next` decides which.
            let (mut array, mut map) = (Vec::new(), Vec::new());
            let mut expected = 1.0;
            let mut is_array = true;
            for pair in table.clone().pairs::<Value, Value>() {
                let Ok((key, item)) = pair else { break };
                let index = match key {
                    Value::Integer(n) => Some(n as f64),
                    Value::Number(n) => Some(n),
                    _ => None,
                };
                if is_array && index != Some(expected) {
                    is_array = false;
                }
                if !array.is_empty() {
                    array.extend_from_slice(b"; ");
                    map.extend_from_slice(b"; ");
                }
                push_value_at(&mut array, &item, level + 1);
                map.push(b'[');
                push_value_at(&mut map, &key, level + 1);
                map.extend_from_slice(b"]=");
                push_value_at(&mut map, &item, level + 1);
                expected += 1.0;
            }
            out.push(b'{');
            out.extend_from_slice(if is_array { &array } else { &map });
            out.push(b'}');
        }
        other => {
            let kind = match other {
                Value::Function(_) => "function",
                Value::UserData(_) => "userdata",
                Value::Thread(_) => "thread",
                Value::LightUserData(_) => "light-userdata",
                _ => "unknown",
            };
            out.extend_from_slice(format!("\"{kind}@{:p}\"", other.to_pointer()).as_bytes());
        }
    }
}

/// Appends the RESP reply at the front of `reply` as the debugger shows
/// it; the bytes it took (`None`: not a whole reply, shown as far as read).
pub(super) fn push_reply(out: &mut Vec<u8>, reply: &[u8]) -> Option<usize> {
    push_reply_at(out, reply, 0)
}

fn push_reply_at(out: &mut Vec<u8>, reply: &[u8], depth: usize) -> Option<usize> {
    if depth == MAX_REPLY_DEPTH {
        out.extend_from_slice(b"...");
        return None;
    }
    let end = reply.windows(2).position(|w| w == b"\r\n")?;
    let (kind, line) = (*reply.first()?, &reply[1..end]);
    let after_line = end + 2;
    let count = || std::str::from_utf8(line).ok()?.parse::<i64>().ok();
    match kind {
        b':' => out.extend_from_slice(line),
        b'+' | b'-' => push_repr(out, &reply[..end]),
        b'$' => {
            let Some(len) = count().and_then(|n| usize::try_from(n).ok()) else {
                out.extend_from_slice(b"NULL");
                return Some(after_line);
            };
            let body = reply.get(after_line..after_line + len)?;
            push_repr(out, body);
            return Some(after_line + len + 2);
        }
        b'_' => out.extend_from_slice(b"(null)"),
        b'#' => out.extend_from_slice(if line == b"t" { b"#true" } else { b"#false" }),
        b',' => {
            out.extend_from_slice(b"(double) ");
            out.extend_from_slice(line);
        }
        b'*' | b'~' | b'%' => {
            let Some(n) = count().and_then(|n| usize::try_from(n).ok()) else {
                out.extend_from_slice(b"NULL");
                return Some(after_line);
            };
            let (open, close): (&[u8], &[u8]) = match kind {
                b'*' => (b"[", b"]"),
                b'~' => (b"~(", b")"),
                _ => (b"{", b"}"),
            };
            out.extend_from_slice(open);
            let mut at = after_line;
            for i in 0..n {
                at += push_reply_at(out, &reply[at..], depth + 1)?;
                if kind == b'%' {
                    out.extend_from_slice(b" => ");
                    at += push_reply_at(out, &reply[at..], depth + 1)?;
                }
                if i + 1 != n {
                    out.push(b',');
                }
            }
            out.extend_from_slice(close);
            return Some(at);
        }
        _ => out.extend_from_slice(&reply[..end]),
    }
    Some(after_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(bytes: &[u8]) -> String {
        let mut out = Vec::new();
        assert_eq!(push_reply(&mut out, bytes), Some(bytes.len()), "all read");
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn replies_read_as_ldb_shows_them() {
        assert_eq!(reply(b"+OK\r\n"), "\"+OK\"");
        assert_eq!(reply(b"-ERR no\r\n"), "\"-ERR no\"");
        assert_eq!(reply(b":12\r\n"), "12");
        assert_eq!(reply(b"$-1\r\n"), "NULL");
        assert_eq!(reply(b"$3\r\na\nb\r\n"), "\"a\\nb\"");
        assert_eq!(reply(b"*2\r\n$1\r\na\r\n:1\r\n"), "[\"a\",1]");
        assert_eq!(reply(b"*-1\r\n"), "NULL");
        assert_eq!(
            reply(b"%1\r\n$1\r\nk\r\n,1.5\r\n"),
            "{\"k\" => (double) 1.5}"
        );
        assert_eq!(reply(b"~1\r\n#t\r\n"), "~(#true)");
        assert_eq!(reply(b"_\r\n"), "(null)");
    }

    #[test]
    fn values_read_as_ldb_shows_them() {
        let lua = mlua::Lua::new();
        let show = |code: &str| {
            let value: Value = lua.load(code).eval().unwrap();
            let mut out = Vec::new();
            push_value(&mut out, &value);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(show("'a\"b'"), "\"a\\\"b\"");
        assert_eq!(show("1/3"), "0.333333");
        assert_eq!(show("10"), "10");
        assert_eq!(show("nil"), "nil");
        assert_eq!(show("{1, 'x', true}"), "{1; \"x\"; true}");
        assert_eq!(show("{a = 1}"), "{[\"a\"]=1}");
        assert_eq!(show("{}"), "{}");
        let nested = show("local t = {} t[1] = t return t");
        assert!(
            nested.ends_with("<max recursion level reached! Nested table?>}}}}}}}}}}"),
            "{nested}"
        );
        assert!(
            show("print").starts_with("\"function@0x"),
            "{}",
            show("print")
        );
    }
}
