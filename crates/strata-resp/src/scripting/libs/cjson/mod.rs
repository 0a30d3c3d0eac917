//! `cjson`: JSON for scripts, as Redis 7 ships lua-cjson 2.1.0.
//!
//! `cjson.encode` follows lua-cjson to the byte: numbers as `%.14g`
//! (`encode_number_precision`), `/` escaped as `\/`, control characters
//! and DEL as `\u00XX`, other bytes as they are; a table whose keys are
//! exactly the positive integers up to its largest is an array (holes as
//! `null`, an empty table is `{}`), unless excessively sparse
//! (`encode_sparse_array`); `cjson.null` is `null`. `cjson.decode` parses
//! with serde_json straight into Lua values (so a decoded document is
//! counted in the script's memory): `null` becomes `cjson.null`, numbers
//! Lua numbers. Where lua-cjson differs and this does not follow: nesting
//! deeper than [`config::MAX_NESTING`] (100) levels is refused either way, whatever the
//! `encode_max_depth` and `decode_max_depth` settings (lua-cjson's default
//! for both is 1,000; each level is a Rust call on the worker's stack),
//! the error texts are serde_json's with the character position, and
//! `inf`, `nan` and hexadecimal numbers are not accepted (lua-cjson's
//! `decode_invalid_numbers`, which is not offered).
//!
//! Each instance (`cjson`, and those `cjson.new()` makes) has its own
//! settings; the shared `cjson`'s are reset before every script
//! ([`reset`]), so no script changes another's (in Redis they persist).

mod config;
mod decode;
mod encode;

use config::{Config, InvalidNumbers};

use std::cell::Cell;
use std::rc::Rc;

use mlua::{Lua, MultiValue, Table, Value};

type Shared = Rc<Cell<Config>>;

/// The shared instance's settings, reset before each script.
struct SharedConfig(Shared);

/// The `cjson` table of a new interpreter.
pub fn install(lua: &Lua) -> mlua::Result<Table> {
    let config = Shared::default();
    lua.set_app_data(SharedConfig(Rc::clone(&config)));
    instance(lua, config)
}

/// Gives the shared `cjson` its default settings again.
pub fn reset(lua: &Lua) {
    if let Some(shared) = lua.app_data_ref::<SharedConfig>() {
        shared.0.set(Config::default());
    }
}

fn instance(lua: &Lua, config: Shared) -> mlua::Result<Table> {
    let cjson = lua.create_table()?;
    cjson.raw_set("_NAME", "cjson")?;
    cjson.raw_set("_VERSION", "2.1.0")?;
    cjson.raw_set("null", Value::NULL)?;
    let c = Rc::clone(&config);
    cjson.raw_set(
        "encode",
        lua.create_function(move |lua, args: MultiValue| {
            let [value] = one_arg(args, "encode")?;
            let text = encode::encode(&value, &c.get())?;
            lua.create_string(text)
        })?,
    )?;
    let c = Rc::clone(&config);
    cjson.raw_set(
        "decode",
        lua.create_function(move |lua, args: MultiValue| {
            let [value] = one_arg(args, "decode")?;
            let Value::String(text) = value else {
                return Err(bad_argument("decode", "string expected"));
            };
            decode::decode(lua, &text.as_bytes(), c.get().decode_max_depth)
        })?,
    )?;
    cjson.raw_set(
        "new",
        lua.create_function(|lua, _: MultiValue| instance(lua, Shared::default()))?,
    )?;
    settings(lua, &cjson, &config)?;
    Ok(cjson)
}

fn one_arg(args: MultiValue, name: &str) -> mlua::Result<[Value; 1]> {
    if args.len() != 1 {
        return Err(mlua::Error::runtime(format!(
            "bad argument #1 to '{name}' (expected 1 argument)"
        )));
    }
    Ok([args.into_iter().next().unwrap_or(Value::Nil)])
}

fn bad_argument(name: &str, why: &str) -> mlua::Error {
    mlua::Error::runtime(format!("bad argument #1 to '{name}' ({why})"))
}

/// An integer argument in `range`, or the current value when absent.
fn int_arg(value: Option<&Value>, range: std::ops::RangeInclusive<i64>) -> Option<Option<i64>> {
    match value {
        None | Some(Value::Nil) => Some(None),
        Some(Value::Integer(n)) if range.contains(n) => Some(Some(*n)),
        Some(Value::Number(n)) if n.fract() == 0.0 && range.contains(&(*n as i64)) => {
            Some(Some(*n as i64))
        }
        _ => None,
    }
}

