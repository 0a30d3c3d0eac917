//! Arguments as Lua's auxiliary library checks them (`luaL_checklstring`,
//! `luaL_checkinteger`, `luaL_optinteger`), with its error texts.

use mlua::{Error, Lua, MultiValue, Result, Value};

use super::super::lua_errors::arg_error;

pub(super) fn type_error(lua: &Lua, narg: usize, expected: &str, got: Option<&Value>) -> Error {
    let got = match got.map(Value::type_name) {
        None => "no value",
        Some("integer") => "number",
        Some("lightuserdata" | "error" | "other") => "userdata",
        Some(t) => t,
    };
    arg_error(lua, narg as i64, &format!("{expected} expected, got {got}"))
}

/// `luaL_checklstring`: strings, and numbers converted the way Lua prints them.
pub(super) fn check_lstring(lua: &Lua, args: &MultiValue, narg: usize) -> Result<mlua::String> {
    let v = args.get(narg - 1);
    let s = match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(n @ (Value::Integer(_) | Value::Number(_))) => lua.coerce_string(n.clone())?,
        _ => None,
    };
    s.ok_or_else(|| type_error(lua, narg, "string", v))
}

/// `luaL_checkinteger`: numbers and numeric strings, truncated as C's cast does.
pub(super) fn check_integer(lua: &Lua, args: &MultiValue, narg: usize) -> Result<i64> {
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
pub(super) fn opt_integer(lua: &Lua, args: &MultiValue, narg: usize, def: i64) -> Result<i64> {
    match args.get(narg - 1) {
        None | Some(Value::Nil) => Ok(def),
        Some(_) => check_integer(lua, args, narg),
    }
}

/// C's `(int64_t)d` on x86-64: truncation, or `i64::MIN` when out of range or NaN.
pub(super) fn c_f64_to_i64(d: f64) -> i64 {
    const TWO_63: f64 = (1u64 << 63) as f64;
    if (-TWO_63..TWO_63).contains(&d) {
        d as i64
    } else {
        i64::MIN
    }
}
