//! `BITOP AND | OR | XOR | NOT destkey key [key ...]`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store, StringForm};

use super::bits::check_growth;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::commands::collection::not_string;
use crate::notify;
use crate::reply::{RespError, ValueError};
use crate::writer::ReplyWriter;

/// The operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bitwise {
    And,
    Or,
    Xor,
    Not,
}

/// `op` over `sources`, a missing key or a short string counting as zero
/// bytes; as long as the longest.
fn combine(op: Bitwise, sources: &[Vec<u8>]) -> Vec<u8> {
    let len = sources.iter().map(Vec::len).max().unwrap_or(0);
    if op == Bitwise::Not {
        let mut v = sources.first().cloned().unwrap_or_default();
        v.iter_mut().for_each(|b| *b = !*b);
        return v;
    }
    let f: fn(u8, u8) -> u8 = match op {
        Bitwise::And => |a, b| a & b,
        Bitwise::Or => |a, b| a | b,
        // NOT, of one source, returned above.
        Bitwise::Xor | Bitwise::Not => |a, b| a ^ b,
    };
    let mut out = vec![0u8; len];
    for (i, byte) in out.iter_mut().enumerate() {
        let mut bytes = sources.iter().map(|s| s.get(i).copied().unwrap_or(0));
        let first = bytes.next().unwrap_or(0);
        *byte = bytes.fold(first, f);
    }
    out
}

/// The sources read and the destination written with their shards held.
struct Task<'a> {
    op: Bitwise,
    destination: &'a [u8],
    sources: Vec<&'a [u8]>,
    max_item: usize,
}

impl Atomic for Task<'_> {
    /// The length stored, and whether the destination existed before.
    type Output = Result<(usize, bool), RespError>;

    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let mut values = Vec::with_capacity(self.sources.len());
        for key in &self.sources {
            let value = store.get(key, |item| match not_string(Some(item)) {
                true => Err(RespError::WrongType),
                false => Ok(item.value.to_vec()),
            });
            values.push(value.transpose()?.unwrap_or_default());
        }
        let result = combine(self.op, &values);
        check_growth(result.len(), self.max_item)?;
        let len = result.len();
        let existed = store.kind(self.destination).is_some();
        if len == 0 {
            store.delete(self.destination)?;
        } else {
            let item = NewItem {
                value: Cow::Owned(result),
                flags: 0,
                expires_at: None,
            };
            // A new string Redis builds in place: `raw` whatever its length.
            store.update(self.destination, |_| {
                (Mutation::PutString(StringForm::Edited, item), ())
            })?;
        }
        Ok((len, existed))
    }
}

/// Stores the bitwise `AND`, `OR` or `XOR` of the sources, or the `NOT`
/// of its one source, at the destination (replacing it, whatever its type;
/// deleting it when the result is empty); replies the result's length.
pub fn bitop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let op = match args.get(1).to_ascii_lowercase().as_slice() {
        b"and" => Bitwise::And,
        b"or" => Bitwise::Or,
        b"xor" => Bitwise::Xor,
        b"not" => Bitwise::Not,
        _ => return Err(RespError::Syntax),
    };
    let sources: Vec<&[u8]> = args.iter_from(3).collect();
    if op == Bitwise::Not && sources.len() != 1 {
        return Err(RespError::from(ValueError::BitopNotSingle));
    }
    let destination = args.get(2);
    let mut held = sources.clone();
    held.push(destination);
    let task = Task {
        op,
        destination,
        sources,
        max_item: ctx.shared.keyspace.max_item_size(),
    };
    let (len, existed) = atomically(ctx, &held, task)?;
    notify::fire_stored(ctx, existed, len > 0, (notify::STRING, "set"), destination);
    out.integer(len as i64);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combines_like_redis() {
        let (a, b) = (vec![0b1100_1100, 0xFF], vec![0b1010_1010]);
        let both = [a.clone(), b.clone()];
        assert_eq!(combine(Bitwise::And, &both), [0b1000_1000, 0x00]);
        assert_eq!(combine(Bitwise::Or, &both), [0b1110_1110, 0xFF]);
        assert_eq!(combine(Bitwise::Xor, &both), [0b0110_0110, 0xFF]);
        assert_eq!(combine(Bitwise::Not, &[b]), [0b0101_0101]);
        assert!(combine(Bitwise::And, &[vec![], vec![]]).is_empty());
    }
}
