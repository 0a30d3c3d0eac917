//! `struct`: binary packing for Lua scripts, written in Rust to behave like
//! Roberto Ierusalimschy's struct library as bundled with Redis 7.0
//! (deps/lua/src/lua_struct.c).
//!
//! Checked against Redis 7.0.15:
//! - Options `<` `>` (no `=`: Redis rejects it), `!n` (`!` = 8), `x`, `b/B`,
//!   `h/H`, `l/L`, `T`, `i/I[n]` (n up to 32, default 4), `c[n]`, `s`, `f`, `d`,
//!   spaces; anything else is "invalid format option". The format ends at its
//!   first NUL byte, as the C string did.
//! - Alignment padding as `gettoalign` computes it, sizes that are not powers
//!   of two included. Integers pack their low bytes (bytes past the eighth are
//!   zero, even for negatives); out-of-range numbers convert as x86-64 C casts
//!   do. Signed unpack sign-extends with the C code's shift taken mod 64, so
//!   `i9`..`i32` give what Redis gives.
//! - `c0` packs the whole string and unpacks with the previous value as length;
//!   `unpack` returns the values then the next position.
//! - Errors read like `luaL_error`/`luaL_argerror`, with Redis's quirks: "string
//!   too short" names the argument after the string, and a missing argument to
//!   pack reads "got nil" (pack's buffer marker sits in that stack slot).
//!
//! Own limits: at most 4096 values per `unpack` (Redis: about 7997, which
//! would exhaust mlua's reference stack) and `pack` output up to the script
//! memory limit (Redis's bound is proto-max-bulk-len, 512 MB). Sizes are otherwise bounded as in Redis: `n`
//! fits in an int, integers take at most 32 bytes, strings come from input.
//! Known mlua differences: -0.0 and numbers with |n| < f64::EPSILON reach Rust
//! as integer 0 (only `f`/`d` can tell), and an invalid option byte >= 0x80 is
//! shown as U+FFFD because mlua error messages are UTF-8.

mod args;
mod format;

use mlua::{Lua, MultiValue, Result, Table, Value};

use super::lua_errors::lua_error;
use args::{
    arg_error, c_f64_to_i64, c_f64_to_u64, check_lstring, check_number, to_number, type_error,
};
use format::{gettoalign, is_integer_opt, read_uint, Fmt, Header, MAX_INT_SIZE};

/// Our bound on values returned by one `unpack`.
const MAX_RESULTS: usize = 4096;
/// Largest packed string we build.
const MAX_OUTPUT: usize = crate::scripting::SCRIPT_MEMORY_LIMIT;

/// Builds the `struct` table; the caller makes it a global.
pub fn install(lua: &Lua) -> Result<Table> {
    let t = lua.create_table()?;
    t.raw_set("pack", lua.create_function(pack)?)?;
    t.raw_set("unpack", lua.create_function(unpack)?)?;
    t.raw_set("size", lua.create_function(size)?)?;
    Ok(t)
}

fn pack(lua: &Lua, args: MultiValue) -> Result<mlua::String> {
    let fmt_s = check_lstring(lua, args.front().cloned(), 1)?;
    let fmt_b = fmt_s.as_bytes();
    let mut fmt = Fmt::new(&fmt_b);
    // b_pack pushes a nil marker after its arguments, so a missing one is "nil".
    let arg_at = |n: usize| Some(args.get(n - 1).cloned().unwrap_or(Value::Nil));
    let (mut h, mut arg, mut total, mut out) = (Header::default(), 2, 0u64, Vec::new());
    while let Some(opt) = fmt.next_opt() {
        let mut size = fmt.optsize(lua, opt)?;
        let pad = gettoalign(total, &h, opt, size);
        total += pad;
        out.resize(out.len() + pad as usize, 0);
        match opt {
            _ if is_integer_opt(opt) => {
                let n = check_number(lua, arg_at(arg), arg)?;
                arg += 1;
                // Negative numbers go through the signed cast, others the unsigned one.
                let mut value = if n < 0.0 {
                    c_f64_to_i64(n) as u64
                } else {
                    c_f64_to_u64(n)
                };
                let mut buf = [0u8; MAX_INT_SIZE];
                for i in 0..size {
                    buf[if h.little { i } else { size - 1 - i }] = value as u8;
                    value >>= 8;
                }
                out.extend_from_slice(&buf[..size]);
            }
            b'x' => out.push(0),
            b'f' | b'd' => {
                let n = check_number(lua, arg_at(arg), arg)?;
                arg += 1;
                let mut b = match opt {
                    b'f' => (n as f32).to_le_bytes().to_vec(),
                    _ => n.to_le_bytes().to_vec(),
                };
                if !h.little {
                    b.reverse();
                }
                out.extend_from_slice(&b);
            }
            b'c' | b's' => {
                let s = check_lstring(lua, arg_at(arg), arg)?;
                let s = s.as_bytes();
                arg += 1;
                if size == 0 {
                    size = s.len();
                }
                if s.len() < size {
                    // Redis reports the argument after the string (arg was already advanced).
                    return Err(arg_error(lua, arg, "string too short"));
                }
                if out.len().saturating_add(size) > MAX_OUTPUT {
                    return Err(lua_error(
                        lua,
                        "struct.pack result exceeds the script memory limit",
                    ));
                }
                out.extend_from_slice(&s[..size]);
                if opt == b's' {
                    out.push(0);
                    size += 1;
                }
            }
            _ => fmt.control(lua, opt, &mut h)?,
        }
        total += size as u64;
        if out.len() > MAX_OUTPUT {
            return Err(lua_error(
                lua,
                "struct.pack result exceeds the script memory limit",
            ));
        }
    }
    lua.create_string(&out)
}

