//! `ZSCAN key cursor [MATCH pattern] [COUNT count]`.

use strata_kv::large::Sorted;
use strata_kv::Store;

use super::stored::{is_large, read};
use super::view::Owned;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection_scan::{bucket_step, scan_matches, scan_options, ScanOptions};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// A packed set: every matching member in one step, cursor 0. A large
/// one: whole member buckets from bucket `cursor` until `COUNT` members
/// were looked at; buckets only split, moving members to later ones, so a
/// member present throughout is returned at least once.
pub fn zscan<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let options = scan_options(&args, false)?;
    let key = args.get(1);
    let step = match is_large(ctx.store, key) {
        true => large_step(ctx.store, key, &options)?,
        false => None,
    };
    let (next, matched) = match step {
        Some(step) => step,
        None => {
            let all = read(ctx.store, key, |z| z.range(0, z.len()))?.unwrap_or_default();
            let all = all.into_iter().filter(|e| scan_matches(&options, &e.1));
            (0, all.collect())
        }
    };
    out.array(2);
    out.bulk(next.to_string().as_bytes());
    out.array(matched.len() * 2);
    for (score, member) in &matched {
        out.bulk(member);
        // Scores are strings in a scan reply, as a listpack holds them.
        out.bulk(crate::number::format_score_text(*score).as_bytes());
    }
    Ok(())
}

/// One step over a large set's buckets; `None` when the key holds no
/// large sorted set (any more).
fn large_step<S: Store>(
    store: &mut S,
    key: &[u8],
    options: &ScanOptions<'_>,
) -> Result<Option<(u64, Vec<Owned>)>, RespError> {
    store.read_large(key, |read| {
        let Some(mut z) = Sorted::open(read)? else {
            return Ok(None);
        };
        let buckets = z.buckets();
        let step = bucket_step(
            options,
            buckets,
            1,
            |b| Ok(z.bucket(b)?),
            |e| scan_matches(options, &e[0].1),
        )?;
        Ok(Some(step))
    })
}
