//! `HGETALL key`, `HKEYS key`, `HVALS key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
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

/// Every field and/or value, in the hash's order; empty for a missing key.
pub fn hgetall<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    part: Part,
) -> Result<(), RespError> {
    let found = read(ctx.store, args.get(1), ValueKind::Hash, |pairs| {
        let n = pairs.len() / 2;
        match part {
            Part::Both => out.map(n),
            Part::Fields | Part::Values => out.array(n),
        }
        for pair in pairs.chunks_exact(2) {
            match part {
                Part::Both => {
                    out.bulk(pair[0]);
                    out.bulk(pair[1]);
                }
                Part::Fields => out.bulk(pair[0]),
                Part::Values => out.bulk(pair[1]),
            }
        }
    })?;
    if found.is_none() {
        match part {
            Part::Both => out.map(0),
            Part::Fields | Part::Values => out.array(0),
        }
    }
    Ok(())
}
