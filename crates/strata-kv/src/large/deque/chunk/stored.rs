//! A push or pop at an end of a chunk edited where the chunk is stored:
//! the record's value, `count | (len | bytes){count}` followed by zero
//! padding up to [`PADDED_LEN`](super::PADDED_LEN). Only the element and
//! the bytes after it move (as a listpack's insert or delete at its
//! head), instead of the whole chunk being copied out, parsed and written
//! back.
//!
//! Both functions leave `value` untouched when they return `None` (no
//! room, the chunk would be emptied, or its bytes do not parse: then the
//! caller's general path reads the chunk and reports what is wrong), and
//! otherwise leave a well-formed chunk followed by zeros, returning the
//! length of its content.

use super::layout::{next_element, packed, Side};
use crate::arena::{get_varint, put_varint};
use crate::collection::varint_len;
use crate::large::hashed::TARGET_CHUNK;

/// The parsed shape of a stored chunk: the element count, where the
/// elements start (after the count) and where they end.
pub(super) struct Shape {
    pub(super) count: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The shape of the chunk at the start of `value` (padding after it is
/// not looked at); `None` if its bytes do not parse.
pub(super) fn shape(value: &[u8]) -> Option<Shape> {
    let mut pos = 0;
    let count = usize::try_from(get_varint(value, &mut pos)?).ok()?;
    let start = pos;
    if count > value.len() {
        return None;
    }
    for _ in 0..count {
        next_element(value, &mut pos)?;
    }
    Some(Shape {
        count,
        start,
        end: pos,
    })
}

/// Adds `element` at `side` of the chunk stored in `value`, when the
/// chunk stays within [`TARGET_CHUNK`] packed bytes and `value` has room;
/// the content's new length.
pub fn push(value: &mut [u8], side: Side, element: &[u8]) -> Option<usize> {
    let elements_fit = |count: u64, len: u64| len - varint_len(count) as u64 <= TARGET_CHUNK;
    push_within(value, side, element, elements_fit).map(|(end, _)| end)
}

/// Adds `element` at `side` of the packed run stored in `value` when
/// `fits(count, len)` allows the run it makes (its element count and its
/// length, the count's bytes included) and `value` has room; the
/// content's new length and the new count. A whole packed list stored
/// padded is such a run, as a chunk is.
pub fn push_within(
    value: &mut [u8],
    side: Side,
    element: &[u8],
    fits: impl FnOnce(u64, u64) -> bool,
) -> Option<(usize, usize)> {
    let Shape { count, start, end } = shape(value)?;
    let size = packed(element) as usize;
    let head = varint_len(count as u64 + 1);
    let new_end = head + (end - start) + size;
    if !fits(count as u64 + 1, new_end as u64) || new_end > value.len() {
        return None;
    }
    let at = match side {
        Side::Front => {
            value.copy_within(start..end, head + size);
            head
        }
        Side::Back => {
            value.copy_within(start..end, head);
            head + (end - start)
        }
    };
    let mut pos = at;
    put_varint(value, &mut pos, element.len() as u64);
    value[pos..at + size].copy_from_slice(element);
    let mut pos = 0;
    put_varint(value, &mut pos, count as u64 + 1);
    Some((new_end, count + 1))
}

/// Removes the element at `side` of the chunk stored in `value`, unless
/// it is the chunk's last (an emptied chunk is dropped, which the caller
/// does); the element and the content's new length.
pub fn pop(value: &mut [u8], side: Side) -> Option<(Vec<u8>, usize)> {
    pop_within(value, side, |_| true)
}

/// [`pop`], when `keep(new_len)` agrees to the content's new length (a
/// caller that stores a shrunk run shorter declines).
pub fn pop_within(
    value: &mut [u8],
    side: Side,
    keep: impl FnOnce(usize) -> bool,
) -> Option<(Vec<u8>, usize)> {
    let Shape { count, start, end } = shape(value)?;
    if count < 2 {
        return None;
    }
    // The span of the element that goes, length prefix included.
    let (from, to) = match side {
        Side::Front => {
            let mut pos = start;
            next_element(value, &mut pos)?;
            (start, pos)
        }
        Side::Back => {
            let mut pos = start;
            for _ in 1..count {
                next_element(value, &mut pos)?;
            }
            (pos, end)
        }
    };
    let head = varint_len(count as u64 - 1);
    let new_end = head + (end - start) - (to - from);
    if !keep(new_end) {
        return None;
    }
    let mut pos = from;
    let element = next_element(value, &mut pos)?.to_vec();
    match side {
        Side::Front => value.copy_within(to..end, head),
        Side::Back => value.copy_within(start..from, head),
    }
    value[new_end..end].fill(0);
    let mut pos = 0;
    put_varint(value, &mut pos, count as u64 - 1);
    Some((element, new_end))
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::super::{Chunk, PADDED_LEN};
    use super::*;
    use crate::collection;

    /// The chunk `model` holds, stored padded.
    fn stored(model: &VecDeque<Vec<u8>>) -> Vec<u8> {
        let mut value = collection::encode(model.iter().map(Vec::as_slice));
        value.resize(PADDED_LEN.max(value.len()), 0);
        value
    }

    /// Random pushes and pops at both ends against a deque model: after
    /// each, the stored bytes are exactly what storing the model gives
    /// (so the padding stays zero), a refused edit changed nothing, and
    /// refusals happen only where the general path is needed.
    #[test]
    fn edits_where_stored_match_a_deque_model() {
        let mut next = super::super::tests::numbers(11);
        let mut model: VecDeque<Vec<u8>> = VecDeque::from([b"a".to_vec()]);
        let mut value = stored(&model);
        let (mut pushed, mut popped) = (0, 0);
        for step in 0..20_000 {
            let side = [Side::Front, Side::Back][next() % 2];
            let before = value.clone();
            // Short elements (counts past one varint byte) and long ones
            // (lengths past it).
            let len = [next() % 3, next() % 300][next() % 2];
            if next().is_multiple_of(2) {
                let element = vec![(step % 251) as u8; len];
                let bytes: u64 = model.iter().map(|e| packed(e)).sum();
                match push(&mut value, side, &element) {
                    Some(end) => {
                        match side {
                            Side::Front => model.push_front(element),
                            Side::Back => model.push_back(element),
                        }
                        let want = stored(&model);
                        assert_eq!(value, want, "step {step}");
                        assert_eq!(
                            end,
                            collection::encoded_len(model.iter().map(Vec::as_slice))
                        );
                        pushed += 1;
                    }
                    None => {
                        assert_eq!(value, before, "step {step}: refused but changed");
                        assert!(bytes + packed(&element) > TARGET_CHUNK, "step {step}");
                    }
                }
            } else {
                match pop(&mut value, side) {
                    Some((element, end)) => {
                        let want = match side {
                            Side::Front => model.pop_front(),
                            Side::Back => model.pop_back(),
                        };
                        assert_eq!(Some(element), want, "step {step}");
                        assert_eq!(value, stored(&model), "step {step}");
                        assert_eq!(
                            end,
                            collection::encoded_len(model.iter().map(Vec::as_slice))
                        );
                        popped += 1;
                    }
                    None => {
                        assert_eq!(value, before, "step {step}: refused but changed");
                        assert_eq!(model.len(), 1, "step {step}");
                    }
                }
            }
            let chunk = Chunk::from_stored(value.clone()).expect("a stored chunk");
            assert!(
                chunk.iter().eq(model.iter().map(Vec::as_slice)),
                "step {step}"
            );
        }
        assert!(
            pushed > 5_000 && popped > 5_000,
            "{pushed} pushes, {popped} pops"
        );
    }

    #[test]
    fn the_callers_limits_refuse_without_changing_anything() {
        let model = VecDeque::from([b"ab".to_vec(), b"c".to_vec()]);
        let mut value = stored(&model);
        let before = value.clone();
        // Three elements would be one too many; the run's length counts
        // the count's byte (1 + 3 + 2 + 2).
        assert_eq!(
            push_within(&mut value, Side::Back, b"d", |n, _| n <= 2),
            None
        );
        assert_eq!(
            push_within(&mut value, Side::Back, b"d", |_, len| len < 8),
            None
        );
        assert_eq!(value, before);
        assert_eq!(
            push_within(&mut value, Side::Back, b"d", |n, len| n == 3 && len == 8),
            Some((8, 3))
        );
        // A pop told the new length (1 + 2 + 2) may decline.
        let after_push = value.clone();
        assert_eq!(pop_within(&mut value, Side::Front, |len| len != 5), None);
        assert_eq!(value, after_push);
        assert_eq!(
            pop_within(&mut value, Side::Front, |len| len == 5),
            Some((b"ab".to_vec(), 5))
        );
    }

    #[test]
    fn a_full_or_damaged_chunk_is_left_alone() {
        // No room in an unpadded value (stored where records are not
        // rewritten in place, or replayed from the journal).
        let mut value = collection::encode([&b"x"[..], b"y"]);
        let before = value.clone();
        assert_eq!(push(&mut value, Side::Back, b"z"), None);
        assert_eq!(value, before);
        // A count larger than the elements there.
        let mut damaged = vec![5, 1, b'a', 0, 0, 0];
        assert_eq!(push(&mut damaged, Side::Front, b"b"), None);
        assert_eq!(pop(&mut damaged, Side::Back), None);
        // A length that runs past the value.
        let mut damaged = vec![2, 1, b'a', 9, b'b', 0];
        assert_eq!(pop(&mut damaged, Side::Front), None);
        assert_eq!(damaged, vec![2, 1, b'a', 9, b'b', 0]);
        // The last element is not popped here.
        let mut one = stored(&VecDeque::from([b"only".to_vec()]));
        assert_eq!(pop(&mut one, Side::Front), None);
    }
}
