//! Errors of the libraries' Rust functions in the words of Lua's
//! auxiliary library (`luaL_error`, `luaL_argerror`), as the C libraries
//! Redis bundles raise them.

use mlua::{Error, Lua};
/// `luaL_error`: prefixes "short_src:line: " of the calling Lua function.
pub(super) fn lua_error(lua: &Lua, msg: &str) -> Error {
    let prefix = lua
        .inspect_stack(1)
        .and_then(|d| {
            let line = d.curr_line();
            let src = d.source().short_src.map(|s| s.into_owned());
            (line > 0).then(|| format!("{}:{line}: ", src.unwrap_or_default()))
        })
        .unwrap_or_default();
    Error::runtime(format!("{prefix}{msg}"))
}

/// `luaL_argerror`: the function is named as its call site names it.
pub(super) fn arg_error(lua: &Lua, mut narg: i64, extra: &str) -> Error {
    let (name, what) = lua
        .inspect_stack(0)
        .map(|d| {
            let n = d.names();
            (n.name.map(|s| s.into_owned()), n.name_what)
        })
        .unwrap_or((None, None));
    let name = name.unwrap_or_else(|| "?".to_owned());
    if what == Some("method") {
        narg -= 1;
        if narg == 0 {
            return lua_error(lua, &format!("calling '{name}' on bad self ({extra})"));
        }
    }
    lua_error(lua, &format!("bad argument #{narg} to '{name}' ({extra})"))
}
