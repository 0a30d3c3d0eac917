//! `PING [message]` and `ECHO message`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::{ReplyWriter, RespVersion};

/// `+PONG`, or the message as a bulk string; a RESP2 connection in
/// subscribed mode gets `["pong", message or ""]`, as Redis replies there.
pub fn ping<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if ctx.conn.version == RespVersion::Resp2 && ctx.conn.pubsub.active() && args.len() <= 2 {
        out.array(2);
        out.bulk(b"pong");
        out.bulk(if args.len() == 2 { args.get(1) } else { b"" });
        return Ok(());
    }
    match args.len() {
        1 => out.simple("PONG"),
        2 => out.bulk(args.get(1)),
        _ => return Err(RespError::WrongArity("ping".into())),
    }
    Ok(())
}

/// The message as a bulk string.
pub fn echo<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    out.bulk(args.get(1));
    Ok(())
}
