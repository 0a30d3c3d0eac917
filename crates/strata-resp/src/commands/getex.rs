//! `GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]`.

use strata_kv::{Mutation, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::commands::set::TimeOption;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `GETEX`: the value (or null), changing the key's expiry as asked. As in
/// Redis, a bad time is only reported when the key exists.
pub fn getex<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut time = TimeOption::default();
    let mut i = 2;
    while i < args.len() {
        if !time.parse(args.get(i), &args, &mut i, false, true)? {
            return Err(RespError::Syntax);
        }
        i += 1;
    }
    let now = ctx.shared.keyspace.now_ms();
    let mark = out.position();
    let result = ctx.store.update(args.get(1), |old| {
        let Some(item) = old else {
            out.null();
            return (Mutation::Keep, Ok(None));
        };
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        let expires_at = match time.resolve(now, "getex") {
            Ok(at) => at,
            Err(err) => return (Mutation::Keep, Err(err)),
        };
        out.bulk(item.value);
        let (mutation, event) = match expires_at {
            Some(at) if at <= now => (Mutation::Delete, Some("del")),
            Some(at) => (Mutation::SetExpiry(Some(at)), Some("expire")),
            None if time.persist && item.expires_at.is_some() => {
                (Mutation::SetExpiry(None), Some("persist"))
            }
            None => (Mutation::Keep, None),
        };
        (mutation, Ok(event))
    });
    match result {
        Ok(Ok(event)) => {
            if let Some(event) = event {
                fire(ctx, notify::GENERIC, event, args.get(1));
            }
            Ok(())
        }
        Ok(Err(err)) => Err(err),
        Err(err) => {
            out.truncate(mark);
            Err(err.into())
        }
    }
}
