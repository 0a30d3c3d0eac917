//! `cmsgpack`: MessagePack for Lua scripts, written in Rust to behave like the
//! `lua_cmsgpack` library (lua-cmsgpack 0.4.0) bundled with Redis 7.0.
//!
//! Checked against Redis 7.0.15, bytes and error texts alike:
//! - `pack(...)` concatenates the encodings of its arguments. Integral numbers
//!   within `i64` take the smallest integer form, others float32 when exact,
//!   else float64. A table whose keys are exactly `1..n` (the empty table too)
//!   is an array, any other a map in `next` order; a table 16 levels down,
//!   functions, userdata and threads encode as nil.
//! - `unpack`/`unpack_one`/`unpack_limit` decode nil, booleans, every integer
//!   and float width, str8/16/32, arrays and maps; `bin`, `ext` and 0xc1 are
//!   "Bad data format in input." and uint64 wraps to signed, as in Redis.
//! - Errors read like `luaL_error`/`luaL_argerror`: "chunk:line: " of the Lua
//!   caller, and the function named as the call site names it.
//!
//! Own limits: 512 nested containers and 4096 results per unpack call (Redis
//! stops near 4000 and 7999, at its C stack), because mlua panics past about
//! 8000 live references; packed output up to the script memory limit (64 MiB).
//! Known mlua difference: a number with 0 < |n| < f64::EPSILON passed directly
//! to `pack` arrives as integer 0 (inside tables it is read exactly). `pack`
//! uses the global `next` as it is when `install` runs.

use mlua::{Error, Lua, MultiValue, Result, Table, Value};

use super::lua_errors::{arg_error, lua_error};

/// LUACMSGPACK_MAX_NESTING: a table at this depth is encoded as nil.
const MAX_NESTING: usize = 16;
/// Our bound on nested containers while decoding (Redis: about 4000).
const MAX_DECODE_DEPTH: usize = 512;
/// Our bound on the values returned by one unpack call (Redis: about 7999).
const MAX_RESULTS: usize = 4096;
/// Largest packed string built: the script memory limit (the string must
/// fit in it; Redis's bound is proto-max-bulk-len, 512 MB).
const MAX_OUTPUT: usize = crate::scripting::SCRIPT_MEMORY_LIMIT;
/// Lua 5.1's LUAI_MAXCSTACK: Redis's `pack` needs a stack slot per argument twice.
const LUAI_MAXCSTACK: usize = 8000;

const COPYRIGHT: &str =
    "lua-cmsgpack Copyright (C) 2012 Salvatore Sanfilippo; Rust port for Strata";
const DESCRIPTION: &str = "MessagePack for Lua, compatible with Redis's lua-cmsgpack";

/// Builds the `cmsgpack` table; the caller makes it a global.
pub fn install(lua: &Lua) -> Result<Table> {
    let next: mlua::Function = lua.globals().raw_get("next")?;
    let scan: mlua::Function = lua.load(SCAN).set_name("=cmsgpack").call(next)?;
    let t = lua.create_table()?;
    let pack = move |lua: &Lua, args: MultiValue| pack(lua, &scan, args);
    t.raw_set("pack", lua.create_function(pack)?)?;
    let unpack = |lua: &Lua, a: MultiValue| unpack_full(lua, &a, 0, 0);
    t.raw_set("unpack", lua.create_function(unpack)?)?;
    let unpack_one = |lua: &Lua, a: MultiValue| {
        let offset = opt_integer(lua, &a, 2, 0)?;
        unpack_full(lua, &a, 1, offset)
    };
    t.raw_set("unpack_one", lua.create_function(unpack_one)?)?;
    let unpack_limit = |lua: &Lua, a: MultiValue| {
        let limit = check_integer(lua, &a, 2)?;
        unpack_full(lua, &a, limit, opt_integer(lua, &a, 3, 0)?)
    };
    t.raw_set("unpack_limit", lua.create_function(unpack_limit)?)?;
    t.raw_set("_NAME", "cmsgpack")?;
    t.raw_set("_VERSION", "lua-cmsgpack 0.4.0")?;
    t.raw_set("_COPYRIGHT", COPYRIGHT)?;
    t.raw_set("_DESCRIPTION", DESCRIPTION)?;
    Ok(t)
}

