//! `SETBIT key offset value`.

use strata_kv::{Mutation, Store, StringForm};

use super::bits::{bit_offset, get_bit, put_bit, Grown};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::notify;
use crate::reply::{RespError, ValueError};
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
        _ => return Err(RespError::from(ValueError::BitValue)),
    };
    let max_item = ctx.shared.keyspace.max_item_size();
    let result = ctx.store.update(args.get(1), |old| {
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        let bytes = old.map_or(&[][..], |item| item.value);
        let was = get_bit(bytes, offset);
        let need = (offset >> 3) as usize + 1;
        if need <= bytes.len() && was == on {
            return (Mutation::Keep, Ok((was, None)));
        }
        match Grown::from(old, need, max_item) {
            Ok(mut grown) => {
                put_bit(&mut grown.value, offset, on);
                (
                    Mutation::PutString(StringForm::Edited, grown.into_item()),
                    Ok((was, Some(old.is_none()))),
                )
            }
            Err(err) => (Mutation::Keep, Err(err)),
        }
    })?;
    let (was, changed) = result?;
    // Redis announces a SETBIT that changed the value (a bit, or the
    // length), as `new` too for a key it created.
    if let Some(created) = changed {
        notify::fire_created(ctx, created, notify::STRING, "setbit", args.get(1));
    }
    out.integer(i64::from(was));
    Ok(())
}
