//! The message handler every script runs under, as Redis runs scripts
//! under its `__redis__err__handler`: an error table a script raises
//! (`error({err = "..."})`, or `error(redis.error_reply(...))`) becomes
//! the error reply with its text, and an error of a Rust function is
//! worded with the script line it was called from ([`ReplyError`]).
//! Without it mlua turns a raised table into `table: 0x...`.

use mlua::{Function, Lua, Value};

use super::errors::{counts_already, ReplyError};

/// Calls `f` under `handler` with no arguments (a script body) or with
/// `keys` and `args` (a registered function).
const RUNNER: &str = r#"
local xpcall = ...
return function(f, handler, keys, args)
  if keys == nil then return xpcall(f, handler) end
  return xpcall(function() return f(keys, args) end, handler)
end
"#;

/// The interpreter's runner and handler (app data: fetched by type, not
/// by name from the registry, on every run).
struct Runner {
    runner: Function,
    handler: Function,
}

/// Makes the runner and the handler of a new interpreter (before the
/// sandbox replaces `xpcall`).
pub(super) fn install(lua: &Lua) -> mlua::Result<()> {
    let xpcall: Function = lua.globals().raw_get("xpcall")?;
    let runner: Function = lua.load(RUNNER).set_name("=runner").call(xpcall)?;
    let handler = lua.create_function(handle)?;
    lua.set_app_data(Runner { runner, handler });
    Ok(())
}

/// Runs `f` (with `keys` and `args` when given) under the handler; its
/// result, or the error as mlua's own call would give it.
pub(super) fn call(lua: &Lua, f: &Function, inputs: Option<(Value, Value)>) -> mlua::Result<Value> {
    let (keys, args) = inputs.unwrap_or((Value::Nil, Value::Nil));
    // Cloned out: no app data borrow may be held while a script runs
    // (mlua panics on inserting app data while one is).
    let (runner, handler) = lua
        .app_data_ref::<Runner>()
        .map(|run| (run.runner.clone(), run.handler.clone()))
        .ok_or_else(|| mlua::Error::runtime("no script runner"))?;
    let (ok, value): (bool, Value) = runner.call((f, handler, keys, args))?;
    if ok {
        return Ok(value);
    }
    Err(match value {
        Value::Error(err) => *err,
        // Lua's own text for an allocation refused (the handler is not
        // called then): the script's memory limit.
        Value::String(text) if text.as_bytes().as_ref() == b"not enough memory" => {
            mlua::Error::MemoryError("not enough memory".into())
        }
        other => mlua::Error::RuntimeError(
            lua.coerce_string(other.clone())
                .ok()
                .flatten()
                .map_or_else(|| format!("{other:?}"), |s| s.to_string_lossy().to_string()),
        ),
    })
}

/// The user chunk (`user_script`, `user_function`) and its line where the
/// error was raised: the innermost frame of a user chunk.
fn script_line(lua: &Lua) -> Option<(String, i64)> {
    (1..64).find_map(|level| {
        let frame = lua.inspect_stack(level)?;
        let source = frame.source();
        let chunk = source.source?.strip_prefix('@')?.to_string();
        chunk
            .starts_with("user_")
            .then(|| (chunk, i64::from(frame.curr_line())))
    })
}

fn handle(lua: &Lua, err: Value) -> mlua::Result<Value> {
    let raise = |text: String, line: i64, counted: bool| {
        let error = ReplyError {
            text,
            line,
            counted,
        };
        Value::Error(Box::new(mlua::Error::external(error)))
    };
    Ok(match err {
        // An error table: one `redis.pcall` made of a failed command's
        // error says it was counted then.
        Value::Table(table) => match table.raw_get::<Value>("err")? {
            Value::String(text) => raise(
                text.to_string_lossy().to_string(),
                script_line(lua).map_or(0, |(_, line)| line),
                counts_already(&table),
            ),
            _ => Value::Table(table),
        },
        // A Rust function's error, worded as Redis words a C function's:
        // the calling line first, or an error reply's own `ERR` text (the
        // `redis` table's); one that names its line already is as it is.
        Value::Error(err) => match (innermost(&err), script_line(lua)) {
            (mlua::Error::RuntimeError(text), Some((chunk, line))) if !text.starts_with(&chunk) => {
                match text.starts_with("ERR ") {
                    true => raise(text.clone(), line, false),
                    false => raise(format!("ERR {chunk}:{line}: {text}"), line, false),
                }
            }
            _ => Value::Error(err),
        },
        other => other,
    })
}

fn innermost(err: &mlua::Error) -> &mlua::Error {
    match err {
        mlua::Error::CallbackError { cause, .. } => innermost(cause),
        other => other,
    }
}
