//! `WAITAOF numlocal numreplicas timeout` (Redis 7.2): waits until this
//! connection's writes so far are durable in the command log (Strata's
//! AOF) or the timeout passes, and answers `[local, replicas]`: `local` 1
//! when they are durable by then, `replicas` always 0 (Strata has none).
//! What is met already answers at once (`WAITAOF 0 0 ...` never waits, in
//! `sync` mode every write's reply already waited); otherwise the request
//! blocks as `BLPOP` does (without a worker thread, ended by its deadline,
//! `CLIENT UNBLOCK`, or the log's sync of the connection's last write),
//! and inside `MULTI`, where nothing may wait, it answers at once as Redis
//! does. `numlocal` 1 with persistence off is refused as Redis refuses it
//! with appendonly off, and the reply is then `[0, 0]`. Asking for
//! replicas waits out the timeout (0: forever), as `WAIT` does.

use strata_kv::Store;

use crate::args::Args;
use crate::blocking::{block_on, parse_timeout_ms, Outcome};
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{ClientError, CollectionError, RespError};
use crate::writer::ReplyWriter;

/// `WAITAOF`.
pub fn waitaof<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let numlocal = parse_i64(args.get(1)).ok_or(RespError::NotInteger)?;
    if !(0..=1).contains(&numlocal) {
        return Err(ClientError::RangeZeroOne.into());
    }
    let numreplicas = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    if numreplicas < 0 {
        return Err(CollectionError::MustBePositive.into());
    }
    let timeout = parse_timeout_ms(args.get(3))?;
    let durability = ctx
        .shared
        .info
        .durability
        .as_deref()
        .filter(|d| d.mode() != "off");
    if numlocal == 1 && durability.is_none() {
        return Err(ClientError::WaitAofWithoutLog.into());
    }
    let lsn = ctx.conn.last_write_lsn;
    let local = durability.is_some_and(|d| d.is_durable(lsn));
    if i64::from(local) < numlocal || numreplicas > 0 {
        let can_wait = !ctx.store.is_exclusive();
        let waited = block_on(
            &mut ctx.conn.block,
            std::iter::empty(),
            timeout,
            0,
            can_wait,
        )?;
        if waited == Outcome::Blocked {
            if let Some(wait) = ctx.conn.block.wait.as_mut() {
                // Replicas are only waited out; the log is waited for
                // when it is asked for.
                wait.durable = (numlocal == 1 && !local).then_some(lsn);
            }
            return Ok(());
        }
    }
    out.array(2);
    out.integer(i64::from(local));
    out.integer(0);
    Ok(())
}
