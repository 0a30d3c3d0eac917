//! Function libraries in the interpreter: the `#!lua name=<lib>` shebang,
//! evaluating a library's code with `redis.register_function` (Redis 7's
//! positional and named forms, flags, errors), and each thread's evaluated
//! copy of the libraries it has called (re-evaluated when the library was
//! loaded again since).
//!
//! A library's code runs at load with a 500 ms budget (Redis's
//! `FUNCTION LOAD timeout`) and the script memory limit, in an environment
//! of its own: it reads the globals and cannot create any; `redis.call` is
//! not available while it loads.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use mlua::{
    ChunkMode, Function, HookTriggers, Lua, MultiValue, RegistryKey, Table, Value, VmState,
};

use super::functions::{FunctionInfo, Functions, Library, FLAGS};
use super::interpreter::{with_lua, KILL_CHECK_INSTRUCTIONS};
use super::sandbox;
use super::SCRIPT_MEMORY_LIMIT;
use crate::reply::RespError;

/// Copies of deleted libraries a thread may keep before it drops them.
const STALE_COPIES: usize = 64;

/// Redis's bound on evaluating a library at load.
const LOAD_TIMEOUT: Duration = Duration::from_millis(500);

thread_local! {
    /// Library name -> (generation, table of its callbacks by name).
    static LOADED: RefCell<HashMap<String, (u64, RegistryKey)>> = RefCell::new(HashMap::new());
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The library name of `code` and its body (from the shebang's newline on,
/// so line numbers stay those of the whole code), with Redis's errors.
pub fn metadata(code: &[u8]) -> Result<(String, &[u8]), String> {
    if !code.starts_with(b"#!") {
        return Err("Missing library metadata".into());
    }
    let end = memchr::memchr(b'\n', code).ok_or("Invalid library metadata")?;
    let shebang = String::from_utf8_lossy(&code[2..end]);
    let mut parts = shebang.split_ascii_whitespace();
    let engine = parts.next().unwrap_or_default();
    let mut name = None;
    for part in parts {
        match part.get(..5) {
            Some(prefix) if prefix.eq_ignore_ascii_case("name=") => {
                if name.is_some() {
                    return Err(
                        "Invalid metadata value, name argument was given multiple times".into(),
                    );
                }
                name = Some(part[5..].to_string());
            }
            _ => return Err(format!("Invalid metadata value given: {part}")),
        }
    }
    let name = name.ok_or("Library name was not given")?;
    if !valid_name(&name) {
        return Err("Library names can only contain letters, numbers, or underscores(_) and must be at least one character long".into());
    }
    if !engine.eq_ignore_ascii_case("lua") {
        return Err(format!("Engine '{engine}' not found"));
    }
    Ok((name, &code[end..]))
}

/// `FUNCTION LOAD` and `FUNCTION RESTORE`: evaluates `code` here and
/// returns the library it defines (its callbacks stay cached for this
/// thread).
pub fn load(functions: &Functions, code: &[u8]) -> Result<Library, String> {
    let (name, body) = metadata(code)?;
    let generation = functions.next_generation();
    let infos = with_lua(|lua| {
        let (table, infos) = evaluate(lua, body).map_err(RespError::Script)?;
        remember(lua, functions, &name, generation, table);
        Ok(infos)
    })
    .map_err(|e| e.to_string().trim_start_matches("ERR ").to_string())?;
    if infos.is_empty() {
        return Err("No functions registered".into());
    }
    Ok(Library {
        name,
        code: code.into(),
        functions: infos,
        generation,
    })
}

/// Caches a library's callbacks for this thread; drops the copies of
/// libraries deleted since once they pile up, so a thread keeps no more
/// than the loaded libraries and a few more.
fn remember(lua: &Lua, functions: &Functions, name: &str, generation: u64, table: Table) {
    let Ok(key) = lua.create_registry_value(table) else {
        return;
    };
    LOADED.with(|loaded| {
        let mut loaded = loaded.borrow_mut();
        if let Some((_, old)) = loaded.insert(name.into(), (generation, key)) {
            let _ = lua.remove_registry_value(old);
        }
        if loaded.len() > functions.counts().libraries + STALE_COPIES {
            let stale: Vec<String> = loaded
                .keys()
                .filter(|lib| lib.as_str() != name && !functions.has_library(lib))
                .cloned()
                .collect();
            for lib in stale {
                if let Some((_, old)) = loaded.remove(&lib) {
                    let _ = lua.remove_registry_value(old);
                }
            }
        }
    });
}

/// The callback of function `name` of `library`, evaluating the library
/// in this thread's interpreter first if it has not seen this load of it.
pub(super) fn callback(
    lua: &Lua,
    functions: &Functions,
    library: &Library,
    name: &str,
) -> Result<Function, RespError> {
    let cached = LOADED.with(|loaded| {
        let loaded = loaded.borrow();
        let (generation, key) = loaded.get(&library.name)?;
        (*generation == library.generation)
            .then(|| lua.registry_value::<Table>(key).ok())
            .flatten()
    });
    let table = match cached {
        Some(table) => table,
        None => {
            let (_, body) =
                metadata(&library.code).map_err(|e| RespError::Script(format!("ERR {e}")))?;
            let (table, _) =
                evaluate(lua, body).map_err(|e| RespError::Script(format!("ERR {e}")))?;
            remember(
                lua,
                functions,
                &library.name,
                library.generation,
                table.clone(),
            );
            table
        }
    };
    table
        .raw_get::<Function>(name)
        .map_err(|_| RespError::Script("ERR Function not found".into()))
}

/// Runs a library's body with `redis.register_function` available: the
/// callbacks by name and what was registered, or the error line.
fn evaluate(lua: &Lua, body: &[u8]) -> Result<(Table, Vec<FunctionInfo>), String> {
    let callbacks = lua.create_table().map_err(|e| e.to_string())?;
    let infos: RefCell<Vec<FunctionInfo>> = RefCell::new(Vec::new());
    let started = Instant::now();
    lua.set_hook(
        HookTriggers::new().every_nth_instruction(KILL_CHECK_INSTRUCTIONS),
        move |_, _| match started.elapsed() > LOAD_TIMEOUT {
            true => Err(mlua::Error::runtime("FUNCTION LOAD timeout")),
            false => Ok(VmState::Continue),
        },
    );
    let _ = lua.set_memory_limit(lua.used_memory().saturating_add(SCRIPT_MEMORY_LIMIT));
    let outcome = lua.scope(|scope| {
        let register = scope.create_function(|_, args: MultiValue| {
            let info =
                registration(args, &callbacks, &infos.borrow()).map_err(mlua::Error::runtime)?;
            infos.borrow_mut().push(info);
            Ok(())
        })?;
        let redis = sandbox::redis_table(lua)?;
        redis.raw_set("register_function", register)?;
        let env = sandbox::environment(lua)?;
        let chunk = lua
            .load(body)
            .set_name("@user_function")
            .set_mode(ChunkMode::Text)
            .set_environment(env)
            .into_function();
        let result = match chunk {
            Ok(chunk) => chunk
                .call::<()>(())
                .map_err(|e| format!("Error registering functions: {}", message(&e))),
            Err(e) => Err(format!("Error compiling function: {}", message(&e))),
        };
        redis.raw_set("register_function", Value::Nil)?;
        Ok(result)
    });
    lua.remove_hook();
    let _ = lua.set_memory_limit(0);
    match outcome {
        Ok(Ok(())) => Ok((callbacks, infos.into_inner())),
        Ok(Err(text)) => Err(text),
        Err(e) => Err(format!("Error registering functions: {}", message(&e))),
    }
}

/// The innermost message of a Lua error, without its traceback.
fn message(err: &mlua::Error) -> String {
    match err {
        mlua::Error::CallbackError { cause, .. } => message(cause),
        mlua::Error::RuntimeError(text) | mlua::Error::SyntaxError { message: text, .. } => text
            .split("\nstack traceback:")
            .next()
            .unwrap_or_default()
            .to_string(),
        mlua::Error::MemoryError(_) => {
            format!("script used more than {SCRIPT_MEMORY_LIMIT} bytes of memory")
        }
        other => other.to_string(),
    }
}

/// One `redis.register_function` call: checks it as Redis does and adds
/// its callback to `callbacks`.
fn registration(
    args: MultiValue,
    callbacks: &Table,
    so_far: &[FunctionInfo],
) -> Result<FunctionInfo, String> {
    let args: Vec<Value> = args.into_iter().collect();
    let (name, callback, description, flags) = match args.as_slice() {
        [Value::Table(named)] => named_args(named)?,
        [_] => return Err("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).".into()),
        [name, callback] => {
            let name = match name {
                Value::String(s) => s.to_string_lossy().to_string(),
                _ => return Err("first argument to redis.register_function must be a string".into()),
            };
            let Value::Function(callback) = callback else {
                return Err("second argument to redis.register_function must be a function".into());
            };
            (name, callback.clone(), None, Vec::new())
        }
        _ => return Err("wrong number of arguments to redis.register_function".into()),
    };
    if !valid_name(&name) {
        return Err("Function names can only contain letters, numbers, or underscores(_) and must be at least one character long".into());
    }
    if so_far.iter().any(|f| f.name == name) {
        return Err("Function already exists in the library".into());
    }
    callbacks
        .raw_set(name.as_str(), callback)
        .map_err(|e| e.to_string())?;
    Ok(FunctionInfo {
        name,
        description,
        flags,
    })
}

type Registration = (String, Function, Option<Vec<u8>>, Vec<usize>);

fn named_args(named: &Table) -> Result<Registration, String> {
    let (mut name, mut callback, mut description, mut flags) = (None, None, None, Vec::new());
    for pair in named.pairs::<Value, Value>() {
        let (key, value) = pair.map_err(|e| e.to_string())?;
        let Value::String(key) = key else {
            return Err(
                "named argument key given to redis.register_function is not a string".into(),
            );
        };
        match key.to_string_lossy().to_ascii_lowercase().as_str() {
            "function_name" => {
                match value {
                    Value::String(s) => name = Some(s.to_string_lossy().to_string()),
                    _ => return Err(
                        "function_name argument given to redis.register_function must be a string"
                            .into(),
                    ),
                }
            }
            "description" => {
                match value {
                    Value::String(s) => description = Some(s.as_bytes().to_vec()),
                    _ => return Err(
                        "description argument given to redis.register_function must be a string"
                            .into(),
                    ),
                }
            }
            "callback" => match value {
                Value::Function(f) => callback = Some(f),
                _ => {
                    return Err(
                        "callback argument given to redis.register_function must be a function"
                            .into(),
                    )
                }
            },
            "flags" => {
                let Value::Table(list) = value else {
                    return Err("flags argument to redis.register_function must be a table representing function flags".into());
                };
                for flag in list.sequence_values::<Value>() {
                    let known = match flag.map_err(|e| e.to_string())? {
                        Value::String(s) => {
                            let s = s.to_string_lossy();
                            FLAGS.iter().position(|f| f.eq_ignore_ascii_case(&s))
                        }
                        _ => None,
                    };
                    let index = known.ok_or("unknown flag given")?;
                    if !flags.contains(&index) {
                        flags.push(index);
                    }
                }
                flags.sort_unstable();
            }
            _ => return Err("unknown argument given to redis.register_function".into()),
        }
    }
    let name = name.ok_or("redis.register_function must get a function name argument")?;
    let callback = callback.ok_or("redis.register_function must get a callback argument")?;
    Ok((name, callback, description, flags))
}
