//! `HGET key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read_packed, Read};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The field's value, or null.
pub fn hget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let found = read_packed(ctx.store, key, ValueKind::Hash, |pairs| {
        match find(pairs, field) {
            Some(at) => out.bulk(pairs[at * 2 + 1]),
            None => out.null(),
        }
    })?;
    match found {
        Read::Packed(()) => {}
        Read::Missing => out.null(),
        Read::Large => match super::large::values(ctx.store, key, [field].into_iter())? {
            Some(values) => match &values[0] {
                Some(v) => out.bulk(v),
                None => out.null(),
            },
            None => out.null(),
        },
    }
    Ok(())
}
