//! Replying with a sorted set's members and scores.

use crate::writer::{ReplyWriter, RespVersion};

/// Writes `entries` as a reply: members, with scores when asked (RESP2
/// flat, RESP3 `[member, score]` pairs, as every Redis 7.0 range,
/// `ZRANDMEMBER` and `ZUNION`/`ZINTER`/`ZDIFF` reply).
pub fn reply_entries<'e, M: AsRef<[u8]> + 'e>(
    out: &mut ReplyWriter<'_>,
    entries: impl ExactSizeIterator<Item = &'e (f64, M)>,
    with_scores: bool,
) {
    let resp3_pairs = with_scores && out.version() == RespVersion::Resp3;
    out.array(if with_scores && !resp3_pairs {
        entries.len() * 2
    } else {
        entries.len()
    });
    for e in entries {
        if resp3_pairs {
            out.array(2);
        }
        out.bulk(e.1.as_ref());
        if with_scores {
            out.double(e.0);
        }
    }
}
