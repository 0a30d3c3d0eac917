//! `WAIT numreplicas timeout`: Strata has no replicas, so no write is ever
//! acknowledged by one. As in a Redis without replicas, asking for none
//! answers 0 at once; asking for some blocks the connection (not a worker
//! thread: see [`crate::blocking`]) until the timeout (0: forever), then
//! answers 0. Inside `MULTI` and scripts it answers at once.

use strata_kv::Store;

use crate::args::Args;
use crate::blocking::{block_on, parse_timeout_ms, Outcome};
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Replicas that acknowledged: always 0, after the wait when any were
/// asked for.
pub fn wait<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let timeout = parse_timeout_ms(args.get(2))?;
    let wanted = parse_i64(args.get(1)).ok_or(RespError::NotInteger)?;
    let can_wait = !ctx.store.is_exclusive();
    if wanted <= 0 {
        out.integer(0);
        return Ok(());
    }
    match block_on(
        &mut ctx.conn.block,
        std::iter::empty(),
        timeout,
        0,
        can_wait,
    )? {
        Outcome::TimedOut => out.integer(0),
        Outcome::Blocked => {}
    }
    Ok(())
}
