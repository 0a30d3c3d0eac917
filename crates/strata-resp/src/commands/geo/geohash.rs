//! `GEOHASH key [member ...]`.

use strata_kv::Store;

use super::args::scores;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Each member's standard 11-character geohash, or null.
pub fn geohash<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let members: Vec<&[u8]> = args.iter_from(2).collect();
    let scores = scores(ctx.store, args.get(1), &members)?;
    out.array(scores.len());
    for score in scores {
        match score.and_then(crate::geo::standard_geohash) {
            Some(text) => out.bulk(text.as_bytes()),
            None => out.null(),
        }
    }
    Ok(())
}
