//! `HRANDFIELD key [count [WITHVALUES]]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{random_picks, read};
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::{ReplyWriter, RespVersion};

/// Without a count: one random field or null. With a count: distinct
/// fields (positive) or possibly repeated ones (negative), with values if
/// asked (RESP3: an array of pairs).
pub fn hrandfield<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let count = match args.len() {
        2 => None,
        _ => Some(parse_i64(args.get(2)).ok_or(RespError::NotInteger)?),
    };
    let with_values = match args.len() {
        2 | 3 => false,
        4 if args.get(3).eq_ignore_ascii_case(b"withvalues") => true,
        _ => return Err(RespError::Syntax),
    };
    let picked = read(ctx.store, args.get(1), ValueKind::Hash, |pairs| {
        let n = pairs.len() / 2;
        let Some(count) = count else {
            let pick = random_picks(n, 1)?;
            out.bulk(pairs[pick[0] * 2]);
            return Ok(());
        };
        let picks = random_picks(n, count)?;
        let pairs_reply = with_values && out.version() == RespVersion::Resp3;
        out.array(if with_values && !pairs_reply {
            picks.len() * 2
        } else {
            picks.len()
        });
        for at in picks {
            if pairs_reply {
                out.array(2);
            }
            out.bulk(pairs[at * 2]);
            if with_values {
                out.bulk(pairs[at * 2 + 1]);
            }
        }
        Ok(())
    })?;
    match picked {
        Some(result) => result,
        None => {
            match count {
                None => out.null(),
                Some(_) => out.array(0),
            }
            Ok(())
        }
    }
}
