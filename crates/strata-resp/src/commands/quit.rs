//! `QUIT` and `RESET`: connection-level commands the session runs directly
//! (never queued by `MULTI`).

use crate::connection::Connection;
use crate::shared::Shared;
use crate::stats::Tally;
use crate::writer::{ReplyWriter, RespVersion};

/// `+OK`, then the connection closes.
pub fn quit(conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    out.ok();
    conn.close = true;
}

/// Back to a fresh connection's state: no transaction, no watched keys,
/// RESP2, the default user, authenticated only if no password is required.
/// Replies `+RESET` (in RESP2).
pub fn reset(shared: &Shared, conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    conn.transaction = None;
    conn.peer.set_multi(-1);
    conn.watches.clear();
    conn.pubsub.clear(&shared.pubsub);
    conn.peer.set_subscriptions((0, 0, 0));
    conn.peer.set_multi_mem(0);
    conn.set_version(RespVersion::Resp2);
    out.set_version(RespVersion::Resp2);
    let epoch = shared.acl.epoch();
    conn.set_user(shared.acl.default_user(), epoch);
    conn.authenticated = !shared.password_required();
    out.simple("RESET");
}
