//! `SETRANGE key offset value`.

use std::borrow::Cow;

use strata_kv::{KvError, Mutation, NewItem, Store, StringForm};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::notify::{self, fire_created};
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `SETRANGE`: overwrites from `offset`, zero-padding as needed; replies
/// the new length. Lengths beyond the engine's maximum item size are
/// refused before anything is allocated.
pub fn setrange<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let offset = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let offset = usize::try_from(offset).map_err(|_| RespError::OffsetOutOfRange)?;
    let patch = args.get(3);
    let max_item = ctx.shared.keyspace.max_item_size();
    let max_bulk = ctx.shared.max_bulk();
    let check = |len: usize| -> Result<(), RespError> {
        if len > max_bulk {
            Err(RespError::StringTooLong)
        } else if len > max_item {
            Err(KvError::TooLarge {
                size: len,
                limit: max_item,
            }
            .into())
        } else {
            Ok(())
        }
    };
    let result = ctx.store.update(args.get(1), |old| {
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        let (old_value, flags, expires_at) = match old {
            None if patch.is_empty() => return (Mutation::Keep, Ok((0, None))),
            Some(item) if patch.is_empty() => {
                return (Mutation::Keep, Ok((item.value.len(), None)))
            }
            None => (&[][..], 0, None),
            Some(item) => (item.value, item.flags, item.expires_at),
        };
        let end = offset.saturating_add(patch.len());
        if let Err(err) = check(end) {
            return (Mutation::Keep, Err(err));
        }
        let mut value = Vec::with_capacity(end.max(old_value.len()));
        value.extend_from_slice(old_value);
        if value.len() < end {
            value.resize(end, 0);
        }
        value[offset..end].copy_from_slice(patch);
        let len = value.len();
        (
            Mutation::PutString(
                StringForm::Edited,
                NewItem {
                    value: Cow::Owned(value),
                    flags,
                    expires_at,
                },
            ),
            Ok((len, Some(old.is_none()))),
        )
    })?;
    let (len, changed) = result?;
    if let Some(created) = changed {
        fire_created(ctx, created, notify::STRING, "setrange", args.get(1));
    }
    out.integer(len as i64);
    Ok(())
}
