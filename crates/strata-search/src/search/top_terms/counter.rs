//! Documents per key (a term ordinal, or a pair of them) in one segment:
//! an array for small key spaces, a hash map that becomes an array for
//! larger ones.
//!
//! Counting is a read-modify-write of one counter per document. When
//! consecutive documents hold the same key (most requests come from a few
//! browsers), each increment waits for the previous one's store to reach
//! the load, a chain of several cycles per document. Small key spaces
//! therefore keep [`LANES`] interleaved counters per key and spread
//! consecutive documents over them, so that neighbours never touch the
//! same counter; the lanes are summed once, at harvest.

use rustc_hash::FxHashMap;

/// Counters of up to this many keys (4 MiB) may become arrays; larger key
/// spaces (many terms, or many pairs of terms) always count in a hash map,
/// whose size follows the keys seen rather than the dictionaries.
const DENSE_KEYS: u64 = 1 << 20;

/// Key spaces up to this size (a few pages per lane) are arrays from the
/// start, with [`LANES`] counters per key.
const SMALL_KEYS: u64 = 4096;

/// Counters per key of a small key space.
const LANES: usize = 4;

/// A counter of a larger key space starts as a hash map and becomes an
/// array once it has counted a document for every this many keys. A search
/// of few documents (404s of the last 15 minutes) over a segment with a
/// million client addresses then neither zeroes nor scans a 4 MiB array,
/// which on this machine costs more than all its counting; a search of
/// many documents soon counts at array speed.
const DENSE_SHARE: u64 = 8;

/// Documents per key.
pub(super) enum Counter {
    /// Key `k`'s counters are `counts[k * LANES..][..LANES]`.
    Lanes {
        counts: Vec<u32>,
        keys: usize,
    },
    Dense(Vec<u32>),
    Sparse {
        counts: FxHashMap<u64, u32>,
        /// The key space: keys past it are ignored, as a dense counter does.
        keys: u64,
        /// Adds left before becoming dense (`u64::MAX`: never).
        until_dense: u64,
    },
}

impl Counter {
    pub(super) fn new(keys: u64) -> Counter {
        if keys <= SMALL_KEYS {
            return Counter::Lanes {
                counts: vec![0; keys as usize * LANES],
                keys: keys as usize,
            };
        }
        let until_dense = if keys <= DENSE_KEYS {
            keys / DENSE_SHARE
        } else {
            u64::MAX
        };
        Counter::Sparse {
            counts: FxHashMap::default(),
            keys,
            until_dense,
        }
    }

    /// Counts one document at `key` (keys past the key space, which no
    /// column of the segment holds, are ignored).
    #[inline]
    pub(super) fn add(&mut self, key: u64) {
        match self {
            Counter::Lanes { counts, keys } => {
                if key < *keys as u64 {
                    counts[key as usize * LANES] += 1;
                }
            }
            Counter::Dense(counts) => {
                if let Some(c) = counts.get_mut(key as usize) {
                    *c += 1;
                }
            }
            Counter::Sparse { .. } => self.add_sparse(key),
        }
    }

    /// Counts one document at each of `keys`, as [`Counter::add`] of each.
    pub(super) fn add_all(&mut self, keys: &[u64]) {
        match self {
            Counter::Lanes {
                counts,
                keys: space,
            } => {
                let space = *space as u64;
                let mut chunks = keys.chunks_exact(LANES);
                for chunk in &mut chunks {
                    for (lane, &key) in chunk.iter().enumerate() {
                        if key < space {
                            counts[key as usize * LANES + lane] += 1;
                        }
                    }
                }
                for (lane, &key) in chunks.remainder().iter().enumerate() {
                    if key < space {
                        counts[key as usize * LANES + lane] += 1;
                    }
                }
            }
            Counter::Dense(counts) => {
                for &key in keys {
                    if let Some(c) = counts.get_mut(key as usize) {
                        *c += 1;
                    }
                }
            }
            // It may become an array part way: one key at a time.
            Counter::Sparse { .. } => keys.iter().for_each(|&key| self.add(key)),
        }
    }

