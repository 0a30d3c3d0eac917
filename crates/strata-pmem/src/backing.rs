//! [`Backing`]: the memory under an arena, real or simulated, chosen once at
//! open so that the header and allocator code is the same for both. An enum
//! rather than a trait object: the hot path (persist, atomic stores) is one
//! predictable branch, no indirect call.

use std::sync::atomic::AtomicU64;

use crate::error::Result;
use crate::map::PmemMap;
use crate::mode::PersistMode;
use crate::sim::SimulatedPmem;

/// The memory an arena lives in. Every method has the contract of the
/// [`PmemMap`] method of the same name.
#[non_exhaustive]
pub enum Backing {
    /// A mapped file (real or emulated persistent memory).
    Mapped(PmemMap),
    /// The crash simulation (tests only).
    Simulated(SimulatedPmem),
}

impl Backing {
    /// Length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Backing::Mapped(map) => map.len(),
            Backing::Simulated(sim) => sim.len(),
        }
    }

    /// Always false (both backings have at least 64 bytes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file name for messages, `<simulated>` for the simulation.
    pub fn file_name(&self) -> &str {
        match self {
            Backing::Mapped(map) => map.file_name(),
            Backing::Simulated(_) => "<simulated>",
        }
    }

    /// How persist works.
    pub fn persist_mode(&self) -> PersistMode {
        match self {
            Backing::Mapped(map) => map.persist_mode(),
            Backing::Simulated(_) => PersistMode::Simulated,
        }
    }

    /// Copies bytes at `offset` into `buf`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        match self {
            Backing::Mapped(map) => map.read(offset, buf),
            Backing::Simulated(sim) => sim.read(offset, buf),
        }
    }

    /// Copies `data` to `offset` (volatile until persisted).
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        match self {
            Backing::Mapped(map) => map.write(offset, data),
            Backing::Simulated(sim) => sim.write(offset, data),
        }
    }

    /// The 8-byte word at `offset` (a multiple of 8).
    pub fn atomic_u64(&self, offset: u64) -> Result<&AtomicU64> {
        match self {
            Backing::Mapped(map) => map.atomic_u64(offset),
            Backing::Simulated(sim) => sim.atomic_u64(offset),
        }
    }

    /// Makes `len` bytes at `offset` durable.
    pub fn persist(&self, offset: u64, len: u64) -> Result<()> {
        match self {
            Backing::Mapped(map) => map.persist(offset, len),
            Backing::Simulated(sim) => sim.persist(offset, len),
        }
    }

    /// Orders earlier stores and persists before later stores.
    pub fn fence(&self) {
        match self {
            Backing::Mapped(map) => map.fence(),
            Backing::Simulated(sim) => sim.fence(),
        }
    }

    /// The whole backing as words (for run views; see `claim`).
    pub(crate) fn words(&self) -> &[AtomicU64] {
        match self {
            Backing::Mapped(map) => map.words(),
            Backing::Simulated(sim) => sim.words(),
        }
    }

    /// Sets `len` bytes at `offset` to zero (volatile until persisted).
    pub(crate) fn zero(&self, offset: u64, len: u64) -> Result<()> {
        match self {
            Backing::Mapped(map) => crate::words::zero(map.words(), offset, len),
            Backing::Simulated(sim) => sim.zero(offset, len),
        }
    }

    /// Writes `value` to the word at `offset` and persists it: the one
    /// failure-atomic publication step of every ordering in this crate.
    pub(crate) fn publish_u64(&self, offset: u64, value: u64) -> Result<()> {
        self.atomic_u64(offset)?
            .store(value, std::sync::atomic::Ordering::Release);
        self.persist(offset, 8)
    }
}
