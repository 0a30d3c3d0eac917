//! `cjson.encode`: a Lua value as JSON text, byte for byte as lua-cjson
//! 2.1.0 writes it (see the parent module). The text is bounded by the
//! script memory limit (tables shared many times over could otherwise
//! spell out far more than the script holds).

use mlua::{Table, Value};

use super::config::{Config, InvalidNumbers, MAX_NESTING};
use crate::number::format_g;
use crate::scripting::SCRIPT_MEMORY_LIMIT;

/// `value` as JSON.
pub(super) fn encode(value: &Value, config: &Config) -> mlua::Result<Vec<u8>> {
    let mut encoder = Encoder {
        config,
        out: Vec::new(),
    };
    encoder.value(value, 0)?;
    Ok(encoder.out)
}

struct Encoder<'a> {
    config: &'a Config,
    out: Vec<u8>,
}

fn error(text: String) -> mlua::Error {
    mlua::Error::runtime(text)
}

/// Lua's name of a value's type, as lua-cjson's errors give it.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::Thread(_) => "thread",
        _ => "userdata",
    }
}

/// A positive integral key: its array index.
fn array_index(key: &Value) -> Option<i64> {
    match key {
        Value::Integer(i) if *i >= 1 => Some(*i),
        Value::Number(n) if n.floor() == *n && *n >= 1.0 => Some(*n as i64),
        _ => None,
    }
}

impl Encoder<'_> {
    fn bounded(&self) -> mlua::Result<()> {
        match self.out.len() > SCRIPT_MEMORY_LIMIT {
            true => Err(error(format!(
                "Cannot serialise: JSON text longer than {SCRIPT_MEMORY_LIMIT} bytes"
            ))),
            false => Ok(()),
        }
    }

    fn value(&mut self, value: &Value, depth: i64) -> mlua::Result<()> {
        match value {
            Value::Nil => self.out.extend_from_slice(b"null"),
            Value::LightUserData(p) if p.0.is_null() => self.out.extend_from_slice(b"null"),
            Value::Boolean(b) => self
                .out
                .extend_from_slice(if *b { b"true" } else { b"false" }),
            Value::Integer(n) => self.number(*n as f64)?,
            Value::Number(n) => self.number(*n)?,
            Value::String(s) => self.string(&s.as_bytes()),
            Value::Table(t) => self.table(t, depth + 1)?,
            other => {
                return Err(error(format!(
                    "Cannot serialise {}: type not supported",
                    type_name(other)
                )))
            }
        }
        self.bounded()
    }

    fn number(&mut self, n: f64) -> mlua::Result<()> {
        if !n.is_finite() {
            match self.config.invalid_numbers {
                InvalidNumbers::Refuse => {
                    return Err(error(
                        "Cannot serialise number: must not be NaN or Inf".into(),
                    ))
                }
                InvalidNumbers::Null => self.out.extend_from_slice(b"null"),
                InvalidNumbers::Write if n.is_nan() => self.out.extend_from_slice(b"nan"),
                InvalidNumbers::Write if n > 0.0 => self.out.extend_from_slice(b"inf"),
                InvalidNumbers::Write => self.out.extend_from_slice(b"-inf"),
            }
            return Ok(());
        }
        self.out
            .extend_from_slice(format_g(n, self.config.precision).as_bytes());
        Ok(())
    }

    fn string(&mut self, bytes: &[u8]) {
        self.out.reserve(bytes.len() + 2);
        self.out.push(b'"');
        for &b in bytes {
            match b {
                b'"' => self.out.extend_from_slice(b"\\\""),
                b'\\' => self.out.extend_from_slice(b"\\\\"),
                b'/' => self.out.extend_from_slice(b"\\/"),
                0x08 => self.out.extend_from_slice(b"\\b"),
                b'\t' => self.out.extend_from_slice(b"\\t"),
                b'\n' => self.out.extend_from_slice(b"\\n"),
                0x0c => self.out.extend_from_slice(b"\\f"),
                b'\r' => self.out.extend_from_slice(b"\\r"),
                0..=0x1f | 0x7f => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.out.extend_from_slice(b"\\u00");
                    self.out.push(HEX[usize::from(b >> 4)]);
                    self.out.push(HEX[usize::from(b & 15)]);
                }
                _ => self.out.push(b),
            }
        }
        self.out.push(b'"');
    }

    fn table(&mut self, table: &Table, depth: i64) -> mlua::Result<()> {
        if depth > self.config.encode_max_depth.min(MAX_NESTING) {
            return Err(error(format!(
                "Cannot serialise, excessive nesting ({depth})"
            )));
        }
        match self.array_length(table)? {
            Some(len) if len > 0 => {
                self.out.push(b'[');
                for i in 1..=len {
                    if i > 1 {
                        self.out.push(b',');
                    }
                    let item: Value = table.raw_get(i)?;
                    self.value(&item, depth)?;
                }
                self.out.push(b']');
            }
            _ => {
                self.out.push(b'{');
                let mut first = true;
                for pair in table.pairs::<Value, Value>() {
                    let (key, item) = pair?;
                    if !std::mem::take(&mut first) {
                        self.out.push(b',');
                    }
                    match &key {
                        Value::String(s) => self.string(&s.as_bytes()),
                        Value::Integer(_) | Value::Number(_) => {
                            self.out.push(b'"');
                            self.value(&key, depth)?;
                            self.out.push(b'"');
                        }
                        other => {
                            return Err(error(format!(
                                "Cannot serialise {}: table key must be a number or string",
                                type_name(other)
                            )))
                        }
                    }
                    self.out.push(b':');
                    self.value(&item, depth)?;
                }
                self.out.push(b'}');
            }
        }
        Ok(())
    }

    /// lua-cjson's `lua_array_length`: the largest index when every key is
    /// a positive integer (None otherwise, or when sparse and converted);
    /// an error when excessively sparse and not converted.
    fn array_length(&self, table: &Table) -> mlua::Result<Option<i64>> {
        let (mut max, mut items) = (0i64, 0i64);
        for pair in table.pairs::<Value, Value>() {
            let (key, _) = pair?;
            let Some(index) = array_index(&key) else {
                return Ok(None);
            };
            max = max.max(index);
            items += 1;
        }
        let c = self.config;
        if c.sparse_ratio > 0 && max > items.saturating_mul(c.sparse_ratio) && max > c.sparse_safe {
            if !c.sparse_convert {
                return Err(error(
                    "Cannot serialise table: excessively sparse array".into(),
                ));
            }
            return Ok(None);
        }
        Ok(Some(max))
    }
}
