//! `HGETALL key`, `HKEYS key`, `HVALS key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// What of each pair is replied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// HGETALL: a map of fields to values (RESP2: a flat array).
    Both,
    /// HKEYS.
    Fields,
    /// HVALS.
    Values,
}

/// Every field and/or value, in the hash's order (a large hash's: bucket
/// by bucket); empty for a missing key.
pub fn hgetall<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    part: Part,
) -> Result<(), RespError> {
    let key = args.get(1);
    let found = read(ctx.store, key, ValueKind::Hash, |hash| {
        match hash {
            View::Packed(pairs) => reply(out, part, pairs.iter().copied()),
            View::Large(hash) => {
                let pairs = super::large::pairs(hash)?;
                reply(out, part, pairs.iter().map(Vec::as_slice));
            }
        }
        Ok(())
    })?;
    if found.is_none() {
        reply(out, part, std::iter::empty());
    }
    Ok(())
}

/// Replies `part` of each pair of `pairs` (fields and values alternating).
fn reply<'p>(
    out: &mut ReplyWriter<'_>,
    part: Part,
    pairs: impl ExactSizeIterator<Item = &'p [u8]>,
) {
    let n = pairs.len() / 2;
    match part {
        Part::Both => out.map(n),
        Part::Fields | Part::Values => out.array(n),
    }
    for (i, element) in pairs.enumerate() {
        let wanted = match part {
            Part::Both => true,
            Part::Fields => i % 2 == 0,
            Part::Values => i % 2 == 1,
        };
        if wanted {
            out.bulk(element);
        }
    }
}
