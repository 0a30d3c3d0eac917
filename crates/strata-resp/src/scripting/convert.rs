//! Conversions between replies and Lua values, as Redis 7 makes them.
//!
//! Reply to Lua (`redis.call`'s result): integer → number, bulk → string,
//! RESP2 null → `false`, array → table, status → `{ok = text}`, error →
//! `{err = text}`; after `redis.setresp(3)` also RESP3's types: null →
//! `nil`, boolean → boolean, double → `{double = n}`, big number →
//! `{big_number = digits}`, verbatim → `{verbatim_string = {format =,
//! string =}}`, map → `{map = {k = v}}`, set → `{set = {member = true}}`
//! (attributes are skipped). Lua to reply (a script's result): number →
//! integer (truncated), string → bulk, `true` → 1 and `false`/`nil` →
//! null (after `setresp(3)`: booleans), a table with `err`, `ok`,
//! `double`, `big_number`, `verbatim_string`, `map` or `set` → that reply
//! (RESP2 callers get Redis's RESP2 forms), otherwise an array up to the
//! first `nil`. Both directions stop at [`MAX_DEPTH`] levels (a table may
//! contain itself).

use mlua::{Lua, Table, Value};

use super::errors::counts_already;
use crate::writer::{ReplyWriter, RespVersion};

/// Deepest nesting converted either way.
pub const MAX_DEPTH: usize = 64;

/// Parses the one RESP2 or RESP3 reply in `bytes` (written by the command
/// table's handlers) into a Lua value.
pub fn reply_to_lua(lua: &Lua, bytes: &[u8]) -> mlua::Result<Value> {
    let mut pos = 0;
    parse(lua, bytes, &mut pos, 0)
}

fn line<'a>(bytes: &'a [u8], pos: &mut usize) -> mlua::Result<&'a [u8]> {
    let rest = bytes.get(*pos..).unwrap_or_default();
    let end = memchr::memmem::find(rest, b"\r\n")
        .ok_or_else(|| mlua::Error::runtime("malformed reply"))?;
    *pos += end + 2;
    Ok(&rest[..end])
}

fn number(text: &[u8]) -> mlua::Result<i64> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| mlua::Error::runtime("malformed reply"))
}

fn parse(lua: &Lua, bytes: &[u8], pos: &mut usize, depth: usize) -> mlua::Result<Value> {
    if depth > MAX_DEPTH {
        return Err(mlua::Error::runtime("reply nested too deeply"));
    }
    let kind = *bytes
        .get(*pos)
        .ok_or_else(|| mlua::Error::runtime("malformed reply"))?;
    *pos += 1;
    let text = line(bytes, pos)?;
    Ok(match kind {
        b':' => Value::Number(number(text)? as f64),
        b'+' => {
            let table = lua.create_table()?;
            table.raw_set("ok", lua.create_string(text)?)?;
            Value::Table(table)
        }
        b'-' => {
            let table = lua.create_table()?;
            table.raw_set("err", lua.create_string(text)?)?;
            Value::Table(table)
        }
        b'$' => {
            let len = number(text)?;
            let Ok(len) = usize::try_from(len) else {
                return Ok(Value::Boolean(false));
            };
            let data = bytes
                .get(*pos..*pos + len)
                .ok_or_else(|| mlua::Error::runtime("malformed reply"))?;
            *pos += len + 2;
            Value::String(lua.create_string(data)?)
        }
        b'*' => {
            let len = number(text)?;
            let Ok(len) = usize::try_from(len) else {
                return Ok(Value::Boolean(false));
            };
            let table = lua.create_table_with_capacity(len.min(1 << 16), 0)?;
            for i in 1..=len {
                table.raw_set(i, parse(lua, bytes, pos, depth + 1)?)?;
            }
            Value::Table(table)
        }
        b'_' => Value::Nil,
        b'#' => Value::Boolean(text == b"t"),
        b',' => {
            let n = strata_float::parse_double(text)
                .or_else(|| std::str::from_utf8(text).ok()?.parse().ok())
                .ok_or_else(|| mlua::Error::runtime("malformed reply"))?;
            typed(lua, "double", Value::Number(n))?
        }
        b'(' => typed(lua, "big_number", Value::String(lua.create_string(text)?))?,
        b'=' => {
            let len = usize::try_from(number(text)?)
                .map_err(|_| mlua::Error::runtime("malformed reply"))?;
            let data = bytes
                .get(*pos..*pos + len)
                .ok_or_else(|| mlua::Error::runtime("malformed reply"))?;
            *pos += len + 2;
            let (format, body) = data.split_at(len.min(3));
            let verbatim = lua.create_table()?;
            verbatim.raw_set("format", lua.create_string(format)?)?;
            verbatim.raw_set(
                "string",
                lua.create_string(body.get(1..).unwrap_or_default())?,
            )?;
            typed(lua, "verbatim_string", Value::Table(verbatim))?
        }
        b'%' | b'|' | b'~' => {
            let len = usize::try_from(number(text)?)
                .map_err(|_| mlua::Error::runtime("malformed reply"))?;
            let table = lua.create_table()?;
            for _ in 0..len {
                let key = parse(lua, bytes, pos, depth + 1)?;
                let value = match kind {
                    b'~' => Value::Boolean(true),
                    _ => parse(lua, bytes, pos, depth + 1)?,
                };
                if !key.is_nil() {
                    table.raw_set(key, value)?;
                }
            }
            match kind {
                // Attributes describe the reply that follows: that is the value.
                b'|' => return parse(lua, bytes, pos, depth),
                b'~' => typed(lua, "set", Value::Table(table))?,
                _ => typed(lua, "map", Value::Table(table))?,
            }
        }
        _ => return Err(mlua::Error::runtime("malformed reply")),
    })
}

