//! The chunk against a deque model, and damaged chunks.

use super::*;
use crate::collection;

/// A seeded stream of pseudo-random numbers (an LCG's high bits), so a
/// failing step repeats.
pub(super) fn numbers(seed: u64) -> impl FnMut() -> usize {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    }
}

/// Random pushes and pops at both ends, sets, inserts, removals and
/// drops, checked against a deque after every step (reads, length,
/// packed size) and, every few steps, the stored value, which turns a
/// decoded chunk back to the packed form; so each operation runs on
/// both forms.
#[test]
fn a_chunk_matches_a_deque_model_in_both_forms() {
    let mut model: VecDeque<Vec<u8>> = VecDeque::new();
    let mut chunk = Chunk::from_packed(collection::encode(std::iter::empty())).unwrap();
    let mut next = numbers(7);
    for step in 0..6000 {
        let side = if next().is_multiple_of(2) {
            Side::Front
        } else {
            Side::Back
        };
        // Lengths on both sides of a one-byte varint; few distinct
        // contents, so removals find matches.
        let element = vec![(next() % 4) as u8; next() % 200];
        let at = next() % (model.len() + 1);
        match next() % 12 {
            0..=3 => {
                let want = match side {
                    Side::Front => model.pop_front(),
                    Side::Back => model.pop_back(),
                };
                assert_eq!(chunk.pop(side), want, "step {step}");
            }
            4 => {
                let done = chunk.set(at, &element);
                assert_eq!(done, at < model.len(), "step {step}");
                if done {
                    model[at] = element;
                }
            }
            5 => {
                chunk.insert(at, &element);
                model.insert(at, element);
            }
            6 => {
                let limit = next() as u64 % 3;
                let want = model_remove(&mut model, side, limit, &element);
                assert_eq!(chunk.remove_equal(side, limit, &element), want);
            }
            7 if next().is_multiple_of(4) => {
                let n = next() % 4;
                chunk.drop_n(side, n);
                for _ in 0..n {
                    match side {
                        Side::Front => model.pop_front(),
                        Side::Back => model.pop_back(),
                    };
                }
            }
            _ => {
                chunk.push(side, &element);
                match side {
                    Side::Front => model.push_front(element),
                    Side::Back => model.push_back(element),
                }
            }
        }
        let want = collection::encode(model.iter().map(Vec::as_slice));
        assert_eq!(chunk.len(), model.len());
        assert_eq!(chunk.value_len() as usize, want.len(), "step {step}");
        let at = next() % (model.len() + 1);
        assert_eq!(chunk.get(at), model.get(at).map(Vec::as_slice));
        assert!(chunk.iter().eq(model.iter().map(Vec::as_slice)));
        if next().is_multiple_of(5) {
            assert_eq!(chunk.value(), &want[..], "step {step}");
            let reread = Chunk::from_packed(want.clone()).unwrap();
            assert!(reread.iter().eq(model.iter().map(Vec::as_slice)));
        }
    }
}

/// What `remove_equal` should do to a deque.
fn model_remove(model: &mut VecDeque<Vec<u8>>, side: Side, limit: u64, e: &[u8]) -> u64 {
    let mut hits: Vec<usize> = (0..model.len()).filter(|&i| model[i] == e).collect();
    if side == Side::Back {
        hits.reverse();
    }
    hits.truncate(limit as usize);
    hits.sort_unstable();
    for &i in hits.iter().rev() {
        model.remove(i);
    }
    hits.len() as u64
}

#[test]
fn a_damaged_chunk_is_refused() {
    let stored = collection::encode([&b"abc"[..], b"de"]);
    for cut in 0..stored.len() {
        assert!(
            Chunk::from_stored(stored[..cut].to_vec()).is_none(),
            "cut at {cut}"
        );
    }
    let mut longer = stored.clone();
    longer.push(1);
    assert!(Chunk::from_stored(longer).is_none());
    let mut padded = stored.clone();
    padded.resize(PADDED_LEN, 0);
    let read = Chunk::from_stored(padded).unwrap();
    assert!(read.iter().eq([&b"abc"[..], b"de"]));
    let mut read = read;
    assert_eq!(read.value(), &stored[..]);
    padded = stored.clone();
    padded.extend([0, 0, 7, 0]);
    assert!(Chunk::from_stored(padded).is_none());
    // A packed list's value has no padding.
    let mut zeros = stored.clone();
    zeros.push(0);
    assert!(Chunk::from_packed(zeros).is_none());
    assert!(Chunk::from_packed(stored.clone()).is_some());
    assert!(Chunk::from_stored(vec![0xff, 0xff, 0xff, 0xff, 0x0f]).is_none());
}