fn unpack(lua: &Lua, args: MultiValue) -> Result<MultiValue> {
    let fmt_s = check_lstring(lua, args.front().cloned(), 1)?;
    let data_s = check_lstring(lua, args.get(1).cloned(), 2)?;
    // luaL_optinteger(L, 3, 1), then stored in a size_t: negatives wrap.
    let pos = match args.get(2) {
        None | Some(Value::Nil) => 1,
        Some(v) => match to_number(lua, v)? {
            Some(n) => c_f64_to_i64(n) as u64,
            None => return Err(type_error(lua, 3, "number", Some(v.clone()))),
        },
    };
    if pos == 0 {
        return Err(arg_error(lua, 3, "offset must be 1 or greater"));
    }
    let (fmt_b, data) = (fmt_s.as_bytes(), data_s.as_bytes());
    let (mut fmt, mut h, mut pos) = (Fmt::new(&fmt_b), Header::default(), pos - 1);
    let ld = data.len() as u64;
    let mut out = MultiValue::new();
    while let Some(opt) = fmt.next_opt() {
        let mut size = fmt.optsize(lua, opt)? as u64;
        pos = pos.wrapping_add(gettoalign(pos, &h, opt, size as usize));
        let short = || arg_error(lua, 2, "data string too short");
        if size > ld || pos > ld - size {
            return Err(short());
        }
        if out.len() >= MAX_RESULTS {
            return Err(lua_error(lua, "stack overflow (too many results)"));
        }
        // In bounds: pos + size <= ld was just checked (and is checked again for c0).
        let bytes = |n: u64| {
            let end = pos.wrapping_add(n) as usize;
            data.get(pos as usize..end).ok_or_else(short)
        };
        match opt {
            _ if is_integer_opt(opt) => {
                let l = read_uint(bytes(size)?, h.little);
                let n = if opt.is_ascii_lowercase() {
                    // `~0 << (size*8 - 1)`: x86 takes the shift count mod 64.
                    let mask = u64::MAX.wrapping_shl((size as u32).wrapping_mul(8).wrapping_sub(1));
                    (if l & mask != 0 { l | mask } else { l }) as i64 as f64
                } else {
                    l as f64
                };
                out.push_back(Value::Number(n));
            }
            b'x' => {}
            b'f' | b'd' => {
                let bits = read_uint(bytes(size)?, h.little);
                let n = match opt {
                    b'f' => f64::from(f32::from_bits(bits as u32)),
                    _ => f64::from_bits(bits),
                };
                out.push_back(Value::Number(n));
            }
            b'c' => {
                if size == 0 {
                    let prev = match out.back() {
                        Some(v) => to_number(lua, v)?,
                        None => None,
                    };
                    let Some(n) = prev else {
                        return Err(lua_error(lua, "format 'c0' needs a previous size"));
                    };
                    out.pop_back();
                    size = c_f64_to_u64(n);
                    if size > ld || pos > ld - size {
                        return Err(short());
                    }
                }
                out.push_back(Value::String(lua.create_string(bytes(size)?)?));
            }
            b's' => {
                let rest = bytes(ld - pos)?;
                let Some(end) = rest.iter().position(|&b| b == 0) else {
                    return Err(lua_error(lua, "unfinished string in data"));
                };
                out.push_back(Value::String(lua.create_string(&rest[..end])?));
                size = end as u64 + 1;
            }
            _ => fmt.control(lua, opt, &mut h)?,
        }
        pos = pos.wrapping_add(size);
    }
    out.push_back(Value::Integer(pos.wrapping_add(1) as i64));
    Ok(out)
}

fn size(lua: &Lua, args: MultiValue) -> Result<i64> {
    let fmt_s = check_lstring(lua, args.front().cloned(), 1)?;
    let fmt_b = fmt_s.as_bytes();
    let (mut fmt, mut h, mut pos) = (Fmt::new(&fmt_b), Header::default(), 0u64);
    while let Some(opt) = fmt.next_opt() {
        let size = fmt.optsize(lua, opt)?;
        pos = pos.wrapping_add(gettoalign(pos, &h, opt, size));
        if opt == b's' {
            return Err(arg_error(lua, 1, "option 's' has no fixed size"));
        } else if opt == b'c' && size == 0 {
            return Err(arg_error(lua, 1, "option 'c0' has no fixed size"));
        }
        // Unknown letters and digits are silently skipped here, as in Redis.
        if !opt.is_ascii_alphanumeric() {
            fmt.control(lua, opt, &mut h)?;
        }
        pos = pos.wrapping_add(size as u64);
    }
    Ok(pos as i64)
}

#[cfg(test)]
mod tests;
