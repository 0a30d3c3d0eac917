//! `HMGET key field [field ...]`.

use strata_kv::{Store, ValueKind};

use super::Fields;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read_packed, Read};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Each field's value or null, in the order asked.
pub fn hmget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, wanted) = (args.get(1), args.len() - 2);
    let found = read_packed(ctx.store, key, ValueKind::Hash, |pairs| {
        let fields = Fields::new(pairs);
        out.array(wanted);
        for field in args.iter_from(2) {
            match fields.find(pairs, field) {
                Some(at) => out.bulk(pairs[at * 2 + 1]),
                None => out.null(),
            }
        }
    })?;
    let values = match found {
        Read::Packed(()) => return Ok(()),
        Read::Missing => None,
        Read::Large => super::large::values(ctx.store, key, args.iter_from(2))?,
    };
    out.array(wanted);
    match values {
        Some(values) => {
            for value in values {
                match value {
                    Some(v) => out.bulk(&v),
                    None => out.null(),
                }
            }
        }
        None => (0..wanted).for_each(|_| out.null()),
    }
    Ok(())
}
