//! `HGET key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The field's value, or null.
pub fn hget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let found = read(ctx.store, key, ValueKind::Hash, |hash| {
        match hash {
            View::Packed(pairs) => match find(pairs, field) {
                Some(at) => out.bulk(pairs[at * 2 + 1]),
                None => out.null(),
            },
            View::Large(hash) => match hash.get(field)? {
                Some(v) => out.bulk(&v),
                None => out.null(),
            },
        }
        Ok(())
    })?;
    if found.is_none() {
        out.null();
    }
    Ok(())
}
