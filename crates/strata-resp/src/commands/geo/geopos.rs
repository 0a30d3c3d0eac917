//! `GEOPOS key [member ...]`.

use strata_kv::Store;

use super::args::scores;
use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Each member's longitude and latitude (its geohash box's centre), or a
/// null array for a missing one.
pub fn geopos<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let members: Vec<&[u8]> = args.iter_from(2).collect();
    let scores = scores(ctx.store, args.get(1), &members)?;
    out.array(scores.len());
    for score in scores {
        match score {
            Some(score) => {
                let (x, y) = crate::geo::decode_score(score);
                out.array(2);
                out.human_double(x);
                out.human_double(y);
            }
            None => out.null_array(),
        }
    }
    Ok(())
}
