//! `MULTI`, `EXEC`, `DISCARD` and queuing. `EXEC` runs the whole queue
//! inside `Keyspace::exclusive`, so no other client's command interleaves,
//! after checking inside the same section that no watched key changed.
//! ACL permissions are checked when a command is queued and again when
//! `EXEC` runs it (they may have changed in between): a command refused
//! then gets its `NOPERM` error in the `EXEC` reply, as in Redis.

use crate::acl::log::Context;
use crate::args::Args;
use crate::command::{CommandSpec, Ctx};
use crate::connection::{Connection, Queued, Transaction, MAX_QUEUE_BYTES};
use crate::permissions;
use crate::protocol::Shared;
use crate::reply::RespError;
use crate::session::run_command;
use crate::stats::Tally;
use crate::writer::ReplyWriter;

/// Per-command bookkeeping counted against [`MAX_QUEUE_BYTES`] besides the
/// argument bytes.
const QUEUED_OVERHEAD: usize = 64;

fn error(out: &mut ReplyWriter<'_>, tally: &mut Tally, err: RespError) {
    out.error(&err.to_string());
    tally.errors += 1;
}

/// `MULTI`: opens a transaction.
pub fn multi(conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    if conn.transaction.is_some() {
        return error(out, tally, RespError::NestedMulti);
    }
    conn.transaction = Some(Transaction::default());
    conn.peer.set_multi(0);
    out.ok();
}

/// Queues a command inside `MULTI` and replies `+QUEUED`.
pub fn queue(
    conn: &mut Connection,
    spec: &'static CommandSpec,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    tally: &mut Tally,
) {
    let Some(tx) = conn.transaction.as_mut() else {
        return;
    };
    let size = args.byte_len() + args.len() * 16 + QUEUED_OVERHEAD;
    if tx.bytes + size > MAX_QUEUE_BYTES {
        tx.dirty = true;
        return error(out, tally, RespError::QueueTooLarge(MAX_QUEUE_BYTES));
    }
    tx.bytes += size;
    tx.queue.push(Queued {
        spec,
        args: args.to_owned_args(),
    });
    conn.peer.set_multi(tx.queue.len() as i64);
    out.simple("QUEUED");
}

/// `DISCARD`: drops the queue and the watched keys.
pub fn discard(conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    if conn.transaction.take().is_none() {
        return error(out, tally, RespError::DiscardWithoutMulti);
    }
    conn.peer.set_multi(-1);
    conn.watches.clear();
    out.ok();
}

/// `EXEC`: runs the queue atomically and replies an array of the replies;
/// null when a watched key changed; `EXECABORT` when queuing failed.
pub fn exec(shared: &Shared, conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    let Some(tx) = conn.transaction.take() else {
        return error(out, tally, RespError::ExecWithoutMulti);
    };
    conn.peer.set_multi(-1);
    // Watches leave the connection now and are dropped after the exclusive
    // section: dropping one takes a shard lock.
    let watches = std::mem::take(&mut conn.watches);
    if tx.dirty {
        drop(watches);
        return error(out, tally, RespError::ExecAbort);
    }
    let ran = shared.keyspace.exclusive(|store| {
        if !watches.values().all(|w| store.watch_intact(w)) {
            return false;
        }
        out.array(tx.queue.len());
        let mut ctx = Ctx {
            store,
            shared,
            conn,
        };
        for queued in &tx.queue {
            let args = queued.args.args();
            // An earlier command of the block may have changed the users.
            if !permissions::refresh(shared, ctx.conn) {
                ctx.conn.close = true;
            }
            let allowed = permissions::effective_spec(queued.spec, &args).map_or(Ok(()), |spec| {
                permissions::authorize(shared, ctx.conn, spec, &args, Context::Multi)
            });
            match allowed {
                Ok(()) => run_command(queued.spec, &mut ctx, args, out, tally),
                Err(err) => {
                    out.error(&err.to_string());
                    tally.errors += 1;
                }
            }
        }
        true
    });
    drop(watches);
    if !ran {
        out.null_array();
    }
}
