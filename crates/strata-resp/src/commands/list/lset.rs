//! `LSET key index element`.

use strata_kv::Store;

use super::either::edit;
use super::index;
use crate::args::Args;
use crate::command::Ctx;
use crate::notify::{self, fire};
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Replaces the element at the index.
pub fn lset<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let i = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let element = args.get(3);
    let limit = ctx.shared.encodings.list_limit();
    edit(ctx.store, args.get(1), limit, |list, existed| {
        if !existed {
            return Err(RespError::NoSuchKey);
        }
        let Some(at) = index(i, list.len() as usize) else {
            return Err(CollectionError::IndexOutOfRange.into());
        };
        list.set(at as u64, element)?;
        Ok(())
    })?;
    fire(ctx, notify::LIST, "lset", args.get(1));
    out.ok();
    Ok(())
}
