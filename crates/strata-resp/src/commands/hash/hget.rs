//! `HGET key field`.

use strata_kv::{collection, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read_stored, Stored};
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// The field's value, or null.
pub fn hget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let found = read_stored(ctx.store, key, ValueKind::Hash, |hash| {
        match hash {
            // Walked where it lies: nothing decoded or allocated.
            Stored::Packed(bytes) => match collection::pair_value(bytes, field) {
                Ok(Some(at)) => out.bulk(&bytes[at]),
                Ok(None) => out.null(),
                Err(_) => return Err(CollectionError::Damaged.into()),
            },
            Stored::Large(hash) => match hash.get(field)? {
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
