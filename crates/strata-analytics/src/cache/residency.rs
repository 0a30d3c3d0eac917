//! [`Residency`]: which cached segments stay in DRAM, and the plan of a
//! full scan under it ([`ResidentSet::plan_scan`]).
//!
//! A cached dataset is read whole, in the same order, again and again
//! (an iterative algorithm's passes). For that access pattern the best a
//! cache of `k` segments can do is keep some `k` segments for good and
//! read the others every pass: [`Residency::Stable`]. Least recently used
//! replacement, what a page cache does, is the worst: a cyclic scan larger
//! than the cache always evicts the segment needed soonest, so after the
//! first pass nothing hits ([`Residency::Lru`], kept to show it; the model
//! test `tests/cache_model.rs` checks both).

use serde::Serialize;

/// The replacement policy of a cached dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Residency {
    /// Segments are admitted to DRAM while they fit the dataset's share
    /// when the dataset is built, and stay there; the rest is read from
    /// the SSD on every scan.
    #[default]
    Stable,
    /// Least recently used: every segment is also on the SSD; a segment
    /// read back is kept in DRAM, evicting the least recently used ones.
    Lru,
}

/// What a scan does with one segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// In DRAM.
    Hit(usize),
    /// Read from the SSD; if `keep`, it becomes resident once read, after
    /// `evict` leave DRAM.
    Miss {
        /// The segment.
        index: usize,
        /// Stays in DRAM after the read.
        keep: bool,
        /// Segments that leave DRAM to make room.
        evict: Vec<usize>,
    },
}

/// The residency state of a dataset's segments: which are in DRAM, how
/// many bytes of the share they use, and when each was last used.
#[derive(Debug, Clone)]
pub struct ResidentSet {
    policy: Residency,
    share: usize,
    used: usize,
    sizes: Vec<usize>,
    resident: Vec<bool>,
    last_use: Vec<u64>,
    clock: u64,
}

impl ResidentSet {
    /// An empty set of `share` bytes under `policy`.
    pub fn new(policy: Residency, share: usize) -> ResidentSet {
        ResidentSet {
            policy,
            share,
            used: 0,
            sizes: Vec::new(),
            resident: Vec::new(),
            last_use: Vec::new(),
            clock: 0,
        }
    }

    /// The policy.
    pub fn policy(&self) -> Residency {
        self.policy
    }

    /// Whether the segment of `size` bytes about to be built should go to
    /// DRAM: it fits what is left of the share. `granted` says whether the
    /// memory pool agreed (checked by the caller after this says yes).
    pub fn fits(&self, size: usize) -> bool {
        self.used + size <= self.share
    }

    /// Records the build of segment `index` (built in any order), resident
    /// or not.
    pub fn add(&mut self, index: usize, size: usize, resident: bool) {
        if index >= self.sizes.len() {
            self.sizes.resize(index + 1, 0);
            self.resident.resize(index + 1, false);
            self.last_use.resize(index + 1, 0);
        }
        self.sizes[index] = size;
        self.resident[index] = resident;
        if resident {
            self.used += size;
            self.clock += 1;
            self.last_use[index] = self.clock;
        }
    }

    /// Whether segment `index` is in DRAM.
    pub fn is_resident(&self, index: usize) -> bool {
        self.resident.get(index).copied().unwrap_or(false)
    }

    /// Bytes of the share in use.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Segments known.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// True when no segment was added.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// The steps of one full scan in segment order, and the state after
    /// it (applied to `self`): the policy's decisions, made before the
    /// scan so that its reads can be issued ahead.
    pub fn plan_scan(&mut self) -> Vec<Step> {
        (0..self.sizes.len())
            .map(|index| self.visit(index))
            .collect()
    }

    /// One access to segment `index` (scans visit in segment order): the
    /// policy's decision, applied to the state.
    pub fn visit(&mut self, index: usize) -> Step {
        self.clock += 1;
        if self.resident[index] {
            self.last_use[index] = self.clock;
            return Step::Hit(index);
        }
        match self.policy {
            Residency::Stable => Step::Miss {
                index,
                keep: false,
                evict: Vec::new(),
            },
            Residency::Lru => {
                let size = self.sizes[index];
                if size > self.share {
                    return Step::Miss {
                        index,
                        keep: false,
                        evict: Vec::new(),
                    };
                }
                let mut evict = Vec::new();
                while self.used + size > self.share {
                    let victim = (0..self.sizes.len())
                        .filter(|&i| self.resident[i])
                        .min_by_key(|&i| self.last_use[i])
                        .expect("used > 0 means a segment is resident");
                    self.resident[victim] = false;
                    self.used -= self.sizes[victim];
                    evict.push(victim);
                }
                self.resident[index] = true;
                self.used += size;
                self.last_use[index] = self.clock;
                Step::Miss {
                    index,
                    keep: true,
                    evict,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(steps: &[Step]) -> usize {
        steps.iter().filter(|s| matches!(s, Step::Hit(_))).count()
    }

    #[test]
    fn stable_keeps_its_part_and_lru_thrashes_on_cyclic_scans() {
        for policy in [Residency::Stable, Residency::Lru] {
            let mut set = ResidentSet::new(policy, 30);
            for index in 0..10 {
                let fits = set.fits(10);
                set.add(index, 10, fits);
            }
            assert_eq!(set.used(), 30);
            let first = set.plan_scan();
            let second = set.plan_scan();
            let third = set.plan_scan();
            match policy {
                Residency::Stable => {
                    assert_eq!([hits(&first), hits(&second), hits(&third)], [3, 3, 3]);
                    assert!((0..3).all(|i| set.is_resident(i)));
                }
                Residency::Lru => {
                    assert_eq!(hits(&first), 3, "the build's segments, once");
                    assert_eq!([hits(&second), hits(&third)], [0, 0]);
                    assert!((7..10).all(|i| set.is_resident(i)));
                }
            }
            assert!(set.used() <= 30);
        }
    }
}
