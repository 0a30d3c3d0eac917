//! Running a script: [`run`] runs one `EVAL` script with its `KEYS` and
//! `ARGV` as globals (in the scripts' shared, empty environment: a script
//! reads the sealed globals and cannot change any, so nothing leaks from
//! one script to the next), or one registered function with its keys and
//! arguments (`FCALL`), under the message handler, with `redis.call`
//! and `redis.pcall` serving the run (`redis_calls`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use mlua::{Function, HookTriggers, Lua, MultiValue, Table, Value, VmState};
use strata_kv::Store;
use strata_service::Console;

use super::arguments::call_args;
use super::call::Failed;
use super::convert::{lua_to_reply, reply_to_lua};
use super::debugger::{self, rollback::Rollback, DebugMode, Debugger};
use super::errors::{counted, Killed, ReplyError};
use super::functions::Library;
use super::interpreter::{bounded, compiled, with_lua, KILL_CHECK_INSTRUCTIONS};
use super::run_context::RunContext;
use super::{
    call, handler, library, libs, redis_calls, sandbox, Access, RunGuard, SCRIPT_MEMORY_LIMIT,
};
use crate::command::Ctx;
use crate::reply::RespError;
use crate::stats::Tally;
use crate::writer::{ReplyWriter, RespVersion};

/// What runs: an `EVAL` body or a registered function.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    /// A script body and its sha.
    Script {
        /// The Lua code.
        body: &'a [u8],
        /// Its SHA1, as errors name it.
        sha: &'a str,
    },
    /// A registered function.
    Function {
        /// Its library.
        library: &'a Library,
        /// Its name.
        name: &'a str,
        /// The command calling it (shown by `FUNCTION STATS`).
        argv: &'a [&'a [u8]],
    },
}

impl Target<'_> {
    /// How errors name it: (`script: <this>`, chunk name).
    fn names(&self) -> (&str, &'static str) {
        match self {
            Target::Script { sha, .. } => (sha, "user_script"),
            Target::Function { name, .. } => (name, "user_function"),
        }
    }
}

/// What the run calls, resolved before it starts.
enum Callable<'a> {
    /// A script's body, compiled once per interpreter and `SCRIPT FLUSH`.
    Body {
        body: &'a [u8],
        generation: u64,
    },
    Function(Function),
}

/// How long a script runs on its worker thread before the worker's other
/// connections move to another thread (so `SCRIPT KILL` and the `BUSY`
/// replies are served): most scripts end in microseconds and never move,
/// and the others' wait stays short.
const HAND_OFF_AFTER: Duration = Duration::from_millis(2);

/// A running script's clock for handing its worker off, checked from the
/// instruction hook.
struct LongRun {
    next_try: Cell<Instant>,
    left: Cell<bool>,
}

impl LongRun {
    fn new() -> Self {
        Self {
            next_try: Cell::new(Instant::now() + HAND_OFF_AFTER),
            left: Cell::new(false),
        }
    }

    /// Past [`HAND_OFF_AFTER`], hands the worker off once (tried again a
    /// period later if no thread took it; off a worker it never does).
    fn check(&self) {
        if self.left.get() {
            return;
        }
        let now = Instant::now();
        if now < self.next_try.get() {
            return;
        }
        self.next_try.set(now + HAND_OFF_AFTER);
        self.left.set(strata_service::workers::leave_worker());
    }
}

/// Runs `target` with `keys` and `args` as `ctx`'s connection, appending
/// its reply to `out`.
pub fn run<S: Store>(
    ctx: &mut Ctx<'_, S>,
    target: Target<'_>,
    keys: &[&[u8]],
    args: &[&[u8]],
    access: Access,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    run_with(ctx, target, keys, args, access, out, None)
}

