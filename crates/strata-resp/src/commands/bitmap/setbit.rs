//! `SETBIT key offset value`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use super::bits::{bit_offset, check_growth, get_bit, put_bit};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Sets or clears the bit at `offset`, growing the string with zero bytes
/// to reach it (its expiry kept); replies the bit it had.
pub fn setbit<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let offset = bit_offset(args.get(2), None, ctx.shared.max_bulk())?;
    let on = match args.get(3) {
        b"0" => false,
        b"1" => true,
        _ => return Err(RespError::BitValue),
    };
    let max_item = ctx.shared.keyspace.max_item_size();
    let result = ctx.store.update(args.get(1), |old| {
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        let (old_value, flags, expires_at) = match old {
            Some(item) => (item.value, item.flags, item.expires_at),
            None => (&[][..], 0, None),
        };
        let was = get_bit(old_value, offset);
        let need = (offset >> 3) as usize + 1;
        if need <= old_value.len() && was == on {
            return (Mutation::Keep, Ok(was));
        }
        if let Err(err) = check_growth(need, max_item) {
            return (Mutation::Keep, Err(err));
        }
        let mut value = Vec::with_capacity(need.max(old_value.len()));
        value.extend_from_slice(old_value);
        if value.len() < need {
            value.resize(need, 0);
        }
        put_bit(&mut value, offset, on);
        let item = NewItem {
            value: Cow::Owned(value),
            flags,
            expires_at,
        };
        (Mutation::Put(item), Ok(was))
    })?;
    out.integer(i64::from(result?));
    Ok(())
}
