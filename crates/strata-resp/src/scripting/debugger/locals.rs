//! Local variables of the running script, which mlua's safe API does not
//! reach: read through Lua's C debug interface (`lua_getstack`,
//! `lua_getinfo`, `lua_getlocal`), as Redis's debugger reads them. Only
//! frames of the script's own chunk (`@user_script`) are looked at first:
//! the call that reads them adds C frames of its own below.

#![allow(unsafe_code)]

use std::ffi::{c_int, CStr};

use mlua::{ffi, Lua, MultiValue, Value};

/// Stack levels looked through (Lua 5.1 nests at most 200 C calls).
const MAX_LEVELS: c_int = 256;

/// The locals of the innermost script frame, in declaration order, but
/// the unnamed temporaries Redis leaves out.
pub(super) fn current(lua: &Lua) -> Vec<(String, Value)> {
    // SAFETY: `exec_raw` runs the closure on this state under a protected
    // call; the closure only reads frames through the debug interface and
    // pushes (after `lua_checkstack`) names and values, which `exec_raw`
    // returns and pops.
    let found: mlua::Result<MultiValue> = unsafe {
        lua.exec_raw((), |state| {
            let mut ar: ffi::lua_Debug = std::mem::zeroed();
            if script_level(state, &mut ar, 0).is_none() {
                return;
            }
            let mut n = 1;
            while ffi::lua_checkstack(state, 2) != 0 {
                let name = ffi::lua_getlocal(state, &raw const ar, n);
                if name.is_null() {
                    break;
                }
                let name = CStr::from_ptr(name).to_bytes();
                if name == b"(*temporary)" {
                    ffi::lua_pop(state, 1);
                } else {
                    ffi::lua_pushlstring(state, name.as_ptr().cast(), name.len());
                    ffi::lua_insert(state, -2);
                }
                n += 1;
            }
        })
    };
    let mut values = found.unwrap_or_default().into_iter();
    let mut locals = Vec::new();
    while let (Some(name), Some(value)) = (values.next(), values.next()) {
        if let Value::String(name) = name {
            locals.push((name.to_string_lossy().to_string(), value));
        }
    }
    locals
}

/// The first local called `wanted`, from the innermost script frame
/// outward.
pub(super) fn find(lua: &Lua, wanted: &str) -> Option<Value> {
    // SAFETY: as in `current`; at most one value is left pushed.
    let found: mlua::Result<MultiValue> = unsafe {
        lua.exec_raw((), |state| {
            let mut ar: ffi::lua_Debug = std::mem::zeroed();
            let Some(first) = script_level(state, &mut ar, 0) else {
                return;
            };
            for level in first..MAX_LEVELS {
                if ffi::lua_getstack(state, level, &raw mut ar) == 0 {
                    return;
                }
                let mut n = 1;
                while ffi::lua_checkstack(state, 1) != 0 {
                    let name = ffi::lua_getlocal(state, &raw const ar, n);
                    if name.is_null() {
                        break;
                    }
                    if CStr::from_ptr(name).to_bytes() == wanted.as_bytes() {
                        return;
                    }
                    ffi::lua_pop(state, 1);
                    n += 1;
                }
            }
        })
    };
    found.ok()?.into_iter().next()
}

/// The innermost level at or past `from` running the script's chunk,
/// with `ar` describing it.
///
/// # Safety
/// `state` is a live Lua state whose stack is not being changed meanwhile.
unsafe fn script_level(
    state: *mut ffi::lua_State,
    ar: &mut ffi::lua_Debug,
    from: c_int,
) -> Option<c_int> {
    for level in from..MAX_LEVELS {
        // SAFETY: as the caller promises; `ar` is a valid record to fill.
        unsafe {
            if ffi::lua_getstack(state, level, ar) == 0 {
                return None;
            }
            if ffi::lua_getinfo(state, c"S".as_ptr(), ar) == 0 || ar.source.is_null() {
                continue;
            }
            if CStr::from_ptr(ar.source).to_bytes() == b"@user_script" {
                return Some(level);
            }
        }
    }
    None
}
