//! `HRANDFIELD key [count [WITHVALUES]]`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{parse_random_args, random_picks};
use crate::commands::hashed::{read, View};
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
    let (count, with_values) = parse_random_args(&args, b"withvalues")?;
    let key = args.get(1);
    let found = read(ctx.store, key, ValueKind::Hash, |hash| {
        let pairs = match hash {
            View::Packed(pairs) => pairs,
            View::Large(hash) => {
                let picked = super::large::random(hash, count)?;
                match count {
                    None => match picked.first() {
                        Some([field, _]) => out.bulk(field),
                        None => out.null(),
                    },
                    Some(_) => {
                        let picked = picked.iter().map(|[f, v]| [f.as_slice(), v.as_slice()]);
                        reply(out, picked, with_values);
                    }
                }
                return Ok(());
            }
        };
        let n = pairs.len() / 2;
        let Some(count) = count else {
            let pick = random_picks(n, 1)?;
            out.bulk(pairs[pick[0] * 2]);
            return Ok(());
        };
        let picks = random_picks(n, count)?;
        let picked = picks
            .into_iter()
            .map(|at| [pairs[at * 2], pairs[at * 2 + 1]]);
        reply(out, picked, with_values);
        Ok(())
    })?;
    if found.is_none() {
        match count {
            None => out.null(),
            Some(_) => reply(out, std::iter::empty(), with_values),
        }
    }
    Ok(())
}

/// Replies picked pairs: fields, with values if asked (RESP3: an array of
/// pairs).
fn reply<'p>(
    out: &mut ReplyWriter<'_>,
    picked: impl ExactSizeIterator<Item = [&'p [u8]; 2]>,
    with_values: bool,
) {
    let pairs_reply = with_values && out.version() == RespVersion::Resp3;
    out.array(if with_values && !pairs_reply {
        picked.len() * 2
    } else {
        picked.len()
    });
    for [field, value] in picked {
        if pairs_reply {
            out.array(2);
        }
        out.bulk(field);
        if with_values {
            out.bulk(value);
        }
    }
}