/// The configuration functions: each sets what it is given and returns
/// the setting.
fn settings(lua: &Lua, cjson: &Table, config: &Shared) -> mlua::Result<()> {
    for (name, field) in [("encode_max_depth", 0), ("decode_max_depth", 1)] {
        let c = Rc::clone(config);
        let f = lua.create_function(move |_, args: MultiValue| {
            let mut now = c.get();
            let slot = if field == 0 {
                &mut now.encode_max_depth
            } else {
                &mut now.decode_max_depth
            };
            match int_arg(args.front(), 1..=i64::from(i32::MAX)) {
                Some(Some(depth)) => *slot = depth,
                Some(None) => {}
                None => {
                    return Err(bad_argument(
                        name,
                        "expected integer between 1 and 2147483647",
                    ))
                }
            }
            let depth = *slot;
            c.set(now);
            Ok(depth)
        })?;
        cjson.raw_set(name, f)?;
    }
    let c = Rc::clone(config);
    cjson.raw_set(
        "encode_number_precision",
        lua.create_function(move |_, args: MultiValue| {
            let mut now = c.get();
            match int_arg(args.front(), 1..=14) {
                Some(Some(p)) => now.precision = p as usize,
                Some(None) => {}
                None => {
                    return Err(bad_argument(
                        "encode_number_precision",
                        "expected integer between 1 and 14",
                    ))
                }
            }
            c.set(now);
            Ok(now.precision)
        })?,
    )?;
    let c = Rc::clone(config);
    cjson.raw_set(
        "encode_sparse_array",
        lua.create_function(move |_, args: MultiValue| {
            let mut now = c.get();
            let mut args = args.into_iter();
            match args.next() {
                None | Some(Value::Nil) => {}
                Some(Value::Boolean(b)) => now.sparse_convert = b,
                Some(_) => return Err(bad_argument("encode_sparse_array", "boolean expected")),
            }
            for slot in [&mut now.sparse_ratio, &mut now.sparse_safe] {
                match int_arg(args.next().as_ref(), 0..=i64::from(i32::MAX)) {
                    Some(Some(n)) => *slot = n,
                    Some(None) => {}
                    None => {
                        return Err(mlua::Error::runtime(
                            "bad argument to 'encode_sparse_array' (expected integer between 0 and 2147483647)",
                        ))
                    }
                }
            }
            c.set(now);
            Ok((now.sparse_convert, now.sparse_ratio, now.sparse_safe))
        })?,
    )?;
    let c = Rc::clone(config);
    cjson.raw_set(
        "encode_keep_buffer",
        lua.create_function(move |_, args: MultiValue| {
            let mut now = c.get();
            match args.front() {
                None | Some(Value::Nil) => {}
                Some(Value::Boolean(b)) => now.keep_buffer = *b,
                Some(_) => return Err(bad_argument("encode_keep_buffer", "boolean expected")),
            }
            c.set(now);
            Ok(now.keep_buffer)
        })?,
    )?;
    let c = Rc::clone(config);
    cjson.raw_set(
        "encode_invalid_numbers",
        lua.create_function(move |lua, args: MultiValue| {
            let mut now = c.get();
            match args.front() {
                None | Some(Value::Nil) => {}
                Some(Value::Boolean(true)) => now.invalid_numbers = InvalidNumbers::Write,
                Some(Value::Boolean(false)) => now.invalid_numbers = InvalidNumbers::Refuse,
                Some(Value::String(s)) if s.as_bytes().as_ref() == b"null" => {
                    now.invalid_numbers = InvalidNumbers::Null
                }
                Some(_) => {
                    return Err(bad_argument(
                        "encode_invalid_numbers",
                        "invalid option, expected true, false or 'null'",
                    ))
                }
            }
            c.set(now);
            Ok(match now.invalid_numbers {
                InvalidNumbers::Refuse => Value::Boolean(false),
                InvalidNumbers::Write => Value::Boolean(true),
                InvalidNumbers::Null => Value::String(lua.create_string("null")?),
            })
        })?,
    )?;
    Ok(())
}
