//! `GEOADD key [NX | XX] [CH] longitude latitude member [...]`.

use strata_kv::Store;

use super::args::lon_lat;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::zset;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Adds or moves members, each scored with its geohash; replies as `ZADD`
/// with the same options (the number added, or with `CH` changed too).
pub fn geoadd<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut i = 2;
    let (mut nx, mut xx, mut ch) = (false, false, false);
    while i < args.len() {
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"nx" => nx = true,
            b"xx" => xx = true,
            b"ch" => ch = true,
            _ => break,
        }
        i += 1;
    }
    let rest = args.len() - i;
    if rest % 3 != 0 || (nx && xx) || rest == 0 {
        return Err(RespError::Syntax);
    }
    let mut pairs = Vec::with_capacity(rest / 3);
    for j in (i..args.len()).step_by(3) {
        let (x, y) = lon_lat(args.get(j), args.get(j + 1))?;
        let score = crate::geo::encode_score(x, y).ok_or(RespError::Syntax)?;
        pairs.push((score, args.get(j + 2)));
    }
    let options = zset::zadd::Options {
        nx,
        xx,
        ch,
        ..Default::default()
    };
    zset::zadd::add_pairs(ctx, args.get(1), options, &pairs, out)
}
