//! `MONITOR`: the connection receives a line for every command run from
//! now on (see [`crate::monitor`]) until `RESET` or it closes.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `MONITOR`: `+OK`, then lines. As Redis 7.2's `monitorCommand`: refused
/// inside `EXEC` (a client that expects one reply per command); on a
/// connection already monitoring, nothing happens and nothing is replied.
pub fn monitor<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    // Exclusive: inside `EXEC` (scripts may not call it: `noscript`).
    if ctx.store.is_exclusive() {
        return Err(RespError::MonitorDenied);
    }
    if ctx.conn.monitoring {
        return Ok(());
    }
    // Lines fed from now on wait in the mailbox, which the session empties
    // after this reply.
    ctx.shared.monitors.add(ctx.conn.pubsub.mailbox());
    ctx.conn.monitoring = true;
    ctx.conn.peer.set_monitor(true);
    out.ok();
    Ok(())
}
