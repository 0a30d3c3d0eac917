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

mod args;
mod decode;
mod encode;

use mlua::{Lua, MultiValue, Result, Table};

use args::{check_integer, opt_integer};
use decode::unpack_full;
use encode::{pack, SCAN};

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

#[cfg(test)]
mod tests;
