//! `PING [message]` and `ECHO message`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `+PONG`, or the message as a bulk string.
pub fn ping<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
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
