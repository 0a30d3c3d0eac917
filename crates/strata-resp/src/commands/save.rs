//! `SAVE`, `BGSAVE [SCHEDULE]`, `BGREWRITEAOF` and `LASTSAVE`:
//! checkpoints on demand.
//!
//! A checkpoint is Strata's fork-less snapshot (plus the command log after
//! it), not an RDB file. `SAVE` runs it on the calling worker thread, so
//! only this connection (and others sharing that worker) waits, not the
//! whole server as with Redis. With persistence off there is nowhere to
//! save: both are refused with an error saying so.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

fn durability<'a, S>(ctx: &Ctx<'a, S>) -> Result<&'a dyn strata_service::Durability, RespError> {
    ctx.shared
        .info
        .durability
        .as_deref()
        .ok_or_else(|| RespError::Persistence("persistence is not configured".into()))
}

/// Writes a checkpoint and replies `+OK` once it is durable.
pub fn save<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    durability(ctx)?.save().map_err(RespError::Persistence)?;
    out.ok();
    Ok(())
}

/// Starts a checkpoint in the background. `SCHEDULE` is accepted: Redis
/// uses it to wait for an AOF rewrite, which Strata never runs.
pub fn bgsave<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match args.len() {
        1 => {}
        2 if args.get(1).eq_ignore_ascii_case(b"schedule") => {}
        _ => return Err(RespError::Syntax),
    }
    durability(ctx)?
        .background_save()
        .map_err(RespError::Persistence)?;
    out.simple("Background saving started");
    Ok(())
}

/// `BGREWRITEAOF`: Strata's command log is rewritten by a checkpoint (a
/// new snapshot, the log before it dropped), so this starts one.
pub fn bgrewriteaof<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    durability(ctx)?
        .background_rewrite()
        .map_err(RespError::Persistence)?;
    out.simple("Background append only file rewriting started");
    Ok(())
}

/// Unix time of the last completed checkpoint.
pub fn lastsave<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let at = match ctx.shared.info.durability.as_deref() {
        Some(d) => d.last_save_unix(),
        None => ctx.shared.info.started_unix,
    };
    out.integer(i64::try_from(at).unwrap_or(i64::MAX));
    Ok(())
}
