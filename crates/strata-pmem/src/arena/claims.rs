//! The claim registry: which runs are held by a [`ClaimedRun`] for plain
//! byte access, so that no other view of their memory can be made.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use super::PersistentArena;
use crate::alloc::ChunkRun;
use crate::claim::{ClaimedRun, ClaimedWords};
use crate::error::{PmemError, Result};

impl PersistentArena {
    /// Claims `run` for plain byte access by its one owner. Refused
    /// (`InvalidRun`) if any chunk of it is already claimed. While the
    /// claim lives, word access to the run and `free` are refused.
    pub fn claim(self: &Arc<Self>, run: ChunkRun) -> Result<ClaimedRun> {
        ClaimedRun::new(Arc::clone(self), run)
    }

    /// Claims `run` as words for its one owner (a table updated with
    /// single atomic stores, read by many threads); exclusive like
    /// [`claim`](Self::claim).
    pub fn claim_words(self: &Arc<Self>, run: ChunkRun) -> Result<ClaimedWords> {
        ClaimedWords::new(Arc::clone(self), run)
    }

    /// The words of `run`, shared. Refused for a claimed run.
    pub fn run_words(&self, run: &ChunkRun) -> Result<&[AtomicU64]> {
        self.check_unclaimed(run)?;
        self.words_of(run)
    }

    /// Registers the claim of `run` and returns its memory.
    pub(crate) fn register_claim(&self, run: &ChunkRun) -> Result<&[AtomicU64]> {
        let words = self.words_of(run)?;
        let mut claims = self.claims.lock();
        if overlaps(&claims, run) {
            return Err(claimed(run));
        }
        claims.insert(run.first(), run.count());
        Ok(words)
    }

    /// Ends the claim of `run` (from `ClaimedRun::drop`).
    pub(crate) fn release_claim(&self, run: &ChunkRun) {
        self.claims.lock().remove(&run.first());
    }

    /// `InvalidRun` if any chunk of `run` is claimed.
    pub(crate) fn check_unclaimed(&self, run: &ChunkRun) -> Result<()> {
        let claims = self.claims.lock();
        if claims.is_empty() || !overlaps(&claims, run) {
            Ok(())
        } else {
            Err(claimed(run))
        }
    }

    fn words_of(&self, run: &ChunkRun) -> Result<&[AtomicU64]> {
        let start = self.locate(run, 0, run.len())?;
        let words = self.backing.words();
        let (first, end) = ((start / 8) as usize, ((start + run.len()) / 8) as usize);
        words.get(first..end).ok_or(PmemError::OutOfBounds {
            offset: start,
            len: run.len(),
            limit: words.len() as u64 * 8,
        })
    }
}

fn overlaps(claims: &std::collections::BTreeMap<u64, u64>, run: &ChunkRun) -> bool {
    let end = run.first() + run.count();
    // The last claim starting before `end` is the only one that can reach
    // into the run (claims never overlap each other).
    claims
        .range(..end)
        .next_back()
        .is_some_and(|(first, count)| first + count > run.first())
}

fn claimed(run: &ChunkRun) -> PmemError {
    PmemError::InvalidRun {
        first: run.first(),
        count: run.count(),
        reason: "claimed for byte access".into(),
    }
}
