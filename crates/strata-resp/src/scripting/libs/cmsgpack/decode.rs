//! `cmsgpack.unpack`, `unpack_one` and `unpack_limit`: MessagePack into
//! Lua values, without recursion (the nesting is an explicit stack).

use mlua::{Error, Lua, MultiValue, Result, Table, Value};

use super::super::lua_errors::lua_error;
use super::args::check_lstring;

/// Our bound on nested containers while decoding (Redis: about 4000).
const MAX_DECODE_DEPTH: usize = 512;
/// Our bound on the values returned by one unpack call (Redis: about 7999).
const MAX_RESULTS: usize = 4096;

/// mp_unpack_full: `limit == 0 && offset == 0` means "everything, no offset returned".
pub(super) fn unpack_full(
    lua: &Lua,
    args: &MultiValue,
    limit: i64,
    offset: i64,
) -> Result<MultiValue> {
    let s = check_lstring(lua, args, 1)?;
    let data = s.as_bytes();
    // Redis's texts and `(int)` casts, printing the length where it means the limit.
    let len = data.len() as i32;
    if offset < 0 || limit < 0 {
        let o = offset as i32;
        let msg = format!("Invalid request to unpack with offset of {o} and limit of {len}.");
        return Err(lua_error(lua, &msg));
    }
    if offset as u64 > data.len() as u64 {
        let o = offset as i32;
        let msg = format!("Start offset {o} greater than input length {len}.");
        return Err(lua_error(lua, &msg));
    }
    let decode_all = limit == 0 && offset == 0;
    let limit = if decode_all { i64::MAX } else { limit };
    let pos = offset as usize;
    let mut cur = Cursor {
        lua,
        data: &data,
        pos,
    };
    let mut out = MultiValue::new();
    while cur.left() > 0 && (out.len() as i64) < limit {
        if out.len() >= MAX_RESULTS {
            return Err(lua_error(lua, TOO_MANY));
        }
        out.push_back(cur.decode()?);
    }
    if !decode_all {
        let next = if cur.left() == 0 { -1 } else { cur.pos as i64 };
        out.push_front(Value::Integer(next));
    }
    Ok(out)
}

const TOO_MANY: &str =
    "stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)";

struct Cursor<'a> {
    lua: &'a Lua,
    data: &'a [u8],
    pos: usize,
}

enum Item {
    Value(Value),
    /// A container header: element count, and whether it is an array.
    Open(u32, bool),
}

/// A container still being filled. Nothing is reserved from the header's
/// count: each element needs input bytes, so a lying header hits EOF first.
struct Open {
    table: Table,
    left: u32,
    /// Next array index; `None` for a map.
    next: Option<u64>,
    /// A map key waiting for its value.
    key: Option<Value>,
}

impl<'a> Cursor<'a> {
    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let (data, start) = (self.data, self.pos);
        let missing = || lua_error(self.lua, "Missing bytes in input.");
        let bytes = data
            .get(start..start.saturating_add(n))
            .ok_or_else(missing)?;
        self.pos += n;
        Ok(bytes)
    }

    fn uint(&mut self, n: usize) -> Result<u64> {
        let bytes = self.take(n)?;
        Ok(bytes.iter().fold(0, |acc, &b| acc << 8 | u64::from(b)))
    }

    fn string(&mut self, n: u64) -> Result<Item> {
        let s = self.lua.create_string(self.take(n as usize)?)?;
        Ok(Item::Value(Value::String(s)))
    }

    /// One marker and its payload; containers come back as a header only.
    fn item(&mut self) -> Result<Item> {
        let b = self.take(1)?[0];
        // Sign-reinterpreting casts below are the C code's (int8_t)/(int64_t) casts;
        // uint64 becomes a signed integer just like Redis's lua_pushinteger.
        let v = match b {
            0x00..=0x7f => Value::Integer(i64::from(b)),
            0x80..=0x8f => return Ok(Item::Open(u32::from(b & 0x0f), false)),
            0x90..=0x9f => return Ok(Item::Open(u32::from(b & 0x0f), true)),
            0xa0..=0xbf => return self.string(u64::from(b & 0x1f)),
            0xc0 => Value::Nil,
            0xc2 => Value::Boolean(false),
            0xc3 => Value::Boolean(true),
            0xca => Value::Number(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Value::Number(f64::from_bits(self.uint(8)?)),
            0xcc => Value::Integer(self.uint(1)? as i64),
            0xcd => Value::Integer(self.uint(2)? as i64),
            0xce => Value::Integer(self.uint(4)? as i64),
            0xcf | 0xd3 => Value::Integer(self.uint(8)? as i64),
            0xd0 => Value::Integer(i64::from(self.uint(1)? as u8 as i8)),
            0xd1 => Value::Integer(i64::from(self.uint(2)? as u16 as i16)),
            0xd2 => Value::Integer(i64::from(self.uint(4)? as u32 as i32)),
            0xd9 => return self.uint(1).and_then(|n| self.string(n)),
            0xda => return self.uint(2).and_then(|n| self.string(n)),
            0xdb => return self.uint(4).and_then(|n| self.string(n)),
            0xdc => return Ok(Item::Open(self.uint(2)? as u32, true)),
            0xdd => return Ok(Item::Open(self.uint(4)? as u32, true)),
            0xde => return Ok(Item::Open(self.uint(2)? as u32, false)),
            0xdf => return Ok(Item::Open(self.uint(4)? as u32, false)),
            0xe0..=0xff => Value::Integer(i64::from(b as i8)),
            // 0xc1, bin and ext types
            _ => return Err(lua_error(self.lua, "Bad data format in input.")),
        };
        Ok(Item::Value(v))
    }

    /// Decodes one object, iteratively: nesting costs heap, not Rust stack.
    fn decode(&mut self) -> Result<Value> {
        let mut open: Vec<Open> = Vec::new();
        'items: loop {
            let mut value = match self.item()? {
                Item::Value(v) => v,
                Item::Open(left, array) => {
                    if open.len() >= MAX_DECODE_DEPTH {
                        let msg = "stack overflow (MessagePack nesting too deep)";
                        return Err(lua_error(self.lua, msg));
                    }
                    let table = self.lua.create_table()?;
                    if left > 0 {
                        let (next, key) = (array.then_some(1), None);
                        open.push(Open {
                            table,
                            left,
                            next,
                            key,
                        });
                        continue 'items;
                    }
                    Value::Table(table)
                }
            };
            // Store the finished value in its parent; a parent that fills up is
            // itself a finished value for the level above.
            while let Some(mut top) = open.pop() {
                match (top.next, top.key.take()) {
                    (Some(index), _) => {
                        top.table.raw_set(index, value)?;
                        top.next = Some(index + 1);
                    }
                    (None, None) => {
                        top.key = Some(value);
                        open.push(top);
                        continue 'items;
                    }
                    // Raised by Lua's table code in Redis, hence no position prefix.
                    (None, Some(Value::Nil)) => return Err(Error::runtime("table index is nil")),
                    (None, Some(Value::Number(n))) if n.is_nan() => {
                        return Err(Error::runtime("table index is NaN"))
                    }
                    (None, Some(k)) => top.table.raw_set(k, value)?,
                }
                top.left -= 1;
                if top.left > 0 {
                    open.push(top);
                    continue 'items;
                }
                value = Value::Table(top.table);
            }
            return Ok(value);
        }
    }
}
