//! `GEODIST key member1 member2 [M | KM | FT | MI]`.

use strata_kv::Store;

use super::args::unit;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::zset::stored::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The distance between two members in the unit (metres by default),
/// with 4 decimals; null when either is missing.
pub fn geodist<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let to_metres = match args.len() {
        4 => 1.0,
        5 => unit(args.get(4))?,
        _ => return Err(RespError::Syntax),
    };
    let (a, b) = (args.get(2), args.get(3));
    let scores = read(ctx.store, args.get(1), |z| Ok((z.score(a)?, z.score(b)?)))?;
    match scores {
        Some((Some(s1), Some(s2))) => {
            let (x1, y1) = crate::geo::decode_score(s1);
            let (x2, y2) = crate::geo::decode_score(s2);
            let d = crate::geo::distance(x1, y1, x2, y2) / to_metres;
            out.bulk(format!("{d:.4}").as_bytes());
        }
        _ => out.null(),
    }
    Ok(())
}
