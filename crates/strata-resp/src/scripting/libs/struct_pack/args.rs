//! Arguments as Lua's auxiliary library checks them, and numbers cast to
//! integers as C casts them on x86-64 (what lua_struct.c packs).

use mlua::{Error, Lua, Result, Value};

use super::super::lua_errors;

/// `luaL_argerror` for argument `narg` (counted from 1).
pub(super) fn arg_error(lua: &Lua, narg: usize, extra: &str) -> Error {
    lua_errors::arg_error(lua, narg as i64, extra)
}

pub(super) fn type_error(lua: &Lua, narg: usize, expected: &str, got: Option<Value>) -> Error {
    let got = match got.as_ref().map(Value::type_name) {
        None => "no value",
        Some("integer") => "number",
        Some("lightuserdata" | "error" | "other") => "userdata",
        Some(t) => t,
    };
    arg_error(lua, narg, &format!("{expected} expected, got {got}"))
}

/// `luaL_checklstring`: strings, and numbers converted the way Lua prints them.
pub(super) fn check_lstring(lua: &Lua, v: Option<Value>, narg: usize) -> Result<mlua::String> {
    let s = match &v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(n @ (Value::Integer(_) | Value::Number(_))) => lua.coerce_string(n.clone())?,
        _ => None,
    };
    s.ok_or_else(|| type_error(lua, narg, "string", v))
}

/// `lua_tonumber` when `lua_isnumber`: numbers and numeric strings.
pub(super) fn to_number(lua: &Lua, v: &Value) -> Result<Option<f64>> {
    match v {
        Value::Integer(_) | Value::Number(_) | Value::String(_) => lua.coerce_number(v.clone()),
        _ => Ok(None),
    }
}

/// `luaL_checknumber`.
pub(super) fn check_number(lua: &Lua, v: Option<Value>, narg: usize) -> Result<f64> {
    let n = match &v {
        Some(x) => to_number(lua, x)?,
        None => None,
    };
    n.ok_or_else(|| type_error(lua, narg, "number", v))
}

pub(super) const TWO_63: f64 = (1u64 << 63) as f64;

/// C's `(int64_t)d` on x86-64 (cvttsd2si): truncation, or `i64::MIN` when out of range or NaN.
pub(super) fn c_f64_to_i64(d: f64) -> i64 {
    if (-TWO_63..TWO_63).contains(&d) {
        d as i64
    } else {
        i64::MIN
    }
}

/// C's `(uint64_t)d` as gcc compiles it for x86-64 (observed: 2^64 and inf give 0, NaN 2^63).
pub(super) fn c_f64_to_u64(d: f64) -> u64 {
    if d >= TWO_63 {
        (c_f64_to_i64(d - TWO_63) as u64) ^ (1 << 63)
    } else {
        c_f64_to_i64(d) as u64
    }
}
