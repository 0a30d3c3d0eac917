//! The `redis` table a script sees, less what each run adds (`call` and
//! `pcall`: they hold the run's connection): `sha1hex`, `error_reply`,
//! `status_reply`, `log` and its levels, the version, the replication
//! calls of Redis 7, and `setresp` and `acl_check_cmd`, which read the
//! run's [`RunContext`].
//!
//! Replication: Strata has no replicas, and every effect of a script
//! reaches the command log (as `REPL_ALL` would in Redis), so
//! `redis.set_repl` checks its flags as Redis does and changes nothing,
//! and `redis.replicate_commands` answers true as Redis 7 does (effects
//! are always what is propagated). `redis.breakpoint` and `redis.debug`
//! act in a `SCRIPT DEBUG` session (`debugger`); outside one, as in
//! Redis, the first answers false and the second does nothing.

use mlua::{Lua, MultiValue, Table, Value};

use std::sync::Arc;

use super::arguments::call_args;
use super::run_context::RunContext;
use super::sha1_hex;
use crate::shared::REDIS_VERSION;
use crate::writer::RespVersion;

/// `redis.REPL_*`: where a script's effects may be propagated.
const REPL_FLAGS: [(&str, i64); 5] = [
    ("REPL_NONE", 0),
    ("REPL_AOF", 1),
    ("REPL_SLAVE", 2),
    ("REPL_REPLICA", 2),
    ("REPL_ALL", 3),
];

/// `redis.LOG_*`.
const LOG_LEVELS: [(&str, i64); 4] = [
    ("LOG_DEBUG", 0),
    ("LOG_VERBOSE", 1),
    ("LOG_NOTICE", 2),
    ("LOG_WARNING", 3),
];

/// `major.minor.patch` as Redis's `REDIS_VERSION_NUM` (`0x00MMmmpp`).
fn version_num(version: &str) -> i64 {
    version
        .split('.')
        .take(3)
        .map(|part| part.parse::<i64>().unwrap_or(0) & 0xff)
        .fold(0, |num, part| (num << 8) | part)
}

/// The `redis` table of a new interpreter.
pub(super) fn table(lua: &Lua) -> mlua::Result<Table> {
    let redis = lua.create_table()?;
    redis.raw_set(
        "sha1hex",
        lua.create_function(|_, body: mlua::String| Ok(sha1_hex(&body.as_bytes())))?,
    )?;
    for (name, field) in [("error_reply", "err"), ("status_reply", "ok")] {
        redis.raw_set(
            name,
            lua.create_function(move |lua, text: mlua::String| {
                let table = lua.create_table()?;
                table.raw_set(field, text)?;
                Ok(table)
            })?,
        )?;
    }
    for (name, level) in LOG_LEVELS.into_iter().chain(REPL_FLAGS) {
        redis.raw_set(name, level)?;
    }
    redis.raw_set("log", lua.create_function(log)?)?;
    redis.raw_set("REDIS_VERSION", REDIS_VERSION)?;
    redis.raw_set("REDIS_VERSION_NUM", version_num(REDIS_VERSION))?;
    redis.raw_set("set_repl", lua.create_function(set_repl)?)?;
    redis.raw_set(
        "replicate_commands",
        lua.create_function(|_, _: MultiValue| Ok(true))?,
    )?;
    redis.raw_set("breakpoint", lua.create_function(breakpoint)?)?;
    redis.raw_set("debug", lua.create_function(debug)?)?;
    redis.raw_set("setresp", lua.create_function(setresp)?)?;
    redis.raw_set("acl_check_cmd", lua.create_function(acl_check_cmd)?)?;
    Ok(redis)
}

/// `redis.breakpoint()`: in a debugging session, stop at the next line
/// (true); elsewhere nothing (false).
fn breakpoint(lua: &Lua, _: MultiValue) -> mlua::Result<bool> {
    let Some(debugger) = RunContext::debugger(lua) else {
        return Ok(false);
    };
    debugger.borrow_mut().break_next();
    Ok(true)
}

/// `redis.debug(...)`: in a debugging session, the values on one line of
/// the console; elsewhere nothing.
fn debug(lua: &Lua, values: MultiValue) -> mlua::Result<()> {
    if let Some(debugger) = RunContext::debugger(lua) {
        let values: Vec<Value> = values.into_iter().collect();
        debugger.borrow_mut().log_debug(&values);
    }
    Ok(())
}

/// `redis.log(level, ...)`: the arguments joined by spaces, at the level.
fn log(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    let mut args = args.into_iter();
    let level = match args.next() {
        Some(Value::Integer(n)) => n,
        Some(Value::Number(n)) => n as i64,
        _ => {
            return Err(mlua::Error::runtime(
                "First argument must be a number (log level).",
            ))
        }
    };
    let mut text = String::new();
    for arg in args {
        if let Some(s) = lua.coerce_string(arg)? {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&String::from_utf8_lossy(&s.as_bytes()));
        }
    }
    match level {
        0 => tracing::debug!(target: "strata::script", "{text}"),
        1 | 2 => tracing::info!(target: "strata::script", "{text}"),
        3 => tracing::warn!(target: "strata::script", "{text}"),
        _ => return Err(mlua::Error::runtime("Invalid debug level.")),
    }
    Ok(())
}

/// `redis.set_repl(flags)`: Redis 7.0's checks and texts (see the module
/// doc); like Redis's `lua_tonumber`, what is not a number counts as 0.
fn set_repl(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    if args.len() != 1 {
        return Err(mlua::Error::runtime(
            "ERR redis.set_repl() requires two arguments.",
        ));
    }
    let flags = match args.into_iter().next() {
        Some(value) => lua.coerce_number(value)?.unwrap_or(0.0),
        None => 0.0,
    };
    match flags as i64 {
        0..=3 => Ok(()),
        _ => Err(mlua::Error::runtime(
            "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.",
        )),
    }
}

/// `redis.setresp(2|3)`: the protocol of the run's `redis.call` replies.
fn setresp(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    if args.len() != 1 {
        return Err(mlua::Error::runtime(
            "ERR redis.setresp() requires one argument.",
        ));
    }
    let asked = args.into_iter().next().unwrap_or(Value::Nil);
    let resp = match lua.coerce_number(asked)?.map(|n| n as i64) {
        Some(2) => RespVersion::Resp2,
        Some(3) => RespVersion::Resp3,
        _ => return Err(mlua::Error::runtime("ERR RESP version must be 2 or 3.")),
    };
    if let Some(run) = lua.app_data_ref::<RunContext>() {
        run.resp.set(resp);
    }
    Ok(())
}

/// `redis.acl_check_cmd(command, ...)`: whether the calling user may run
/// it (false outside a run).
fn acl_check_cmd(lua: &Lua, args: MultiValue) -> mlua::Result<bool> {
    let argv = call_args(args).map_err(mlua::Error::runtime)?;
    let Some((user, check)) = lua
        .app_data_ref::<RunContext>()
        .map(|run| (Arc::clone(&run.user), run.acl_check))
    else {
        return Ok(false);
    };
    check(&user, &argv).map_err(mlua::Error::runtime)
}

#[cfg(test)]
mod tests {
    use super::version_num;

    #[test]
    fn the_version_number_packs_a_byte_per_part() {
        assert_eq!(
            version_num("7.0.15"),
            0x07000f,
            "Redis 7.0.15 reports 458767"
        );
        assert_eq!(version_num("7.2.0"), 0x070200);
    }
}
