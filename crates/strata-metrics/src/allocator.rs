//! What the process's memory allocator holds, as Redis's `INFO memory`
//! reports it (`allocator_allocated`, `allocator_active`,
//! `allocator_resident`, their ratios, `mem_allocator`).
//!
//! The allocator is chosen by the executable (`strata`'s `main.rs` links
//! jemalloc), not by the layers that report, so the executable registers
//! a [`AllocatorProbe`] once at start and `INFO` and the metrics port read
//! it. With no probe (tests, other embedders) there is nothing to report
//! and the readers leave the fields out.

use std::sync::OnceLock;

/// One reading of the allocator's counters, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllocatorStats {
    /// Bytes the program holds in live allocations.
    pub allocated: u64,
    /// Bytes in the allocator's active pages (`allocated` plus the unused
    /// space inside the pages that hold them: fragmentation).
    pub active: u64,
    /// Bytes of the allocator's pages that are resident (active pages,
    /// freed pages not yet returned to the system, its own metadata).
    pub resident: u64,
    /// Bytes the allocator has mapped from the system.
    pub mapped: u64,
    /// Bytes it keeps mapped but returned (not resident): virtual only.
    pub retained: u64,
}

/// The executable's way to read its allocator.
#[derive(Debug, Clone, Copy)]
pub struct AllocatorProbe {
    /// The allocator's name and version as Redis's `mem_allocator` gives
    /// it (`jemalloc-5.3.0`).
    pub name: &'static str,
    /// Reads the counters now (refreshing the allocator's own snapshot);
    /// `None` when the allocator cannot say.
    pub read: fn() -> Option<AllocatorStats>,
}

static PROBE: OnceLock<AllocatorProbe> = OnceLock::new();

/// Registers the process's allocator probe; the first registration wins
/// (returns false for any later one).
pub fn register_allocator(probe: AllocatorProbe) -> bool {
    PROBE.set(probe).is_ok()
}

/// The registered allocator's name, if any.
pub fn allocator_name() -> Option<&'static str> {
    PROBE.get().map(|p| p.name)
}

/// The registered allocator's counters now, if any.
pub fn allocator_stats() -> Option<AllocatorStats> {
    (PROBE.get()?.read)()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed() -> Option<AllocatorStats> {
        Some(AllocatorStats {
            allocated: 10,
            active: 12,
            resident: 20,
            mapped: 30,
            retained: 5,
        })
    }

    #[test]
    fn the_first_probe_registered_answers() {
        let first = AllocatorProbe {
            name: "fixed-1.0",
            read: fixed,
        };
        assert!(register_allocator(first));
        let second = AllocatorProbe {
            name: "other",
            read: || None,
        };
        assert!(!register_allocator(second));
        assert_eq!(allocator_name(), Some("fixed-1.0"));
        assert_eq!(allocator_stats().map(|s| s.active), Some(12));
    }
}