/// `{field = value}`: how Redis hands a script RESP3's typed replies.
fn typed(lua: &Lua, field: &str, value: Value) -> mlua::Result<Value> {
    let table = lua.create_table()?;
    table.raw_set(field, value)?;
    Ok(Value::Table(table))
}

/// Writes a script's result as a reply; booleans as `resp` (the script's
/// `redis.setresp`) has them. False if it nests past [`MAX_DEPTH`]
/// (nothing sensible was written then: the caller rolls back).
pub fn lua_to_reply(
    value: &Value,
    out: &mut ReplyWriter<'_>,
    resp: RespVersion,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match value {
        Value::Nil => out.null(),
        Value::Boolean(b) if resp == RespVersion::Resp3 => out.boolean(*b),
        Value::Boolean(false) => out.null(),
        Value::Boolean(true) => out.integer(1),
        Value::Integer(n) => out.integer(*n),
        // C's cast on x86-64, as Redis makes it: out of range (or NaN) is
        // i64::MIN, not saturated.
        Value::Number(n) if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(n) => {
            out.integer(*n as i64)
        }
        Value::Number(_) => out.integer(i64::MIN),
        Value::String(s) => out.bulk(&s.as_bytes()),
        Value::Table(table) => return table_to_reply(table, out, resp, depth),
        _ => out.null(),
    }
    true
}

fn table_to_reply(
    table: &Table,
    out: &mut ReplyWriter<'_>,
    resp: RespVersion,
    depth: usize,
) -> bool {
    let field = |name: &str| table.raw_get::<Value>(name).unwrap_or(Value::Nil);
    if let Value::String(err) = field("err") {
        let text = String::from_utf8_lossy(&err.as_bytes()).into_owned();
        // A failed command's error (a `redis.pcall` result) was counted
        // when it failed.
        match counts_already(table) {
            true => out.error_uncounted(&text),
            false => out.error(&text),
        }
        return true;
    }
    if let Value::String(ok) = field("ok") {
        out.simple(&String::from_utf8_lossy(&ok.as_bytes()));
        return true;
    }
    match field("double") {
        Value::Number(n) => return write(out, |out| out.double(n)),
        Value::Integer(n) => return write(out, |out| out.double(n as f64)),
        _ => {}
    }
    if let Value::String(digits) = field("big_number") {
        // Redis keeps the reply well formed: line breaks become spaces.
        let digits = String::from_utf8_lossy(&digits.as_bytes()).replace(['\r', '\n'], " ");
        return write(out, |out| out.big_number(&digits));
    }
    if let Value::Table(verbatim) = field("verbatim_string") {
        let format = verbatim.raw_get::<Value>("format").unwrap_or(Value::Nil);
        let text = verbatim.raw_get::<Value>("string").unwrap_or(Value::Nil);
        if let (Value::String(format), Value::String(text)) = (format, text) {
            let format = String::from_utf8_lossy(&format.as_bytes()).into_owned();
            if format.len() == 3 {
                return write(out, |out| out.verbatim(&format, &text.as_bytes()));
            }
        }
    }
    if let Value::Table(map) = field("map") {
        let pairs: Vec<(Value, Value)> = map.pairs().filter_map(Result::ok).collect();
        out.map(pairs.len());
        return pairs.iter().all(|(key, value)| {
            lua_to_reply(key, out, resp, depth + 1) && lua_to_reply(value, out, resp, depth + 1)
        });
    }
    if let Value::Table(set) = field("set") {
        let members: Vec<Value> = set
            .pairs::<Value, Value>()
            .filter_map(|pair| pair.ok().map(|(member, _)| member))
            .collect();
        out.set(members.len());
        return members
            .iter()
            .all(|member| lua_to_reply(member, out, resp, depth + 1));
    }
    let mut items = Vec::new();
    for i in 1.. {
        match table.raw_get::<Value>(i) {
            Ok(Value::Nil) | Err(_) => break,
            Ok(item) => items.push(item),
        }
    }
    out.array(items.len());
    items
        .iter()
        .all(|item| lua_to_reply(item, out, resp, depth + 1))
}

fn write(out: &mut ReplyWriter<'_>, reply: impl FnOnce(&mut ReplyWriter<'_>)) -> bool {
    reply(out);
    true
}
