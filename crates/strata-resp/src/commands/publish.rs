//! `PUBLISH channel message` and `SPUBLISH shardchannel message`: the
//! number of subscribers that received it.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::pubsub::Kind;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `PUBLISH` (channels and patterns) or `SPUBLISH` (`Kind::Shard`).
pub fn publish<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    kind: Kind,
) -> Result<(), RespError> {
    let receivers = ctx.shared.pubsub.publish(kind, args.get(1), args.get(2));
    out.integer(receivers);
    Ok(())
}
