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

use mlua::{Error, Lua, MultiValue, Result, Table, Value};

use super::lua_errors::{self, lua_error};

/// Largest `i`/`I` size (MAXINTSIZE).
const MAX_INT_SIZE: usize = 32;
/// `!` without a number: the C struct {char; double} alignment on x86-64.
const MAX_ALIGN: usize = 8;
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

/// `luaL_argerror` for argument `narg` (counted from 1).
fn arg_error(lua: &Lua, narg: usize, extra: &str) -> Error {
    lua_errors::arg_error(lua, narg as i64, extra)
}

fn type_error(lua: &Lua, narg: usize, expected: &str, got: Option<Value>) -> Error {
    let got = match got.as_ref().map(Value::type_name) {
        None => "no value",
        Some("integer") => "number",
        Some("lightuserdata" | "error" | "other") => "userdata",
        Some(t) => t,
    };
    arg_error(lua, narg, &format!("{expected} expected, got {got}"))
}

/// `luaL_checklstring`: strings, and numbers converted the way Lua prints them.
fn check_lstring(lua: &Lua, v: Option<Value>, narg: usize) -> Result<mlua::String> {
    let s = match &v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(n @ (Value::Integer(_) | Value::Number(_))) => lua.coerce_string(n.clone())?,
        _ => None,
    };
    s.ok_or_else(|| type_error(lua, narg, "string", v))
}

/// `lua_tonumber` when `lua_isnumber`: numbers and numeric strings.
fn to_number(lua: &Lua, v: &Value) -> Result<Option<f64>> {
    match v {
        Value::Integer(_) | Value::Number(_) | Value::String(_) => lua.coerce_number(v.clone()),
        _ => Ok(None),
    }
}

/// `luaL_checknumber`.
fn check_number(lua: &Lua, v: Option<Value>, narg: usize) -> Result<f64> {
    let n = match &v {
        Some(x) => to_number(lua, x)?,
        None => None,
    };
    n.ok_or_else(|| type_error(lua, narg, "number", v))
}

const TWO_63: f64 = (1u64 << 63) as f64;

/// C's `(int64_t)d` on x86-64 (cvttsd2si): truncation, or `i64::MIN` when out of range or NaN.
fn c_f64_to_i64(d: f64) -> i64 {
    if (-TWO_63..TWO_63).contains(&d) {
        d as i64
    } else {
        i64::MIN
    }
}

/// C's `(uint64_t)d` as gcc compiles it for x86-64 (observed: 2^64 and inf give 0, NaN 2^63).
fn c_f64_to_u64(d: f64) -> u64 {
    if d >= TWO_63 {
        (c_f64_to_i64(d - TWO_63) as u64) ^ (1 << 63)
    } else {
        c_f64_to_i64(d) as u64
    }
}

// ---- Format parsing ----

/// Byte order and maximum alignment (`Header` in the C code).
struct Header {
    little: bool,
    align: usize,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            little: cfg!(target_endian = "little"),
            align: 1,
        }
    }
}

/// The format string, cut at its first NUL.
struct Fmt<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Fmt<'a> {
    fn new(s: &'a [u8]) -> Self {
        let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
        Fmt { s: &s[..end], i: 0 }
    }

    fn next_opt(&mut self) -> Option<u8> {
        let c = *self.s.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    /// `getnum`: an optional decimal number that must fit in a C int.
    fn getnum(&mut self, lua: &Lua, df: usize) -> Result<usize> {
        let mut a: Option<i32> = None;
        while let Some(d) = self.s.get(self.i).filter(|c| c.is_ascii_digit()) {
            let (d, cur) = (i32::from(d - b'0'), a.unwrap_or(0));
            if cur > i32::MAX / 10 || cur * 10 > i32::MAX - d {
                return Err(lua_error(lua, "integral size overflow"));
            }
            a = Some(cur * 10 + d);
            self.i += 1;
        }
        Ok(a.map_or(df, |a| a as usize))
    }

    /// `optsize`: the size an option occupies (0 for `s` and control options).
    fn optsize(&mut self, lua: &Lua, opt: u8) -> Result<usize> {
        Ok(match opt {
            b'B' | b'b' | b'x' => 1,
            b'H' | b'h' => 2,
            b'f' => 4,
            b'L' | b'l' | b'T' | b'd' => 8,
            b'c' => self.getnum(lua, 1)?,
            b'i' | b'I' => {
                let sz = self.getnum(lua, 4)?;
                if sz > MAX_INT_SIZE {
                    let msg = format!("integral size {sz} is larger than limit of {MAX_INT_SIZE}");
                    return Err(lua_error(lua, &msg));
                }
                sz
            }
            _ => 0,
        })
    }

    /// `controloptions`: spaces, byte order and alignment; anything else is invalid.
    fn control(&mut self, lua: &Lua, opt: u8, h: &mut Header) -> Result<()> {
        match opt {
            b' ' => {}
            b'>' => h.little = false,
            b'<' => h.little = true,
            b'!' => {
                let a = self.getnum(lua, MAX_ALIGN)?;
                if !a.is_power_of_two() {
                    let msg = format!("alignment {a} is not a power of 2");
                    return Err(lua_error(lua, &msg));
                }
                h.align = a;
            }
            _ => {
                let c = String::from_utf8_lossy(&[opt]).into_owned();
                return Err(arg_error(lua, 1, &format!("invalid format option '{c}'")));
            }
        }
        Ok(())
    }
}

/// `gettoalign`: padding before an item of `size` bytes at offset `len`.
fn gettoalign(len: u64, h: &Header, opt: u8, size: usize) -> u64 {
    if size == 0 || opt == b'c' {
        return 0;
    }
    let size = size.min(h.align) as u64;
    // `len & (size - 1)` is below `size`, so this never underflows.
    (size - (len & (size - 1))) & (size - 1)
}

fn is_integer_opt(opt: u8) -> bool {
    b"bBhHlLTiI".contains(&opt)
}

/// Bytes read as one unsigned number; bytes past the eighth shift out, as in C.
fn read_uint(b: &[u8], little: bool) -> u64 {
    let fold = |l: u64, &x: &u8| (l << 8) | u64::from(x);
    if little {
        b.iter().rev().fold(0, fold)
    } else {
        b.iter().fold(0, fold)
    }
}

// ---- pack / unpack / size ----

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
#[path = "struct_pack_tests.rs"]
mod tests;
