//! `QUIT` and `RESET`: connection-level commands the session runs directly
//! (never queued by `MULTI`).

use bytes::BytesMut;

use crate::connection::Connection;
use crate::shared::Shared;
use crate::stats::Tally;
use crate::writer::{ReplyWriter, RespVersion};

/// `+OK`, then the connection closes. A monitor leaves the monitors
/// first: as in Redis, nothing follows the `+OK` (not even its own
/// `QUIT` line, which the other monitors get).
pub fn quit(shared: &Shared, conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    if conn.monitoring {
        leave_monitors(shared, conn);
        flush_mailbox(conn, out);
    }
    out.ok();
    conn.close = true;
}

/// Out of `MONITOR` mode: no line reaches the mailbox once this returns.
fn leave_monitors(shared: &Shared, conn: &mut Connection) {
    shared.monitors.remove(conn.client.id);
    conn.monitoring = false;
    conn.peer.set_monitor(false);
}

/// Writes what waits in the mailbox (messages, monitor lines) now, ahead
/// of the reply about to be written.
fn flush_mailbox(conn: &Connection, out: &mut ReplyWriter<'_>) {
    let mut earlier = BytesMut::new();
    conn.pubsub.mailbox().take_into(&mut earlier);
    out.raw(&earlier);
}

/// Back to a fresh connection's state: no transaction, no watched keys,
/// no subscriptions, out of `MONITOR` mode, RESP2, the default user,
/// authenticated only if no password is required. Replies `+RESET` (in
/// RESP2), after the messages and monitor lines that arrived before.
pub fn reset(shared: &Shared, conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    let had_mailbox = conn.monitoring || conn.pubsub.active();
    if conn.monitoring {
        leave_monitors(shared, conn);
    }
    conn.transaction = None;
    conn.peer.set_multi(-1);
    conn.watches.clear();
    conn.pubsub.clear(&shared.pubsub);
    conn.peer.set_subscriptions((0, 0, 0));
    // Nothing reaches the mailbox any more: what is there goes first.
    if had_mailbox {
        flush_mailbox(conn, out);
    }
    conn.peer.set_multi_mem(0);
    conn.set_version(RespVersion::Resp2);
    out.set_version(RespVersion::Resp2);
    let epoch = shared.acl.epoch();
    conn.set_user(shared.acl.default_user(), epoch);
    conn.authenticated = !shared.password_required();
    out.simple("RESET");
}
