//! Lua scripting as Redis has it (`EVAL`, `EVALSHA`, `SCRIPT`): Lua 5.1
//! through `mlua` (built from source), one interpreter per worker thread
//! (`interpreter.rs`, running scripts: `lua.rs`), the `redis` library
//! (`redis_lib.rs`, with `redis.call` made once per interpreter and lent
//! each run, `redis_calls.rs`, dispatching through the command table:
//! `call.rs`), Redis's other libraries (`libs/`: `cjson`,
//! `cmsgpack`, `bit`, `struct`), the sandbox that keeps one script's
//! changes from the next (`sandbox.rs`), errors as scripts catch them
//! (`errors.rs`), the conversions between Lua values and replies
//! (`convert.rs`), and the debugger of `SCRIPT DEBUG` (`debugger/`).
//!
//! Atomicity: a script runs alone, as `EXEC` does (the keyspace's entry
//! gate closed: no other request runs meanwhile; its declared keys'
//! shards locked at once, any other as it reaches it), so its changes
//! reach the command log as one record of their effects (the
//! resulting values, not the script): replay never re-runs Lua, so
//! nondeterministic scripts (time, random) recover exactly what clients saw.
//!
//! Bounds: a script allocates at most [`SCRIPT_MEMORY_LIMIT`] (past it the
//! script fails with an out-of-memory error); one that runs past
//! `busy-reply-threshold` makes other clients' commands fail with `BUSY`,
//! and `SCRIPT KILL` stops it unless it already wrote (`UNKILLABLE`).
//! The [`Scripts`] cache holds at most [`MAX_CACHED_SCRIPTS`] scripts.

mod arguments;
mod call;
mod convert;
mod debugger;
mod errors;
mod flags;
mod functions;
mod handler;
mod interpreter;
mod library;
mod libs;
mod lua;
mod redis_calls;
mod redis_lib;
mod run_context;
mod sandbox;
mod scripts;

pub(crate) use scripts::RunGuard;
pub use scripts::{
    sha1_hex, Access, Gate, KillKind, KillRefused, RunningFunction, Scripts,
    DEFAULT_BUSY_THRESHOLD_MS, MAX_CACHED_SCRIPTS, SCRIPT_MEMORY_LIMIT,
};

pub use crate::debug_arm::DebugMode;
pub use flags::{admit, shebang, ScriptFlags};
pub use functions::{parse_dump, Counts, FunctionInfo, Functions, Library, RestorePolicy, FLAGS};
pub use interpreter::compile_check;
pub use library::{load as load_library, metadata as library_metadata};
pub use lua::{run, run_with, Target};
