//! How Redis's radix tree of a stream's nodes would look, for `XINFO
//! STREAM`'s `radix-tree-keys` and `radix-tree-nodes`.
//!
//! Redis keys each listpack node of a stream by its master identifier (16
//! bytes, big-endian) in a `rax`. Strata has no such tree: [`RaxShape`]
//! takes each node's key to be the identifier of its first live entry
//! and counts the nodes of the radix tree
//! `rax.c` builds over those keys: the root, each branching point, each
//! child of one, and each key's leaf, single-child runs compressed into
//! one node. Checked equal to Redis 7.0.15 on streams of up to 20,000
//! entries built by `XADD` and trimmed by `XTRIM ~`. Approximate where
//! Strata's nodes differ from Redis's: after `XDEL` of a node's first
//! entry (Redis keeps the deleted master identifier as the key), after an
//! exact trim that cut into a node, and where Redis starts a node early
//! because the last one reached `stream-node-max-bytes` (Strata's nodes
//! count entries only).

use super::id::StreamId;
use super::model::Stream;
use crate::reply::RespError;

/// Bytes of a node key.
const KEY_LEN: usize = 16;

type Key = [u8; KEY_LEN];

/// The radix tree's size: its keys (Redis's `raxSize`) and nodes
/// (`rax->numnodes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaxShape {
    /// Keys: the stream's nodes.
    pub keys: u64,
    /// Nodes of the tree, the root included.
    pub nodes: u64,
}

impl RaxShape {
    /// The tree of `stream`'s nodes (reading every node of a large one).
    pub fn of(stream: &mut Stream<'_>) -> Result<RaxShape, RespError> {
        let ids = stream.body.node_first_ids()?;
        Ok(RaxShape::of_keys(&ids))
    }

    /// The tree over nodes whose first live entries are `ids` (in order).
    pub fn of_keys(ids: &[StreamId]) -> RaxShape {
        let keys: Vec<Key> = ids.iter().map(|&id| key(id)).collect();
        RaxShape {
            keys: keys.len() as u64,
            nodes: if keys.is_empty() {
                1
            } else {
                subtree(&keys, 0)
            },
        }
    }
}

fn key(id: StreamId) -> Key {
    let mut k = [0u8; KEY_LEN];
    k[..8].copy_from_slice(&id.ms.to_be_bytes());
    k[8..].copy_from_slice(&id.seq.to_be_bytes());
    k
}

/// Nodes of the subtree at a node at depth `depth` holding `keys`
/// (sorted, distinct, non-empty, equal in their first `depth` bytes).
/// Recursion is at most `KEY_LEN` deep.
fn subtree(keys: &[Key], depth: usize) -> u64 {
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return 0;
    };
    // A compressed run to the key's leaf, or the leaf itself.
    let one_key = if depth >= KEY_LEN { 1 } else { 2 };
    if keys.len() == 1 {
        return one_key;
    }
    // Sorted keys: what the first and last share, all share. Distinct
    // keys of one length differ before the end.
    let shared = first
        .iter()
        .zip(last)
        .skip(depth)
        .take_while(|(a, b)| a == b)
        .count();
    let branch = depth + shared;
    if branch >= KEY_LEN {
        // Repeated keys (only in a damaged value) count as one.
        return one_key;
    }
    // A compressed run to the branching point (when there is a run), the
    // branching node, then one subtree per distinct byte there.
    let mut nodes = u64::from(shared > 0) + 1;
    let mut rest = keys;
    while let Some(head) = rest.first() {
        // At least the head, so the loop ends even on keys out of order
        // (a damaged value).
        let same = rest.partition_point(|k| k[branch] == head[branch]).max(1);
        nodes += subtree(&rest[..same], branch + 1);
        rest = &rest[same..];
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(ids: impl IntoIterator<Item = StreamId>) -> Stream<'static> {
        let mut s = Stream::new();
        for id in ids {
            s.append(id, vec![b"f".to_vec(), b"v".to_vec()]).unwrap();
        }
        s
    }

    fn shape(keys: u64, nodes: u64) -> RaxShape {
        RaxShape { keys, nodes }
    }

    #[test]
    fn empty_and_single_node_streams() {
        assert_eq!(RaxShape::of(&mut Stream::new()).unwrap(), shape(0, 1));
        let mut one = stream([StreamId::new(1, 0)]);
        assert_eq!(RaxShape::of(&mut one).unwrap(), shape(1, 2));
    }

    #[test]
    fn shapes_redis_gave() {
        // 250 entries 1-0..250-0: node keys 1-0, 101-0, 201-0.
        let mut s = stream((1..=250).map(|ms| StreamId::new(ms, 0)));
        assert_eq!(RaxShape::of(&mut s).unwrap(), shape(3, 8));
        // 1,000 entries (i * 7919)-i.
        let mut s = stream((1..=1000).map(|i| StreamId::new(i * 7919, i)));
        assert_eq!(RaxShape::of(&mut s).unwrap(), shape(10, 22));
    }

    #[test]
    fn keys_out_of_order_or_repeated_neither_panic_nor_spin() {
        let (a, b) = (key(StreamId::new(1, 0)), key(StreamId::new(2, 0)));
        assert!(subtree(&[b, a, b], 0) > 0);
        assert_eq!(subtree(&[a, a], 0), 2);
    }

    #[test]
    fn keys_differing_only_in_the_last_byte_have_leaves_under_the_branch() {
        let keys = [key(StreamId::new(5, 1)), key(StreamId::new(5, 2))];
        // Root run, branch, two leaves.
        assert_eq!(subtree(&keys, 0), 4);
        let keys = [
            key(StreamId::new(1 << 56, 0)),
            key(StreamId::new(2 << 56, 0)),
        ];
        // The root branches: two runs, two leaves.
        assert_eq!(subtree(&keys, 0), 5);
    }
}