    /// [`Counter::add`] to a hash map, kept out of the array's loop.
    #[inline(never)]
    fn add_sparse(&mut self, key: u64) {
        let Counter::Sparse {
            counts,
            keys,
            until_dense,
        } = self
        else {
            return;
        };
        if key >= *keys {
            return;
        }
        *counts.entry(key).or_insert(0) += 1;
        *until_dense -= 1;
        if *until_dense == 0 {
            let mut dense = vec![0u32; *keys as usize];
            for (&k, &c) in counts.iter() {
                dense[k as usize] = c;
            }
            *self = Counter::Dense(dense);
        }
    }

    /// The keys counted in `start..start + width` of an array, as
    /// offsets from `start`, with their counts, in increasing order
    /// (empty for a hash map, or past the key space).
    pub(super) fn row(&self, start: u64, width: u64) -> Vec<(u64, u32)> {
        let nonzero = |(b, c): (usize, u32)| (c > 0).then_some((b as u64, c));
        let (start, width) = (start as usize, width as usize);
        match self {
            Counter::Lanes { counts, .. } => counts
                .get(start * LANES..(start + width) * LANES)
                .map(|slice| {
                    slice
                        .chunks_exact(LANES)
                        .map(|lanes| lanes.iter().sum())
                        .enumerate()
                        .filter_map(nonzero)
                        .collect()
                })
                .unwrap_or_default(),
            Counter::Dense(counts) => counts
                .get(start..start + width)
                .map(|slice| {
                    slice
                        .iter()
                        .copied()
                        .enumerate()
                        .filter_map(nonzero)
                        .collect()
                })
                .unwrap_or_default(),
            Counter::Sparse { .. } => Vec::new(),
        }
    }

    /// The keys counted, with their counts (in increasing order of key
    /// for an array; the caller sorts what it keeps).
    pub(super) fn counted(&self) -> Vec<(u64, u32)> {
        match self {
            Counter::Lanes { counts, .. } => counts
                .chunks_exact(LANES)
                .enumerate()
                .map(|(k, lanes)| (k as u64, lanes.iter().sum::<u32>()))
                .filter(|&(_, c)| c > 0)
                .collect(),
            Counter::Dense(counts) => counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(k, &c)| (k as u64, c))
                .collect(),
            Counter::Sparse { counts, .. } => counts.iter().map(|(&k, &c)| (k, c)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn sorted(counter: &Counter) -> Vec<(u64, u32)> {
        let mut counted = counter.counted();
        counted.sort_unstable();
        counted
    }

    #[test]
    fn every_kind_counts_as_a_model_one_key_or_a_block_at_a_time() {
        // 100 keys: lanes; 10,000: a map that becomes an array after
        // 1,250 adds; 2^21: a map for good.
        for keys in [100u64, 10_000, 2 << 20] {
            let mut one = Counter::new(keys);
            let mut block = Counter::new(keys);
            let mut model = BTreeMap::new();
            let mut pending = Vec::new();
            for i in 0..3_000u64 {
                // Runs of one key, then scattered keys, some outside.
                let key = if i % 100 < 30 {
                    7
                } else {
                    (i * i * 7919) % (keys + 5)
                };
                one.add(key);
                pending.push(key);
                if key < keys {
                    *model.entry(key).or_insert(0u32) += 1;
                }
                // Blocks of odd lengths leave remainders past the lanes.
                if pending.len() == 1 + (i as usize % 13) {
                    block.add_all(&pending);
                    pending.clear();
                }
                if i == 1_000 || i == 2_999 {
                    block.add_all(&pending);
                    pending.clear();
                    let want: Vec<(u64, u32)> = model.iter().map(|(&k, &c)| (k, c)).collect();
                    assert_eq!(sorted(&one), want, "{keys} keys after {i} adds");
                    assert_eq!(sorted(&block), want, "{keys} keys, blocks, after {i} adds");
                }
            }
            // Rows of an array: the keys of one stretch, from its start.
            if !matches!(block, Counter::Sparse { .. }) {
                let want: Vec<(u64, u32)> = model.range(5..25).map(|(&k, &c)| (k - 5, c)).collect();
                assert_eq!(block.row(5, 20), want, "{keys} keys, a row");
                assert!(block.row(keys, 20).is_empty());
            }
        }
    }
}
