//! `ZRANDMEMBER key [count [WITHSCORES]]`.

use strata_kv::Store;

use super::reply_entries;
use super::stored::read;
use super::view::Owned;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{parse_random_args, random_picks};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// One random member (or null); with a count, distinct members (positive)
/// or possibly repeated ones (negative), with scores if asked.
pub fn zrandmember<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (count, with_scores) = parse_random_args(&args, b"withscores")?;
    let found = read(ctx.store, args.get(1), |z| {
        let len = usize::try_from(z.len()).unwrap_or(usize::MAX);
        let picks = random_picks(len, count.unwrap_or(1))?;
        // Many picks: read every member once; few: one rank each.
        let chosen: Vec<Owned> = if picks.len().saturating_mul(4) >= len {
            let all = z.range(0, z.len())?;
            picks.iter().filter_map(|&i| all.get(i).cloned()).collect()
        } else {
            let mut chosen = Vec::with_capacity(picks.len());
            for &i in &picks {
                chosen.extend(z.range(i as u64, i as u64 + 1)?);
            }
            chosen
        };
        match count {
            None => match chosen.first() {
                Some(e) => out.bulk(&e.1),
                None => out.null(),
            },
            Some(_) => reply_entries(out, chosen.iter(), with_scores),
        }
        Ok(())
    })?;
    match found {
        Some(()) => Ok(()),
        None => {
            match count {
                None => out.null(),
                Some(_) => out.array(0),
            }
            Ok(())
        }
    }
}
