//! Conversions between replies and Lua values, as Redis makes them.
//!
//! Reply to Lua (`redis.call`'s result): integer → number, bulk → string,
//! null → `false`, array → table, status → `{ok = text}`, error →
//! `{err = text}`. Lua to reply (a script's result): number → integer
//! (truncated), string → bulk, `true` → 1, `false`/`nil` → null, table →
//! `{ok}` status, `{err}` error, otherwise an array up to the first `nil`.
//! Both directions stop at [`MAX_DEPTH`] levels (a table may contain
//! itself).

use mlua::{Lua, Table, Value};

use crate::writer::ReplyWriter;

/// Deepest nesting converted either way.
pub const MAX_DEPTH: usize = 64;

/// Parses the one RESP2 reply in `bytes` (written by the command table's
/// handlers) into a Lua value.
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
        _ => return Err(mlua::Error::runtime("malformed reply")),
    })
}

/// Writes a script's result as a reply; false if it nests past
/// [`MAX_DEPTH`] (nothing sensible was written then: the caller rolls back).
pub fn lua_to_reply(value: &Value, out: &mut ReplyWriter<'_>, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match value {
        Value::Nil | Value::Boolean(false) => out.null(),
        Value::Boolean(true) => out.integer(1),
        Value::Integer(n) => out.integer(*n),
        Value::Number(n) => out.integer(*n as i64),
        Value::String(s) => out.bulk(&s.as_bytes()),
        Value::Table(table) => return table_to_reply(table, out, depth),
        _ => out.null(),
    }
    true
}

fn table_to_reply(table: &Table, out: &mut ReplyWriter<'_>, depth: usize) -> bool {
    if let Ok(Value::String(err)) = table.raw_get::<Value>("err") {
        out.error(&String::from_utf8_lossy(&err.as_bytes()));
        return true;
    }
    if let Ok(Value::String(ok)) = table.raw_get::<Value>("ok") {
        out.simple(&String::from_utf8_lossy(&ok.as_bytes()));
        return true;
    }
    let mut items = Vec::new();
    for i in 1.. {
        match table.raw_get::<Value>(i) {
            Ok(Value::Nil) | Err(_) => break,
            Ok(item) => items.push(item),
        }
    }
    out.array(items.len());
    items.iter().all(|item| lua_to_reply(item, out, depth + 1))
}
