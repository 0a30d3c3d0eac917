//! `WAITAOF numlocal numreplicas timeout` (Redis 7.2): waits until this
//! connection's writes so far are durable in the command log (Strata's
//! AOF). The reply, `[1, 0]` with persistence on, is held until the log
//! is synced past the connection's last write: at once in `sync` mode
//! (every reply to a write already waited), at the log's next sync in
//! `async` mode. `numlocal` 1 with persistence off is refused as Redis
//! refuses it with appendonly off, and the reply is then `[0, 0]`.
//! Strata has no replicas: asking for some waits out the timeout (0:
//! forever) as `WAIT` does, and 0 replicas acknowledge.
//!
//! Unlike Redis, a log sync slower than the timeout does not answer
//! `[0, 0]` at the timeout: the reply comes when the sync does.

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
    let mode = ctx
        .shared
        .info
        .durability
        .as_deref()
        .map_or("off", |d| d.mode());
    let logging = mode != "off";
    if numlocal == 1 && !logging {
        return Err(ClientError::WaitAofWithoutLog.into());
    }
    if numreplicas > 0 {
        let can_wait = !ctx.store.is_exclusive();
        let waited = block_on(
            &mut ctx.conn.block,
            std::iter::empty(),
            timeout,
            0,
            can_wait,
        )?;
        if waited == Outcome::Blocked {
            return Ok(());
        }
    }
    out.array(2);
    out.integer(i64::from(logging));
    out.integer(0);
    // The session holds this reply until the last write is durable.
    ctx.conn.durable_wait = logging;
    Ok(())
}
