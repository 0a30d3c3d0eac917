//! The Lua interpreter: one per worker thread, with Redis 7's libraries
//! (`redis`, `cjson`, `cmsgpack`, `bit`, `struct`) and sandbox
//! (`sandbox.rs`); compiling a script body (text only). Knows nothing of
//! commands: `redis.call` is set for each run by `lua.rs`.

use super::run_context::RunContext;
use super::{handler, libs, redis_lib, sandbox, MAX_CACHED_SCRIPTS, SCRIPT_MEMORY_LIMIT};
use crate::reply::RespError;
use mlua::{ChunkMode, Function, Lua, LuaOptions, RegistryKey, StdLib, Table};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Lua instructions between checks of `SCRIPT KILL`.
pub(super) const KILL_CHECK_INSTRUCTIONS: u32 = 10_000;

thread_local! {
    static STATE: RefCell<Option<Lua>> = const { RefCell::new(None) };
}

fn new_state() -> mlua::Result<Lua> {
    let lua = Lua::new_with(
        StdLib::TABLE | StdLib::STRING | StdLib::MATH,
        LuaOptions::default(),
    )?;
    lua.gc_set_pause(GC_PAUSE);
    let globals = lua.globals();
    globals.raw_set("redis", redis_lib::table(&lua)?)?;
    libs::install(&lua, &globals)?;
    let kill_check = lua.create_function(|lua, ()| {
        Ok(lua
            .app_data_ref::<RunContext>()
            .is_some_and(|run| run.kill.load(Ordering::Relaxed)))
    })?;
    handler::install(&lua)?;
    sandbox::seal(&lua, kill_check)?;
    lua.set_app_data(Compiled::default());
    Ok(lua)
}

pub(super) fn with_lua<R>(f: impl FnOnce(&Lua) -> Result<R, RespError>) -> Result<R, RespError> {
    STATE.with(|state| {
        let mut state = state
            .try_borrow_mut()
            .map_err(|_| internal("interpreter busy"))?;
        if state.is_none() {
            *state = Some(new_state().map_err(|e| internal(&e.to_string()))?);
        }
        match state.as_ref() {
            Some(lua) => f(lua),
            None => Err(internal("no interpreter")),
        }
    })
}

pub(super) fn internal(text: &str) -> RespError {
    RespError::Script(format!("ERR {text}"))
}

/// The collector's pause (Lua's default is 200: a cycle starts when the
/// heap has doubled). Each run leaves a few small tables and closures
/// behind, and every cycle sweeps the whole heap (the libraries and the
/// compiled scripts): at 200 collection was 9% of the server's CPU under
/// `EVAL`, and 1,000 (a cycle waits for ten times the live heap, a few
/// MB) served 4% more.
const GC_PAUSE: i32 = 1_000;

/// Most bytes this interpreter may hold before its compiled scripts are
/// dropped (they are kept past a run, and each can be large).
const COMPILED_MEMORY_CAP: usize = 64 << 20;

/// This interpreter's compiled script bodies by sha, as Redis keeps
/// `f_<sha>`: a script compiles once per thread, in the scripts' shared
/// environment (it holds nothing: reads go to the globals, writes fail). Dropped whole when
/// `SCRIPT FLUSH` moved the generation, or when full.
#[derive(Default)]
struct Compiled {
    generation: u64,
    functions: HashMap<Box<str>, RegistryKey>,
}

/// The function of `body` (whose sha is `sha`) compiled by `lua`, from
/// its cache of `generation` or compiled now.
pub(super) fn compiled(
    lua: &Lua,
    sha: &str,
    body: &[u8],
    generation: u64,
) -> Result<Function, RespError> {
    let cached = lua.app_data_mut::<Compiled>().and_then(|mut cache| {
        if cache.generation != generation {
            *cache = Compiled {
                generation,
                ..Compiled::default()
            };
        }
        let key = cache.functions.get(sha)?;
        lua.registry_value::<Function>(key).ok()
    });
    if let Some(function) = cached {
        return Ok(function);
    }
    let env = sandbox::script_environment(lua).map_err(|e| internal(&e.to_string()))?;
    let function = bounded(lua, || Ok(compile(lua, body, Some(env))))
        .map_err(|e| internal(&e.to_string()))??;
    let key = lua
        .create_registry_value(function.clone())
        .map_err(|e| internal(&e.to_string()))?;
    let full = lua.used_memory() > COMPILED_MEMORY_CAP;
    if let Some(mut cache) = lua.app_data_mut::<Compiled>() {
        if full || cache.functions.len() >= MAX_CACHED_SCRIPTS {
            cache.functions.clear();
        }
        cache.functions.insert(sha.into(), key);
    }
    Ok(function)
}

