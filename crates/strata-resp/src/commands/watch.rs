//! `WATCH key [key ...]` and `UNWATCH`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::connection::{Connection, MAX_WATCHED_KEYS};
use crate::reply::RespError;
use crate::shared::Shared;
use crate::stats::Tally;
use crate::writer::ReplyWriter;

/// `WATCH`: `EXEC` will fail if any of these keys changes before it. Run by
/// the session directly (it registers with the keyspace, which must not
/// happen inside `EXEC`).
pub fn watch(
    shared: &Shared,
    conn: &mut Connection,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    tally: &mut Tally,
) {
    tally.commands += 1;
    let refused = if conn.transaction.is_some() {
        Some(RespError::WatchInsideMulti)
    } else if conn.watches.len() + args.len() - 1 > MAX_WATCHED_KEYS {
        Some(RespError::TooManyWatchedKeys(MAX_WATCHED_KEYS))
    } else {
        None
    };
    if let Some(err) = refused {
        out.error(&err.to_string());
        tally.errors += 1;
        return;
    }
    for key in args.iter_from(1) {
        conn.watches.add(key, || shared.keyspace.watch(key));
    }
    out.ok();
}

/// `UNWATCH`: forgets every watched key. Inside `EXEC` there is nothing
/// left to forget (`EXEC` took the watches), so nothing is dropped there.
pub fn unwatch<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    ctx.conn.watches.clear();
    out.ok();
    Ok(())
}
