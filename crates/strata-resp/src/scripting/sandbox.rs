//! The sandbox every script runs in, as Redis 7 keeps it: globals and
//! library tables read-only for good (Redis patches Lua for read-only
//! tables; stock Lua 5.1 gets them as proxies here), no way to the real
//! globals (`getfenv`, `setfenv`, `newproxy` and the file and module
//! loaders are gone), no bytecode (`loadstring` and `load` take text only:
//! crafted bytecode reads and writes the server's memory), and a kill that
//! `pcall` cannot catch.
//!
//! One interpreter serves every script on its thread, so whatever a script
//! could change there would reach the next script of any client.
//!
//! The proxies: each library table (and `_G`) is seen through an empty
//! table whose `__index` is the real one and whose `__newindex` refuses.
//! The functions that bypass metamethods are wrapped to see through a
//! proxy (`rawget`, `next`, `pairs`, `ipairs`) or to refuse one
//! (`rawset`, `setmetatable`, `table.insert`, `table.remove`,
//! `table.sort`); the strings' metatable is reached only through a proxy.

use mlua::{Lua, Table, Value};

use super::errors;

/// The environment's metatable: reads fall through to the globals (a
/// missing one is an error), writes are refused, as in Redis 7.
const ENVIRONMENT: &str = r#"
local G = ...
local rawget, error, tostring = rawget, error, tostring
return {
  __index = function(_, name)
    local value = rawget(G, name)
    if value == nil then
      error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 2)
    end
    return value
  end,
  __newindex = function(_, name)
    error("Attempt to modify a readonly table", 2)
  end,
}
"#;

/// `pcall` and `xpcall` that re-raise once `SCRIPT KILL` asked, so a
/// script cannot catch its own kill and go on, and that hand the script
/// an error of a Rust function as its message (`errors::caught`).
const UNCATCHABLE_KILL: &str = r#"
local G, killed, caught = ...
local pcall, xpcall, error = pcall, xpcall, error
local function pass(ok, ...)
  if killed() then
    error("Script killed by user with SCRIPT KILL...", 0)
  end
  if ok then return ok, ... end
  return ok, caught((...))
end
G.pcall = function(...) return pass(pcall(...)) end
G.xpcall = function(f, handler)
  return pass(xpcall(f, function(err) return handler(caught(err)) end))
end
"#;

/// Replaces the library tables and `_G` with read-only proxies, wraps the
/// functions that bypass metamethods, and gives text-only loaders whose
/// chunks run in the caller's environment (or a fresh sandboxed one).
const SEAL: &str = r#"
local G, environment, libraries = ...
local rawget, rawset, next, pairs, ipairs, type, error =
  rawget, rawset, next, pairs, ipairs, type, error
local setmetatable, getmetatable, getfenv, setfenv, loadstring, load, tostring =
  setmetatable, getmetatable, getfenv, setfenv, loadstring, load, tostring
local byte, concat = string.byte, table.concat
local READONLY = "Attempt to modify a readonly table"

local real_of = setmetatable({}, { __mode = "k" })
local function refuse() error(READONLY, 2) end
local function readonly(real)
  local proxy = setmetatable({}, { __index = real, __newindex = refuse, __metatable = false })
  real_of[proxy] = real
  return proxy
end
local function writable(t)
  if real_of[t] then error(READONLY, 0) end
  return t
end

local tbl = G.table
local insert, remove, sort = tbl.insert, tbl.remove, tbl.sort
tbl.insert = function(t, ...) return insert(writable(t), ...) end
tbl.remove = function(t, ...) return remove(writable(t), ...) end
tbl.sort = function(t, ...) return sort(writable(t), ...) end

local function see_through_next(t, k) return next(real_of[t] or t, k) end
G.next = see_through_next
G.rawget = function(t, k) return rawget(real_of[t] or t, k) end
G.rawset = function(t, k, v) return rawset(writable(t), k, v) end
G.setmetatable = function(t, m) return setmetatable(writable(t), m) end
G.pairs = function(t)
  if type(t) ~= "table" then return pairs(t) end
  return see_through_next, t, nil
end
G.ipairs = function(t) return ipairs(real_of[t] or t) end

