//! `TTL`, `PTTL`, `EXPIRETIME`, `PEXPIRETIME key`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// What the command reports about the expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// `TTL`: seconds left, rounded.
    RemainingSecs,
    /// `PTTL`: milliseconds left.
    RemainingMillis,
    /// `EXPIRETIME`: absolute Unix seconds, rounded.
    AtSecs,
    /// `PEXPIRETIME`: absolute Unix milliseconds.
    AtMillis,
}

/// -2 when the key is missing, -1 when it has no expiry, else the report.
pub fn ttl<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    report: Report,
) -> Result<(), RespError> {
    let now = ctx.shared.keyspace.now_ms();
    let reply = match ctx.store.expiry(args.get(1)) {
        None => -2,
        Some(None) => -1,
        Some(Some(at)) => {
            let left = at.saturating_sub(now);
            let n = match report {
                Report::RemainingSecs => (left + 500) / 1000,
                Report::RemainingMillis => left,
                Report::AtSecs => at.saturating_add(500) / 1000,
                Report::AtMillis => at,
            };
            i64::try_from(n).unwrap_or(i64::MAX)
        }
    };
    out.integer(reply);
    Ok(())
}
