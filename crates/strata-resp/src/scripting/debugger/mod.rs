//! Redis's Lua debugger (`SCRIPT DEBUG YES|SYNC|NO`, `redis-cli --ldb`).
//!
//! `SCRIPT DEBUG YES` or `SYNC` arms the connection ([`DebugArm`]); the
//! driver then hands it a console on its socket (`strata_net::Console`).
//! The next `EVAL` runs as a debugging session: a line hook stops the
//! script at the first line, at breakpoints, at `redis.breakpoint()` and
//! past the busy threshold, and reads the client's commands from the
//! console while stopped (`repl.rs`); what the debugger says goes out as
//! arrays of simple strings, ending with `<endsession>`, then the
//! script's reply, then the connection closes, as in Redis.
//!
//! Modes. `SYNC` keeps the script's changes. `YES` rolls them back when
//! the session ends (`rollback.rs`). Redis forks for `YES`, so its server
//! serves others meanwhile; Strata has no fork: the script holds the
//! keyspace for the whole session in both modes (other clients wait, then
//! get `BUSY` past `busy-reply-threshold`). `SCRIPT KILL` ends a session
//! waiting for its client (a `YES` session even after writes, as they are
//! undone), so does the client closing its connection (the script then
//! runs on without stops), and `SHUTDOWN NOSAVE`.
//!
//! Bounds: the client's unread commands are held up to 1 MB (past it the
//! script fails), at most 64 breakpoints, logged replies and values
//! trimmed at `maxlen` bytes (256 by default), writes to the client wait
//! at most 5 s.

mod locals;
mod render;
mod repl;
mod request;
pub(super) mod rollback;
mod session;

use std::sync::atomic::Ordering;
use std::time::Instant;

use mlua::{DebugEvent, Lua, VmState};

pub use crate::debug_arm::DebugMode;
use session::{fail, Stop};
pub(crate) use session::{Debugger, Shared};

use super::errors::Killed;

/// Lua instructions between the hook's checks of the clock and of `SCRIPT
/// KILL` while the script runs between stops (Redis's count).
pub(super) const COUNT_EVERY: u32 = 100_000;

/// The line hook: decides whether to stop here, and if so talks with the
/// client until it says to go on.
pub(super) fn on_hook(
    lua: &Lua,
    event: DebugEvent,
    line: i32,
    in_script: bool,
    debugger: &Shared,
) -> mlua::Result<VmState> {
    let mut d = debugger.borrow_mut();
    if event == DebugEvent::Count && d.kill.load(Ordering::Relaxed) {
        return Err(mlua::Error::external(Killed));
    }
    if !in_script {
        return Ok(VmState::Continue);
    }
    d.current_line = line;
    let at_breakpoint = d.breakpoints.contains(&line) || d.lua_breakpoint;
    let mut stop = match (d.step, at_breakpoint, d.lua_breakpoint) {
        (_, true, true) => Some(Stop::LuaBreakpoint),
        (_, true, false) => Some(Stop::Breakpoint),
        (true, false, _) => Some(Stop::Step),
        _ => None,
    };
    if event == DebugEvent::Count {
        // Between stops only the clock is looked at, as in Redis.
        if d.step || at_breakpoint {
            return Ok(VmState::Continue);
        }
        if d.since.elapsed() < d.busy_threshold {
            return Ok(VmState::Continue);
        }
        stop = Some(Stop::Timeout);
    }
    let Some(stop) = stop else {
        return Ok(VmState::Continue);
    };
    let reason = match stop {
        Stop::Step => "step over",
        Stop::Breakpoint => "break point",
        Stop::LuaBreakpoint => "redis.breakpoint() called",
        Stop::Timeout => "timeout reached, infinite loop?",
    };
    d.step = false;
    d.lua_breakpoint = false;
    d.log(format!("* Stopped at {line}, stop reason = {reason}"));
    d.log_source_line(line);
    d.send_logs();
    drop(d);
    let went = repl::run(lua, debugger)?;
    if went == repl::Went::ClientGone && matches!(stop, Stop::Timeout) {
        // Nobody will ever stop it: end it instead of looping on.
        return Err(fail(
            debugger,
            "ERR timeout during Lua debugging with client closing connection",
        ));
    }
    debugger.borrow_mut().since = Instant::now();
    Ok(VmState::Continue)
}