fn type_error(lua: &Lua, narg: usize, expected: &str, got: Option<&Value>) -> Error {
    let got = match got.map(Value::type_name) {
        None => "no value",
        Some("integer") => "number",
        Some("lightuserdata" | "error" | "other") => "userdata",
        Some(t) => t,
    };
    arg_error(lua, narg as i64, &format!("{expected} expected, got {got}"))
}

/// `luaL_checklstring`: strings, and numbers converted the way Lua prints them.
fn check_lstring(lua: &Lua, args: &MultiValue, narg: usize) -> Result<mlua::String> {
    let v = args.get(narg - 1);
    let s = match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(n @ (Value::Integer(_) | Value::Number(_))) => lua.coerce_string(n.clone())?,
        _ => None,
    };
    s.ok_or_else(|| type_error(lua, narg, "string", v))
}

/// `luaL_checkinteger`: numbers and numeric strings, truncated as C's cast does.
fn check_integer(lua: &Lua, args: &MultiValue, narg: usize) -> Result<i64> {
    let v = args.get(narg - 1);
    let n = match v {
        Some(Value::Integer(i)) => return Ok(*i),
        Some(x @ (Value::Number(_) | Value::String(_))) => lua.coerce_number(x.clone())?,
        _ => None,
    };
    n.map(c_f64_to_i64)
        .ok_or_else(|| type_error(lua, narg, "number", v))
}

/// `luaL_optinteger`.
fn opt_integer(lua: &Lua, args: &MultiValue, narg: usize, def: i64) -> Result<i64> {
    match args.get(narg - 1) {
        None | Some(Value::Nil) => Ok(def),
        Some(_) => check_integer(lua, args, narg),
    }
}

/// C's `(int64_t)d` on x86-64: truncation, or `i64::MIN` when out of range or NaN.
fn c_f64_to_i64(d: f64) -> i64 {
    const TWO_63: f64 = (1u64 << 63) as f64;
    if (-TWO_63..TWO_63).contains(&d) {
        d as i64
    } else {
        i64::MIN
    }
}

// ---- Encoding ----

/// Walks a table in `next` order, returning its pair count, keys and values as
/// arrays. The walk happens in Lua because mlua's `pairs` hands the key back
/// through a lossy `Value` and fails ("invalid key to 'next'") on keys such as 1e-300.
const SCAN: &str = "local next = ...
return function(t)
  local n, ks, vs = 0, {}, {}
  local k, v = next(t)
  while k ~= nil do n = n + 1; ks[n] = k; vs[n] = v; k, v = next(t, k) end
  return n, ks, vs
end";

fn pack(lua: &Lua, scan: &mlua::Function, args: MultiValue) -> Result<mlua::String> {
    if args.is_empty() {
        return Err(arg_error(lua, 0, "MessagePack pack needs input."));
    }
    if 2 * args.len() > LUAI_MAXCSTACK {
        let msg = "Too many arguments for MessagePack pack.";
        return Err(arg_error(lua, 0, msg));
    }
    let mut p = Packer {
        lua,
        scan,
        out: vec![],
    };
    for v in args.iter() {
        p.value(v, 0)?;
    }
    lua.create_string(&p.out)
}

struct Packer<'a> {
    lua: &'a Lua,
    scan: &'a mlua::Function,
    out: Vec<u8>,
}

