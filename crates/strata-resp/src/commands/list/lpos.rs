//! `LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]`.

use strata_kv::Store;

use super::view::read;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// The index of matches of the element: the first (or the RANK-th, from
/// the tail when negative), or an array of up to COUNT (0: all), looking
/// at most MAXLEN elements (0: all).
pub fn lpos<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let element = args.get(2);
    let (mut rank, mut count, mut maxlen) = (1i64, None::<usize>, 0usize);
    let mut i = 3;
    while i < args.len() {
        if i + 1 >= args.len() {
            return Err(RespError::Syntax);
        }
        let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"rank" if n == 0 => return Err(CollectionError::RankZero.into()),
            b"rank" if n == i64::MIN => return Err(CollectionError::RankZero.into()),
            b"rank" => rank = n,
            b"count" => {
                count = Some(usize::try_from(n).map_err(|_| CollectionError::MustBePositive)?)
            }
            b"maxlen" => {
                maxlen = usize::try_from(n).map_err(|_| CollectionError::MustBePositive)?
            }
            _ => return Err(RespError::Syntax),
        }
        i += 2;
    }
    let matches = read(ctx.store, args.get(1), |list| {
        let len = list.len();
        let look = if maxlen == 0 {
            len
        } else {
            (maxlen as u64).min(len)
        };
        let want = match count {
            Some(0) => usize::MAX,
            Some(n) => n,
            None => 1,
        };
        let mut skip = rank.unsigned_abs() - 1;
        let mut matches = Vec::new();
        let mut looked = 0u64;
        list.scan(rank < 0, &mut |at, e| {
            if looked >= look {
                return false;
            }
            looked += 1;
            if e == element {
                if skip > 0 {
                    skip -= 1;
                    return true;
                }
                matches.push(at);
            }
            matches.len() < want
        })?;
        Ok(matches)
    })?
    .unwrap_or_default();
    match count {
        None => match matches.first() {
            Some(&at) => out.integer(at as i64),
            None => out.null(),
        },
        Some(_) => {
            out.array(matches.len());
            for at in matches {
                out.integer(at as i64);
            }
        }
    }
    Ok(())
}
