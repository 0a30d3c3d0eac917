//! What the interpreter's own functions need to know of the script that
//! runs now, held as the interpreter's app data for the run (absent
//! between runs): functions made once per interpreter read it instead of
//! being made again for every run.

use std::cell::Cell;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use mlua::Lua;

use crate::acl::User;
use crate::writer::RespVersion;

/// The running script's context.
pub(super) struct RunContext {
    /// Set by `SCRIPT KILL` (the `pcall` wrappers re-raise the kill).
    pub(super) kill: Arc<AtomicBool>,
    /// The protocol of `redis.call`'s replies and of the script's
    /// booleans (`redis.setresp`); RESP2 at the start of every run.
    pub(super) resp: Cell<RespVersion>,
    /// The calling connection's user (`redis.acl_check_cmd`).
    pub(super) user: Arc<User>,
    /// Whether a user may run a command with its arguments (the command
    /// table's check, given by the runner: this layer cannot reach it).
    pub(super) acl_check: AclCheck,
    /// The debugging session this run is (`SCRIPT DEBUG`), if any.
    pub(super) debugger: Option<super::debugger::Shared>,
}

/// `redis.acl_check_cmd`'s question: may `user` run `argv`?
pub(super) type AclCheck = fn(&User, &[Vec<u8>]) -> Result<bool, String>;

impl RunContext {
    /// The protocol `redis.setresp` chose in the current run (RESP2 when
    /// none runs).
    pub(super) fn resp(lua: &Lua) -> RespVersion {
        lua.app_data_ref::<RunContext>()
            .map_or(RespVersion::Resp2, |run| run.resp.get())
    }

    /// The current run's debugging session, if it is one.
    pub(super) fn debugger(lua: &Lua) -> Option<super::debugger::Shared> {
        lua.app_data_ref::<RunContext>()?.debugger.clone()
    }

    /// [`resp`](Self::resp), and the debugging session when it is
    /// stepping (`redis.call` then logs), in one look-up (per call).
    pub(super) fn resp_and_stepping(lua: &Lua) -> (RespVersion, Option<super::debugger::Shared>) {
        let Some(run) = lua.app_data_ref::<RunContext>() else {
            return (RespVersion::Resp2, None);
        };
        let stepping = run
            .debugger
            .as_ref()
            .filter(|d| d.try_borrow().is_ok_and(|d| d.stepping()));
        (run.resp.get(), stepping.cloned())
    }
}