-- A loaded chunk runs in its caller's environment (KEYS and ARGV in
-- sight) when that is a script's; otherwise in a fresh sandboxed one,
-- never in the real globals.
local function load_text(code, name, caller)
  if byte(code, 1) == 27 then
    return nil, "attempt to load a binary chunk"
  end
  local f, err = loadstring(code, name)
  if not f then return nil, err end
  if getmetatable(caller) ~= environment then
    caller = setmetatable({}, environment)
  end
  setfenv(f, caller)
  return f
end
G.loadstring = function(code, name)
  if type(code) == "number" then code = tostring(code) end
  -- Anything else is not code: the original raises its error.
  if type(code) ~= "string" then return loadstring(code, name) end
  return load_text(code, name, getfenv(2))
end
G.load = function(reader, name)
  -- Lua 5.1's load takes a reader function only: the original raises.
  if type(reader) ~= "function" then return load(reader, name) end
  local parts = {}
  while true do
    local piece = reader()
    if piece == nil or piece == "" then break end
    if type(piece) ~= "string" then return nil, "reader function must return a string" end
    parts[#parts + 1] = piece
  end
  return load_text(concat(parts), name or "=(load)", getfenv(2))
end

for _, name in ipairs(libraries) do
  if type(G[name]) == "table" then G[name] = readonly(G[name]) end
end
local strings = getmetatable("")
strings.__index = G.string
strings.__metatable = readonly(strings)
G._G = readonly(G)
"#;

/// Globals a script must not reach (Redis 7 has none of them).
const REMOVED: [&str; 8] = [
    "dofile", "loadfile", "module", "require", "getfenv", "setfenv", "newproxy", "print",
];

/// The library tables made read-only (with `_G`).
const LIBRARIES: [&str; 9] = [
    "string",
    "table",
    "math",
    "coroutine",
    "redis",
    "cjson",
    "cmsgpack",
    "bit",
    "struct",
];

/// Registry name of the environments' metatable.
const ENVIRONMENT_KEY: &str = "strata_sandbox";
/// Registry name of the scripts' shared environment.
const SCRIPT_ENVIRONMENT_KEY: &str = "strata_script_env";
/// Registry name of the real `redis` table (scripts see a proxy).
const REDIS_KEY: &str = "strata_redis";

/// Seals `lua`'s globals once every library is in place; `kill_check`
/// answers whether `SCRIPT KILL` asked.
pub(super) fn seal(lua: &Lua, kill_check: mlua::Function) -> mlua::Result<()> {
    let globals = lua.globals();
    let redis: Table = globals.raw_get("redis")?;
    lua.set_named_registry_value(REDIS_KEY, redis)?;
    let caught = lua.create_function(|lua, err: Value| match err {
        Value::Error(err) => Ok(Value::String(lua.create_string(errors::caught(&err))?)),
        other => Ok(other),
    })?;
    lua.load(UNCATCHABLE_KILL)
        .set_name("=sandbox")
        .call::<()>((globals.clone(), kill_check, caught))?;
    let environment: Table = lua
        .load(ENVIRONMENT)
        .set_name("=sandbox")
        .call(globals.clone())?;
    lua.set_named_registry_value(ENVIRONMENT_KEY, environment.clone())?;
    lua.set_named_registry_value(SCRIPT_ENVIRONMENT_KEY, environment_of(lua, &environment)?)?;
    let libraries = lua.create_sequence_from(LIBRARIES)?;
    lua.load(SEAL)
        .set_name("=sandbox")
        .call::<()>((globals.clone(), environment, libraries))?;
    for name in REMOVED {
        globals.raw_set(name, Value::Nil)?;
    }
    Ok(())
}

/// A fresh environment for a library: reads fall through to the globals,
/// writes are refused.
pub(super) fn environment(lua: &Lua) -> mlua::Result<Table> {
    environment_of(lua, &lua.named_registry_value(ENVIRONMENT_KEY)?)
}

fn environment_of(lua: &Lua, meta: &Table) -> mlua::Result<Table> {
    let env = lua.create_table()?;
    env.set_metatable(Some(meta.clone()));
    Ok(env)
}

/// The environment of every `EVAL` script: empty for good (writes are
/// refused and no script can reach it), so one serves them all; a run's
/// `KEYS` and `ARGV` are globals, as in Redis.
pub(super) fn script_environment(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(SCRIPT_ENVIRONMENT_KEY)
}

/// The real `redis` table, where each run sets its `redis.call`.
pub(super) fn redis_table(lua: &Lua) -> mlua::Result<Table> {
    lua.named_registry_value(REDIS_KEY)
}
