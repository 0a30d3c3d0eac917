//! `APPEND key value`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store, StringForm};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `APPEND`: appends (creating the key if needed), keeping flags and
/// expiry; replies the new length.
pub fn append<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let suffix = args.get(2);
    let max_bulk = ctx.shared.max_bulk();
    let result = ctx.store.update(args.get(1), |old| {
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        match old {
            None => {
                let item = NewItem {
                    value: Cow::Borrowed(suffix),
                    flags: 0,
                    expires_at: None,
                };
                (Mutation::Put(item), Ok((suffix.len(), true)))
            }
            Some(item) => {
                let len = item.value.len() + suffix.len();
                if len > max_bulk {
                    return (Mutation::Keep, Err(RespError::StringTooLong));
                }
                let mut value = Vec::with_capacity(len);
                value.extend_from_slice(item.value);
                value.extend_from_slice(suffix);
                let new = NewItem {
                    value: Cow::Owned(value),
                    flags: item.flags,
                    expires_at: item.expires_at,
                };
                (
                    Mutation::PutString(StringForm::Edited, new),
                    Ok((len, false)),
                )
            }
        }
    })?;
    let (len, created) = result?;
    fire_created(ctx, created, notify::STRING, "append", args.get(1));
    out.integer(len as i64);
    Ok(())
}