/// [`run`], or with `debug` an `EVAL` script as a debugging session with
/// its client on the console (see [`debugger`](super::debugger)); the
/// caller closes the connection after a session's reply.
#[allow(clippy::too_many_arguments)]
pub fn run_with<S: Store>(
    ctx: &mut Ctx<'_, S>,
    target: Target<'_>,
    keys: &[&[u8]],
    args: &[&[u8]],
    access: Access,
    out: &mut ReplyWriter<'_>,
    debug: Option<(DebugMode, Console)>,
) -> Result<(), RespError> {
    let scripts = &ctx.shared.scripts;
    let guard = match target {
        Target::Script { .. } => scripts.begin(ctx.conn.client.id),
        Target::Function { name, argv, .. } => {
            scripts.begin_function(ctx.conn.client.id, name, argv)
        }
    };
    let debugging = match (debug, target) {
        (Some((mode, console)), Target::Script { body, .. }) => {
            let threshold = Duration::from_millis(scripts.busy_threshold_ms().max(1));
            let client = Arc::clone(&ctx.conn.client);
            let session = Debugger::start(console, body, guard.kill.clone(), client, threshold)
                .map_err(|err| {
                    RespError::Script(format!("ERR cannot start a debugging session: {err}"))
                })?;
            // A session waits for its client: this worker's other
            // connections move now, not after the first stop.
            let _ = strata_service::workers::leave_worker();
            Some((session, mode))
        }
        _ => None,
    };
    let version = out.version();
    let reply = with_lua(|lua| {
        // A library not evaluated on this thread yet is, before the run
        // (its top level cannot reach `redis.call`).
        let callable = match target {
            Target::Script { body, .. } => Callable::Body {
                body,
                generation: scripts.generation(),
            },
            Target::Function { library, name, .. } => {
                let functions = &ctx.shared.functions;
                Callable::Function(library::callback(lua, functions, library, name)?)
            }
        };
        let kill: Arc<AtomicBool> = guard.kill.clone();
        lua.set_app_data(RunContext {
            kill: kill.clone(),
            resp: Cell::new(RespVersion::Resp2),
            user: Arc::clone(&ctx.conn.user),
            acl_check: call::acl_allows,
            debugger: debugging.as_ref().map(|(session, _)| Rc::clone(session)),
        });
        libs::reset(lua);
        match &debugging {
            None => {
                let long_run = LongRun::new();
                lua.set_hook(
                    HookTriggers::new().every_nth_instruction(KILL_CHECK_INSTRUCTIONS),
                    move |_, _| match kill.load(Ordering::Relaxed) {
                        true => Err(mlua::Error::external(Killed)),
                        false => {
                            long_run.check();
                            Ok(VmState::Continue)
                        }
                    },
                );
            }
            Some((session, _)) => {
                let session = Rc::clone(session);
                lua.set_hook(
                    HookTriggers::new()
                        .every_line()
                        .every_nth_instruction(debugger::COUNT_EVERY),
                    move |lua, debug| {
                        let in_script = debug.source().source.as_deref() == Some("@user_script");
                        debugger::on_hook(
                            lua,
                            debug.event(),
                            debug.curr_line(),
                            in_script,
                            &session,
                        )
                    },
                );
            }
        }
        let names = target.names();
        let rollback = match &debugging {
            Some((_, DebugMode::Yes)) => Some(Rollback::default()),
            _ => None,
        };
        let result = run_in(
            lua, ctx, callable, names, keys, args, access, &guard, version, rollback,
        );
        lua.remove_hook();
        lua.remove_app_data::<RunContext>();
        result
    });
    drop(guard);
    if let Some((session, _)) = &debugging {
        session.borrow_mut().end();
    }
    out.raw(&reply?);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_in<S: Store>(
    lua: &Lua,
    ctx: &mut Ctx<'_, S>,
    callable: Callable<'_>,
    (sha, chunk): (&str, &'static str),
    keys: &[&[u8]],
    args: &[&[u8]],
    access: Access,
    guard: &RunGuard<'_>,
    version: RespVersion,
    rollback: Option<Rollback>,
) -> Result<BytesMut, RespError> {
    let shared = ctx.shared;
    let ctx = RefCell::new(ctx);
    let rollback = RefCell::new(rollback);
    let run_call = |lua: &Lua, argv: MultiValue| -> Result<Value, Failed> {
        let argv = call_args(argv)?;
        let mut ctx = ctx
            .try_borrow_mut()
            .map_err(|_| Failed::from("ERR recursive redis.call"))?;
        let (resp, debugger) = RunContext::resp_and_stepping(lua);
        if let Some(debugger) = &debugger {
            debugger.borrow_mut().log_call(&argv);
        }
        let mut rollback = rollback.borrow_mut();
        let result = call::call(
            &mut **ctx,
            &argv,
            access,
            guard,
            keys,
            resp,
            rollback.as_mut(),
        );
        if let Some(debugger) = &debugger {
            debugger.borrow_mut().log_result(&result);
        }
        let bytes = result?;
        reply_to_lua(lua, &bytes).map_err(|e| Failed::from(format!("ERR {e}")))
    };
    let outcome = redis_calls::lend(
        &run_call,
        || -> mlua::Result<Result<BytesMut, RespError>> {
            let (call, pcall) = redis_calls::functions(lua)?;
            let redis = sandbox::redis_table(lua)?;
            redis.raw_set("call", call)?;
            redis.raw_set("pcall", pcall)?;
            let value: Value = match &callable {
                Callable::Body { body, generation } => {
                    // Globals, as in Redis: the script cannot assign them.
                    let globals = lua.globals();
                    globals.raw_set("KEYS", string_list(lua, keys)?)?;
                    globals.raw_set("ARGV", string_list(lua, args)?)?;
                    let function = match compiled(lua, sha, body, *generation) {
                        Ok(function) => function,
                        Err(err) => return Ok(Err(err)),
                    };
                    bounded(lua, || handler::call(lua, &function, None))?
                }
                // Redis calls a function with its keys and arguments as tables.
                Callable::Function(function) => {
                    let (keys, args) = (string_list(lua, keys)?, string_list(lua, args)?);
                    let inputs = Some((Value::Table(keys), Value::Table(args)));
                    bounded(lua, || handler::call(lua, function, inputs))?
                }
            };
            let mut bytes = BytesMut::new();
            // Error replies in the answer count as the client's errors (those
            // of failed commands were counted when they failed).
            let mut out = ReplyWriter::counting(&mut bytes, version, &shared.errorstats);
            let written = lua_to_reply(&value, &mut out, RunContext::resp(lua), 0);
            shared.stats.record(Tally {
                errors: out.counted_errors(),
                ..Tally::default()
            });
            if !written {
                return Ok(Err(RespError::Script("ERR reached lua stack limit".into())));
            }
            Ok(Ok(bytes))
        },
    );
    if let Ok(redis) = sandbox::redis_table(lua) {
        let _ = redis.raw_set("call", Value::Nil);
        let _ = redis.raw_set("pcall", Value::Nil);
    }
    let globals = lua.globals();
    let _ = globals.raw_set("KEYS", Value::Nil);
    let _ = globals.raw_set("ARGV", Value::Nil);
    if let Some(rollback) = rollback.into_inner() {
        rollback.restore(ctx.into_inner());
    }
    match outcome {
        Ok(result) => result,
        // A failed command's error, raised on: counted when it failed.
        Err(err) if counted(&err) => Err(RespError::ScriptCounted(describe(&err, sha, chunk))),
        Err(err) => Err(RespError::Script(describe(&err, sha, chunk))),
    }
}

fn string_list(lua: &Lua, items: &[&[u8]]) -> mlua::Result<Table> {
    let table = lua.create_table_with_capacity(items.len(), 0)?;
    for (i, item) in items.iter().enumerate() {
        table.raw_set(i + 1, lua.create_string(item)?)?;
    }
    Ok(table)
}

/// What a failed script answers, from the error's cause, in Redis 7's
/// words: the message, then `script: <sha>, on @user_script:<line>.`.
fn describe(err: &mlua::Error, sha: &str, chunk: &str) -> String {
    match err {
        mlua::Error::CallbackError { cause, .. } => describe(cause, sha, chunk),
        mlua::Error::ExternalError(inner) => {
            if let Some(reply) = inner.downcast_ref::<ReplyError>() {
                format!("{} script: {sha}, on @{chunk}:{}.", reply.text, reply.line)
            } else if inner.downcast_ref::<Killed>().is_some() {
                format!("ERR {Killed}")
            } else {
                format!("ERR {inner} script: {sha}")
            }
        }
        mlua::Error::MemoryError(_) => {
            format!("ERR script used more than {SCRIPT_MEMORY_LIMIT} bytes of memory script: {sha}")
        }
        mlua::Error::RuntimeError(text) => {
            let text = text.split("\nstack traceback:").next().unwrap_or_default();
            let line = text
                .strip_prefix(chunk)
                .and_then(|rest| rest.strip_prefix(':'))
                .and_then(|rest| rest.split(':').next())
                .and_then(|n| n.parse::<u32>().ok());
            match line {
                Some(line) => format!("ERR {text} script: {sha}, on @{chunk}:{line}."),
                None => format!("ERR {text} script: {sha}"),
            }
        }
        other => format!("ERR {other} script: {sha}"),
    }
}
