//! `bit`: 32-bit operations for scripts, as Redis 7 ships LuaBitOp 1.0.2.
//!
//! Every argument becomes a 32-bit integer as LuaBitOp makes it: the
//! number plus 2^52 + 2^51, whose low 32 bits are then the number rounded
//! to nearest (ties to even) modulo 2^32; results are signed 32-bit
//! numbers. Shift and rotate counts are taken modulo 32.

use mlua::{Lua, MultiValue, Table, Value};

/// LuaBitOp's `barg`: argument `index` (1-based) of `name` as 32 bits.
fn bits(lua: &Lua, args: &MultiValue, index: usize, name: &str) -> mlua::Result<u32> {
    let value = args.get(index - 1).cloned().unwrap_or(Value::Nil);
    let type_name = match index > args.len() {
        true => "no value",
        false => value.type_name(),
    };
    match lua.coerce_number(value)? {
        Some(n) => Ok((n + 6_755_399_441_055_744.0).to_bits() as u32),
        None => Err(mlua::Error::runtime(format!(
            "bad argument #{index} to '{name}' (number expected, got {})",
            if type_name == "lightuserdata" {
                "userdata"
            } else {
                type_name
            }
        ))),
    }
}

fn signed(b: u32) -> f64 {
    f64::from(b as i32)
}

type Unary = fn(u32) -> u32;
type Shift = fn(u32, u32) -> u32;
type Fold = fn(u32, u32) -> u32;

/// The `bit` table of a new interpreter.
pub fn install(lua: &Lua) -> mlua::Result<Table> {
    let bit = lua.create_table()?;
    let unary: [(&'static str, Unary); 3] = [
        ("tobit", |b| b),
        ("bnot", |b| !b),
        ("bswap", u32::swap_bytes),
    ];
    for (name, op) in unary {
        let f = lua.create_function(move |lua, args: MultiValue| {
            Ok(signed(op(bits(lua, &args, 1, name)?)))
        })?;
        bit.raw_set(name, f)?;
    }
    let folds: [(&'static str, Fold); 3] = [
        ("band", |a, b| a & b),
        ("bor", |a, b| a | b),
        ("bxor", |a, b| a ^ b),
    ];
    for (name, op) in folds {
        let f = lua.create_function(move |lua, args: MultiValue| {
            let mut acc = bits(lua, &args, 1, name)?;
            for index in 2..=args.len() {
                acc = op(acc, bits(lua, &args, index, name)?);
            }
            Ok(signed(acc))
        })?;
        bit.raw_set(name, f)?;
    }
    let shifts: [(&'static str, Shift); 5] = [
        ("lshift", |b, n| b << (n & 31)),
        ("rshift", |b, n| b >> (n & 31)),
        ("arshift", |b, n| ((b as i32) >> (n & 31)) as u32),
        ("rol", u32::rotate_left),
        ("ror", u32::rotate_right),
    ];
    for (name, op) in shifts {
        let f = lua.create_function(move |lua, args: MultiValue| {
            let b = bits(lua, &args, 1, name)?;
            let n = bits(lua, &args, 2, name)?;
            Ok(signed(op(b, n & 31)))
        })?;
        bit.raw_set(name, f)?;
    }
    bit.raw_set("tohex", lua.create_function(tohex)?)?;
    Ok(bit)
}

/// `bit.tohex(x [, n])`: the last `n` hex digits (default 8, at most 8),
/// upper case when `n` is negative.
fn tohex(lua: &Lua, args: MultiValue) -> mlua::Result<mlua::String> {
    let mut b = bits(lua, &args, 1, "tohex")?;
    let n = match args.len() > 1 {
        true => bits(lua, &args, 2, "tohex")? as i32,
        false => 8,
    };
    let digits: &[u8; 16] = match n < 0 {
        true => b"0123456789ABCDEF",
        false => b"0123456789abcdef",
    };
    let n = n.unsigned_abs().min(8) as usize;
    let mut out = [0u8; 8];
    for slot in out[..n].iter_mut().rev() {
        *slot = digits[(b & 15) as usize];
        b >>= 4;
    }
    lua.create_string(&out[..n])
}
