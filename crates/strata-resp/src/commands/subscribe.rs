//! `SUBSCRIBE`, `UNSUBSCRIBE`, `PSUBSCRIBE`, `PUNSUBSCRIBE`, `SSUBSCRIBE`
//! and `SUNSUBSCRIBE`: one confirmation per name (a push in RESP3) with
//! the connection's subscription count after it. Unsubscribing without
//! names drops every subscription of the kind.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::pubsub::Kind;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

fn confirm(out: &mut ReplyWriter<'_>, verb: &str, name: Option<&[u8]>, count: usize) {
    out.push(3);
    out.bulk(verb.as_bytes());
    match name {
        Some(name) => out.bulk(name),
        None => out.null(),
    }
    out.integer(count as i64);
}

/// `SUBSCRIBE`/`PSUBSCRIBE`/`SSUBSCRIBE name [name ...]`.
pub fn subscribe<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    kind: Kind,
) -> Result<(), RespError> {
    let hub = &ctx.shared.pubsub;
    let subs = &mut ctx.conn.pubsub;
    for name in args.iter_from(1) {
        subs.subscribe(hub, kind, name);
        confirm(out, kind.verbs().0, Some(name), subs.count(kind));
    }
    ctx.conn.peer.set_subscriptions(ctx.conn.pubsub.counts());
    Ok(())
}

/// `UNSUBSCRIBE`/`PUNSUBSCRIBE`/`SUNSUBSCRIBE [name ...]`.
pub fn unsubscribe<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    kind: Kind,
) -> Result<(), RespError> {
    let hub = &ctx.shared.pubsub;
    let subs = &mut ctx.conn.pubsub;
    let verb = kind.verbs().1;
    if args.len() > 1 {
        for name in args.iter_from(1) {
            subs.unsubscribe(hub, kind, name);
            confirm(out, verb, Some(name), subs.count(kind));
        }
        ctx.conn.peer.set_subscriptions(subs.counts());
        return Ok(());
    }
    let names = subs.names(kind);
    if names.is_empty() {
        confirm(out, verb, None, subs.count(kind));
    }
    for name in names {
        subs.unsubscribe(hub, kind, &name);
        confirm(out, verb, Some(&name), subs.count(kind));
    }
    ctx.conn.peer.set_subscriptions(subs.counts());
    Ok(())
}
