//! `cjson.decode`: JSON text into Lua values, parsed by serde_json and
//! built straight into Lua tables and strings (no intermediate document:
//! what a decode holds is counted in the script's memory limit).

use super::config::MAX_NESTING;
use mlua::{Lua, Table, Value};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

/// Decodes `text`, refusing nesting past `max_depth` (and past
/// [`MAX_NESTING`]).
pub(super) fn decode(lua: &Lua, text: &[u8], max_depth: i64) -> mlua::Result<Value> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let seed = Seed {
        lua,
        depth: 0,
        max_depth,
    };
    let value = seed
        .deserialize(&mut de)
        .and_then(|value| de.end().map(|()| value))
        .map_err(|err| mlua::Error::runtime(describe(&err, text)))?;
    Ok(value)
}

/// serde_json's message with lua-cjson's way of giving the place: the
/// 1-based character (byte) position.
fn describe(err: &serde_json::Error, text: &[u8]) -> String {
    let message = err.to_string();
    let message = match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => &message,
    };
    let line_start: usize = text
        .split(|&b| b == b'\n')
        .take(err.line().saturating_sub(1))
        .map(|line| line.len() + 1)
        .sum();
    format!(
        "{message} at character {}",
        (line_start + err.column()).max(1)
    )
}

#[derive(Clone, Copy)]
struct Seed<'a> {
    lua: &'a Lua,
    depth: i64,
    max_depth: i64,
}

impl Seed<'_> {
    /// A seed one level deeper, or the error past the limit.
    fn nested<E: serde::de::Error>(self) -> Result<Self, E> {
        let depth = self.depth + 1;
        if depth > self.max_depth.min(MAX_NESTING) {
            return Err(E::custom(format!(
                "Found too many nested data structures ({depth})"
            )));
        }
        Ok(Seed {
            lua: self.lua,
            depth,
            max_depth: self.max_depth,
        })
    }

    fn table<E: serde::de::Error>(&self, capacity: usize) -> Result<Table, E> {
        self.lua
            .create_table_with_capacity(capacity.min(1 << 10), 0)
            .map_err(E::custom)
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::NULL)
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Boolean(b))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Value, E> {
        Ok(Value::Number(n))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        self.lua
            .create_string(s)
            .map(Value::String)
            .map_err(E::custom)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.nested::<A::Error>()?;
        let table = self.table::<A::Error>(seq.size_hint().unwrap_or(0))?;
        let mut index = 1;
        while let Some(item) = seq.next_element_seed(inner)? {
            table.raw_set(index, item).map_err(A::Error::custom)?;
            index += 1;
        }
        Ok(Value::Table(table))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.nested::<A::Error>()?;
        let table = self.table::<A::Error>(0)?;
        while let Some(key) = map.next_key_seed(inner)? {
            let value = map.next_value_seed(inner)?;
            table.raw_set(key, value).map_err(A::Error::custom)?;
        }
        Ok(Value::Table(table))
    }
}
