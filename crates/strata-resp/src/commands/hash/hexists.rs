//! `HEXISTS key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read_packed, Read};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// 1 if the field exists, else 0.
pub fn hexists<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let found = match read_packed(ctx.store, key, ValueKind::Hash, |pairs| {
        find(pairs, field).is_some()
    })? {
        Read::Packed(found) => found,
        Read::Missing => false,
        Read::Large => super::large::values(ctx.store, key, [field].into_iter())?
            .is_some_and(|v| v[0].is_some()),
    };
    out.integer(i64::from(found));
    Ok(())
}
