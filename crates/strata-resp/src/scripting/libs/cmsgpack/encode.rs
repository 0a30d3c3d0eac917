//! `cmsgpack.pack`: Lua values as MessagePack, as lua_cmsgpack encodes them.

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::super::lua_errors::{arg_error, lua_error};
use super::args::c_f64_to_i64;

/// LUACMSGPACK_MAX_NESTING: a table at this depth is encoded as nil.
const MAX_NESTING: usize = 16;
/// Largest packed string built: the script memory limit (the string must
/// fit in it; Redis's bound is proto-max-bulk-len, 512 MB).
const MAX_OUTPUT: usize = crate::scripting::SCRIPT_MEMORY_LIMIT;
/// Lua 5.1's LUAI_MAXCSTACK: Redis's `pack` needs a stack slot per argument twice.
const LUAI_MAXCSTACK: usize = 8000;

/// Walks a table in `next` order, returning its pair count, keys and values as
/// arrays. The walk happens in Lua because mlua's `pairs` hands the key back
/// through a lossy `Value` and fails ("invalid key to 'next'") on keys such as 1e-300.
pub(super) const SCAN: &str = "local next = ...
return function(t)
  local n, ks, vs = 0, {}, {}
  local k, v = next(t)
  while k ~= nil do n = n + 1; ks[n] = k; vs[n] = v; k, v = next(t, k) end
  return n, ks, vs
end";

pub(super) fn pack(lua: &Lua, scan: &mlua::Function, args: MultiValue) -> Result<mlua::String> {
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
