//! `CLIENT PAUSE` at the door: whether a request waits for the pause to
//! end, by what it may write.

use std::time::Duration;

use crate::args::Args;
use crate::command::{self, Command, CommandSpec};
use crate::connection::Connection;
use crate::shared::Shared;

/// How long the request must wait for a `CLIENT PAUSE` to end (`None`:
/// it runs now): any command under `ALL`; under `WRITE` one that may
/// write (not a script declared `no-writes`), and an `EXEC` that queued
/// one, as Redis decides.
pub(super) fn pause_gate(shared: &Shared, conn: &Connection, args: Args<'_>) -> Option<Duration> {
    shared.pause.holds(|| {
        let Some(spec) = command::lookup(args.get(0)) else {
            return false;
        };
        let writes = |s: &CommandSpec| {
            s.flags
                .iter()
                .any(|f| matches!(*f, "write" | "may_replicate"))
        };
        let queued_write = || {
            conn.transaction
                .as_ref()
                .is_some_and(|t| t.queue.iter().any(|q| writes(q.spec)))
        };
        writes(spec.effective(&args).unwrap_or(spec)) && !declared_read_only(shared, spec, &args)
            || (spec.command == Command::Exec && queued_write())
    })
}

/// A script or function that declared `no-writes`: it runs under a
/// `WRITE` pause although `EVAL` and `FCALL` may write (Redis 7.0.1).
fn declared_read_only(shared: &Shared, spec: &CommandSpec, args: &Args<'_>) -> bool {
    let shebang = |body: &[u8]| {
        crate::scripting::shebang(body)
            .ok()
            .flatten()
            .is_some_and(|flags| flags.no_writes())
    };
    match spec.command {
        Command::Eval => shebang(args.get(1)),
        Command::EvalSha => shared
            .scripts
            .get(args.get(1))
            .is_some_and(|body| shebang(&body)),
        Command::FCall => shared
            .functions
            .function(args.get(1))
            .is_some_and(|(_, info)| info.no_writes()),
        _ => false,
    }
}
