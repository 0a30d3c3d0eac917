//! `GETSET key value` and `GETDEL key`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::commands::set::announce;
use crate::notify::{self, fire};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `GETSET`: stores the value (dropping any expiry) and replies the old one.
pub fn getset<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let value = args.get(2);
    let mark = out.position();
    let stored = ctx.store.update(args.get(1), |old| {
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        match old {
            Some(item) => out.bulk(item.value),
            None => out.null(),
        }
        let item = NewItem {
            value: Cow::Borrowed(value),
            flags: 0,
            expires_at: None,
        };
        (Mutation::Put(item), Ok(old.is_none()))
    });
    match stored {
        Ok(result) => result.map(|created| announce(ctx, args.get(1), created, None)),
        Err(err) => {
            out.truncate(mark);
            Err(err.into())
        }
    }
}

/// `GETDEL`: replies the value and deletes the key.
pub fn getdel<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mark = out.position();
    let done = ctx.store.update(args.get(1), |old| match old {
        Some(_) if not_string(old) => (Mutation::Keep, Err(RespError::WrongType)),
        Some(item) => {
            out.bulk(item.value);
            (Mutation::Delete, Ok(true))
        }
        None => {
            out.null();
            (Mutation::Keep, Ok(false))
        }
    });
    match done {
        Ok(result) => result.map(|deleted| {
            if deleted {
                fire(ctx, notify::GENERIC, "del", args.get(1));
            }
        }),
        Err(err) => {
            out.truncate(mark);
            Err(err.into())
        }
    }
}