impl Packer<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        if self.out.len().saturating_add(bytes.len()) > MAX_OUTPUT {
            return Err(lua_error(self.lua, "MessagePack pack result too large."));
        }
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    fn marked(&mut self, marker: u8, bytes: &[u8]) -> Result<()> {
        self.put(&[marker])?;
        self.put(bytes)
    }

    fn value(&mut self, v: &Value, level: usize) -> Result<()> {
        match v {
            Value::Boolean(b) => self.put(&[if *b { 0xc3 } else { 0xc2 }]),
            Value::Integer(i) => self.int(*i),
            Value::Number(n) => self.number(*n),
            Value::String(s) => self.bytes(&s.as_bytes()),
            Value::Table(t) if level < MAX_NESTING => self.table(t, level),
            _ => self.put(&[0xc0]),
        }
    }

    fn int(&mut self, n: i64) -> Result<()> {
        // Truncating casts below keep the two's-complement low bytes, as intended.
        match n {
            0..=0x7f => self.put(&[n as u8]),
            0x80..=0xff => self.put(&[0xcc, n as u8]),
            0x100..=0xffff => self.marked(0xcd, &(n as u16).to_be_bytes()),
            0x1_0000..=0xffff_ffff => self.marked(0xce, &(n as u32).to_be_bytes()),
            0x1_0000_0000.. => self.marked(0xcf, &n.to_be_bytes()),
            -32..=-1 => self.put(&[n as u8]),
            -128..=-33 => self.put(&[0xd0, n as u8]),
            -32768..=-129 => self.marked(0xd1, &(n as i16).to_be_bytes()),
            -2_147_483_648..=-32769 => self.marked(0xd2, &(n as i32).to_be_bytes()),
            _ => self.marked(0xd3, &n.to_be_bytes()),
        }
    }

    fn number(&mut self, n: f64) -> Result<()> {
        // IS_INT64_EQUIVALENT: finite and `(int64_t)n == n` (2^63 is not: it casts to i64::MIN).
        if n.is_finite() && c_f64_to_i64(n) as f64 == n {
            return self.int(c_f64_to_i64(n));
        }
        let f = n as f32;
        if f64::from(f) == n {
            self.marked(0xca, &f.to_be_bytes())
        } else {
            self.marked(0xcb, &n.to_be_bytes())
        }
    }

    fn bytes(&mut self, s: &[u8]) -> Result<()> {
        match s.len() {
            n @ 0..=31 => self.put(&[0xa0 | n as u8])?,
            n @ 32..=0xff => self.put(&[0xd9, n as u8])?,
            n @ 0x100..=0xffff => self.marked(0xda, &(n as u16).to_be_bytes())?,
            // Past u32 cannot happen: MAX_OUTPUT rejects such a body below.
            n => self.marked(0xdb, &(n as u32).to_be_bytes())?,
        }
        self.put(s)
    }

    fn header(&mut self, n: u64, fix: u8, m16: u8, m32: u8) -> Result<()> {
        match n {
            0..=15 => self.put(&[fix | n as u8]),
            16..=0xffff => self.marked(m16, &(n as u16).to_be_bytes()),
            _ => self.marked(m32, &(n as u32).to_be_bytes()),
        }
    }

    fn table(&mut self, t: &Table, level: usize) -> Result<()> {
        let (count, keys, vals): (u64, Table, Table) = self.scan.call(t)?;
        // table_is_an_array: every key a positive int-sized integer and the
        // largest key equal to the number of keys (so an empty table is an array).
        let (mut max, mut array) = (0u64, true);
        for j in 1..=count {
            match array_index(&exact(&keys, j)?) {
                Some(i) => max = max.max(i),
                None => array = false,
            }
        }
        if array && max == count {
            self.header(count, 0x90, 0xdc, 0xdd)?;
            for j in 1..=count {
                self.value(&exact(t, j)?, level + 1)?;
            }
        } else {
            self.header(count, 0x80, 0xde, 0xdf)?;
            for j in 1..=count {
                self.value(&exact(&keys, j)?, level + 1)?;
                self.value(&exact(&vals, j)?, level + 1)?;
            }
        }
        Ok(())
    }
}

/// A key that may belong to an array: integral, 1..=i32::MAX (C compares with `(int)n`).
fn array_index(k: &Value) -> Option<u64> {
    let n = match k {
        Value::Integer(i) => *i as f64,
        Value::Number(n) => *n,
        _ => return None,
    };
    (n >= 1.0 && n <= f64::from(i32::MAX) && n.fract() == 0.0).then_some(n as u64)
}

/// `t[j]`, exactly: mlua (lua51) reads any number with |n| < f64::EPSILON as
/// `Integer(0)`, while reading the slot as `f64` is exact.
fn exact(t: &Table, j: u64) -> Result<Value> {
    match t.raw_get(j)? {
        Value::Integer(0) => Ok(Value::Number(t.raw_get::<f64>(j)?)),
        v => Ok(v),
    }
}

// ---- Decoding ----

/// mp_unpack_full: `limit == 0 && offset == 0` means "everything, no offset returned".
fn unpack_full(lua: &Lua, args: &MultiValue, limit: i64, offset: i64) -> Result<MultiValue> {
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

#[cfg(test)]
#[path = "cmsgpack_tests.rs"]
mod tests;