pub(super) fn compile(lua: &Lua, body: &[u8], env: Option<Table>) -> Result<Function, RespError> {
    // A shebang line (`#!lua flags=...`) becomes a comment, so that line
    // numbers stay the script's.
    let commented;
    let body = match body.starts_with(b"#!") {
        true => {
            commented = [b"--", body].concat();
            &commented[..]
        }
        false => body,
    };
    // Text only: crafted bytecode escapes any sandbox.
    let mut chunk = lua
        .load(body)
        .set_name("@user_script")
        .set_mode(ChunkMode::Text);
    if let Some(env) = env {
        chunk = chunk.set_environment(env);
    }
    chunk.into_function().map_err(|err| {
        let text = match &err {
            mlua::Error::SyntaxError { message, .. } => message.clone(),
            other => other.to_string(),
        };
        RespError::Script(format!("ERR Error compiling script (new function): {text}"))
    })
}

/// Checks that `body` compiles (`SCRIPT LOAD`).
pub fn compile_check(body: &[u8]) -> Result<(), RespError> {
    with_lua(|lua| {
        bounded(lua, || Ok(compile(lua, body, None).map(drop)))
            .map_err(|e| internal(&e.to_string()))?
    })
}

/// Runs `call` (compiling or running a script) with Lua's allocations
/// bounded by [`SCRIPT_MEMORY_LIMIT`] past what the interpreter holds.
/// Only these are: with a limit set, mlua guards every table write and
/// string it makes with a protected call (each a `setjmp`), which cost a
/// sixth of an `EVAL`'s rate when a run's environment and `redis.call`
/// were built under it; what those hold is bounded by the request.
pub(super) fn bounded<R>(lua: &Lua, call: impl FnOnce() -> mlua::Result<R>) -> mlua::Result<R> {
    /// Lifts the limit when the call ends, also by a panic (the next run
    /// must not build its environment under this one's limit).
    struct Lift<'a>(&'a Lua);
    impl Drop for Lift<'_> {
        fn drop(&mut self) {
            let _ = self.0.set_memory_limit(0);
        }
    }
    let _ = lua.set_memory_limit(lua.used_memory().saturating_add(SCRIPT_MEMORY_LIMIT));
    let _lift = Lift(lua);
    call()
}

#[cfg(test)]
mod tests {
    use super::{bounded, compiled, with_lua, SCRIPT_MEMORY_LIMIT};

    /// A sha compiles once per generation: the cached function answers
    /// until `SCRIPT FLUSH` moves the generation.
    #[test]
    fn a_script_compiles_once_per_generation() {
        let run = |body: &str, generation| {
            with_lua(|lua| {
                let function = compiled(lua, "sha", body.as_bytes(), generation)?;
                Ok(function.call::<i64>(()).expect("runs"))
            })
            .expect("compiles")
        };
        assert_eq!(run("return 1", 0), 1);
        assert_eq!(run("return 2", 0), 1, "the compiled function is kept");
        assert_eq!(run("return 2", 1), 2, "a flush drops it");
    }

    /// Lua allocations are bounded inside `bounded` only, and the limit is
    /// lifted after it, also when the call panics.
    #[test]
    fn only_the_bounded_call_has_the_memory_limit() {
        let big = vec![b'x'; SCRIPT_MEMORY_LIMIT + (1 << 20)];
        with_lua(|lua| {
            let inside = bounded(lua, || lua.create_string(&big).map(drop));
            assert!(
                matches!(inside, Err(mlua::Error::MemoryError(_))),
                "{inside:?}"
            );
            let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                bounded(lua, || -> mlua::Result<()> { panic!("in the run") })
            }));
            assert!(panicked.is_err());
            assert!(lua.create_string(&big).is_ok(), "lifted after the call");
            Ok(())
        })
        .expect("interpreter");
    }
}
