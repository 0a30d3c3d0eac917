//! `ZRANDMEMBER key [count [WITHSCORES]]`.

use strata_kv::Store;

use super::{read, reply_entries, Entry};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::random_picks;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// One random member (or null); with a count, distinct members (positive)
/// or possibly repeated ones (negative), with scores if asked.
pub fn zrandmember<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let count = match args.len() {
        2 => None,
        _ => Some(parse_i64(args.get(2)).ok_or(RespError::NotInteger)?),
    };
    let with_scores = match args.len() {
        2 | 3 => false,
        4 if args.get(3).eq_ignore_ascii_case(b"withscores") => true,
        _ => return Err(RespError::Syntax),
    };
    let found = read(ctx.store, args.get(1), |entries| {
        let picks = random_picks(entries.len(), count.unwrap_or(1))?;
        match count {
            None => out.bulk(entries[picks[0]].1),
            Some(_) => {
                let chosen: Vec<Entry<'_>> = picks.iter().map(|&i| entries[i]).collect();
                reply_entries(out, &chosen, with_scores, true);
            }
        }
        Ok(())
    })?;
    match found {
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
