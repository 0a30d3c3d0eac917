//! How writes become durable: the mode chosen at open ([`PersistMode`]) and
//! the caller's policy for choosing it ([`PersistPolicy`]).

use std::fmt;
use std::str::FromStr;

/// The cache-line write-back instruction used on real persistent memory,
/// best first. Each flushed line is followed, once per persist, by `sfence`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlushInstruction {
    /// `clwb`: writes the line back and may keep it cached.
    Clwb,
    /// `clflushopt`: writes back and evicts, weakly ordered.
    Clflushopt,
    /// `clflush`: writes back and evicts, serialized (slowest).
    Clflush,
}

impl FlushInstruction {
    /// The instruction's mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            FlushInstruction::Clwb => "clwb",
            FlushInstruction::Clflushopt => "clflushopt",
            FlushInstruction::Clflush => "clflush",
        }
    }
}

/// How `persist` makes a written range durable; fixed when the arena opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PersistMode {
    /// Real persistent memory: the file is on a DAX filesystem, mapped with
    /// `MAP_SHARED_VALIDATE | MAP_SYNC`; persist flushes the covering cache
    /// lines with `flush` and fences with `sfence` (no system call).
    Dax {
        /// The write-back instruction this CPU offers.
        flush: FlushInstruction,
    },
    /// Emulated persistent memory (tmpfs, a filesystem without DAX, or
    /// forced): the file is mapped `MAP_SHARED` and persist is
    /// `msync(MS_SYNC)` of the covering pages, one system call each.
    Emulated,
    /// The in-memory crash simulation used by tests
    /// ([`SimulatedPmem`](crate::SimulatedPmem)); nothing is durable.
    Simulated,
}

impl PersistMode {
    /// True unless this is real persistent memory.
    pub fn is_emulated(self) -> bool {
        !matches!(self, PersistMode::Dax { .. })
    }
}

impl fmt::Display for PersistMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PersistMode::Dax { flush } => write!(f, "dax ({} + sfence)", flush.name()),
            PersistMode::Emulated => f.write_str("emulated (msync)"),
            PersistMode::Simulated => f.write_str("simulated (test only, not durable)"),
        }
    }
}

/// What the caller accepts when opening or creating a mapped arena.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PersistPolicy {
    /// Real persistent memory when the file allows `MAP_SYNC`, otherwise
    /// emulation (logged as a warning and reported in stats).
    #[default]
    Auto,
    /// Always emulate with `msync`, even on DAX (for comparisons, or to
    /// avoid relying on the flush path).
    ForceEmulated,
    /// Refuse to open unless the file is real persistent memory:
    /// [`PmemError::DaxUnavailable`](crate::PmemError::DaxUnavailable).
    RequireDax,
}

impl FromStr for PersistPolicy {
    type Err = String;

    /// Parses `auto`, `emulated` or `dax` (configuration files and flags).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(PersistPolicy::Auto),
            "emulated" => Ok(PersistPolicy::ForceEmulated),
            "dax" => Ok(PersistPolicy::RequireDax),
            other => Err(format!(
                "unknown persistent memory policy {other:?} (expected auto, emulated or dax)"
            )),
        }
    }
}
