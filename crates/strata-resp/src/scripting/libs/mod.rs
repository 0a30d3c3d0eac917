//! The Lua libraries Redis 7 gives scripts beside the standard ones, each
//! a global table: `cjson` (JSON), `cmsgpack` (MessagePack), `bit`
//! (LuaBitOp) and `struct` (binary packing). Written here in Rust to the
//! behaviour of the C libraries Redis bundles; the sandbox makes their
//! tables read-only afterwards.

mod bit;
mod cjson;
mod cmsgpack;
mod lua_errors;
mod struct_pack;

use mlua::{Lua, Table};

/// Sets the libraries as globals of a new interpreter.
pub(crate) fn install(lua: &Lua, globals: &Table) -> mlua::Result<()> {
    globals.raw_set("cjson", cjson::install(lua)?)?;
    globals.raw_set("bit", bit::install(lua)?)?;
    globals.raw_set("cmsgpack", cmsgpack::install(lua)?)?;
    globals.raw_set("struct", struct_pack::install(lua)?)?;
    Ok(())
}

/// Before each script: settings a script may change (`cjson`'s) are
/// back to their defaults.
pub(crate) fn reset(lua: &Lua) {
    cjson::reset(lua);
}
