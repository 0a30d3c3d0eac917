//! `MULTI`, `EXEC`, `DISCARD` and queuing. `EXEC` runs the whole queue
//! holding the shards of every key it touches (`Keyspace::exclusive_keys`,
//! locked in ascending order; every shard when a command needs the whole
//! keyspace), so no other client's command on those keys interleaves while
//! transactions on other shards run in parallel; it checks inside the same
//! section that no watched key changed.
//! ACL permissions are checked when a command is queued and again when
//! `EXEC` runs it (they may have changed in between): a command refused
//! then gets its `NOPERM` error in the `EXEC` reply, as in Redis.

use strata_kv::ExclusiveStore;

use crate::acl::log::Context;
use crate::args::Args;
use crate::command::{Command, CommandSpec, Ctx};
use crate::connection::{Connection, Queued, Transaction, MAX_QUEUE_BYTES};
use crate::invoke::{run_command, Feed};
use crate::key_args::key_args;
use crate::permissions;
use crate::reply::RespError;
use crate::shared::Shared;
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
    conn.peer.set_multi_mem(tx.bytes);
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
    if conn.transaction.is_none() {
        return error(out, tally, RespError::DiscardWithoutMulti);
    }
    abandon(conn);
    out.ok();
}

/// Ends the open transaction without running it, and unwatches (`DISCARD`,
/// and an `EXEC` refused before it runs in cluster mode).
pub fn abandon(conn: &mut Connection) {
    conn.transaction = None;
    conn.peer.set_multi(-1);
    conn.peer.set_multi_mem(0);
    conn.watches.clear();
}

/// `EXEC`: runs the queue atomically and replies an array of the replies;
/// null when a watched key changed; `EXECABORT` when queuing failed.
pub fn exec(shared: &Shared, conn: &mut Connection, out: &mut ReplyWriter<'_>, tally: &mut Tally) {
    tally.commands += 1;
    let Some(tx) = conn.transaction.take() else {
        return error(out, tally, RespError::ExecWithoutMulti);
    };
    conn.peer.set_multi(-1);
    conn.peer.set_multi_mem(0);
    // Watches leave the connection now and are dropped after the exclusive
    // section: dropping one takes a shard lock.
    let watches = conn.watches.take();
    if tx.dirty {
        drop(watches);
        return error(out, tally, RespError::ExecAbort);
    }
    let run = |store: &mut ExclusiveStore<'_>| {
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
            let allowed = queued.spec.effective(&args).map_or(Ok(()), |spec| {
                permissions::authorize(shared, ctx.conn, spec, &args, Context::Multi)
            });
            match allowed {
                Ok(()) => {
                    let feed = Feed::begin(shared, ctx.conn);
                    run_command(queued.spec, &mut ctx, args, out, tally, feed);
                }
                Err(err) => {
                    out.error(&err.to_string());
                    tally.errors += 1;
                }
            }
        }
        true
    };
    let ran = match shards_needed(&tx, watches.keys()) {
        Some(keys) => shared.keyspace.exclusive_keys(keys, run),
        // A queued script or DEBUG may hold the keyspace for long: as at
        // the top level (`session/request.rs`), after other workers'
        // requests in flight; scripts alone begin in place (a long one
        // hands the worker off), DEBUG or a busy keyspace off the worker.
        None if tx.queue.iter().any(|q| holds_for_long(q.spec.command)) => {
            let in_place = !tx.queue.iter().any(|q| q.spec.command == Command::Debug);
            let run = match in_place {
                true => shared.keyspace.try_exclusive_drained(run),
                false => Err(run),
            };
            run.unwrap_or_else(|run| {
                strata_service::workers::block_in_place(|| shared.keyspace.exclusive_drained(run))
            })
        }
        None => shared.keyspace.exclusive(run),
    };
    drop(watches);
    if !ran {
        out.null_array();
    }
}

/// The keys whose shards `EXEC` must hold: every key argument of the
/// queued commands (from the command table's key specifications) and the
/// watched keys; `None` when some command needs the whole keyspace
/// (`FLUSHALL`, `KEYS`, `SCAN`, `DBSIZE`, `RANDOMKEY`, scripts, which may
/// touch undeclared keys) or is not known to declare all its keys.
fn shards_needed<'a>(
    tx: &'a Transaction,
    watched: impl Iterator<Item = &'a Box<[u8]>>,
) -> Option<Vec<&'a [u8]>> {
    let mut keys: Vec<&[u8]> = watched.map(|k| &**k).collect();
    for queued in &tx.queue {
        match locks(queued.spec.command) {
            Locks::Nothing => {}
            Locks::Keyspace => return None,
            Locks::DeclaredKeys => {
                let args = queued.args.args();
                let found = key_args(queued.spec, &args).unwrap_or_default();
                keys.extend(found.into_iter().map(|(i, _)| args.get(i)));
            }
        }
    }
    Some(keys)
}

/// Whether `command` runs a Lua script or function (which holds the
/// keyspace for as long as it runs).
pub(crate) fn runs_a_script(command: Command) -> bool {
    use Command as C;
    matches!(
        command,
        C::Eval | C::EvalSha | C::EvalRo | C::EvalShaRo | C::FCall | C::FCallRo
    )
}

/// Whether `command` may run for long with the keyspace held (scripts
/// and functions, `DEBUG SLEEP`).
fn holds_for_long(command: Command) -> bool {
    runs_a_script(command) || command == Command::Debug
}

/// What a queued command needs held while `EXEC` runs it.
enum Locks {
    /// Touches no key (connection and server commands).
    Nothing,
    /// Exactly the key arguments its key specifications name.
    DeclaredKeys,
    /// Every shard.
    Keyspace,
}

/// Commands are listed by what they touch; a command not listed (a new
/// one) holds every shard until its key specifications are checked to
/// name all the keys it touches, and it is added here.
fn locks(command: Command) -> Locks {
    use Command as C;
    match command {
        C::Get
        | C::Set
        | C::SetNx
        | C::SetEx
        | C::PSetEx
        | C::MGet
        | C::MSet
        | C::MSetNx
        | C::GetSet
        | C::GetDel
        | C::GetEx
        | C::Append
        | C::StrLen
        | C::GetRange
        | C::SetRange
        | C::Incr
        | C::Decr
        | C::IncrBy
        | C::DecrBy
        | C::IncrByFloat
        | C::Del
        | C::Exists
        | C::Expire
        | C::PExpire
        | C::ExpireAt
        | C::PExpireAt
        | C::Ttl
        | C::PTtl
        | C::ExpireTime
        | C::PExpireTime
        | C::Persist
        | C::Type
        | C::Rename
        | C::RenameNx
        | C::Lcs => Locks::DeclaredKeys,
        C::Ping
        | C::Echo
        | C::Time
        | C::Info
        | C::Client
        | C::Command
        | C::Config
        | C::Select
        | C::Hello
        | C::Auth
        | C::Acl
        | C::SlowLog
        | C::Monitor
        | C::LastSave
        | C::BgSave
        | C::BgRewriteAof
        | C::Module
        | C::ReplicaOf
        | C::Failover
        | C::Publish
        | C::SPublish
        | C::PubSub
        | C::Subscribe
        | C::Unsubscribe
        | C::PSubscribe
        | C::PUnsubscribe
        | C::SSubscribe
        | C::SUnsubscribe
        | C::Script
        | C::Cluster
        | C::ClusterMode
        | C::Role
        | C::Lolwut
        | C::ReplConf
        | C::WaitAof => Locks::Nothing,
        _ => Locks::Keyspace,
    }
}
