//! [`TierFault`]: how a failure of a job's spill area (full, or a device
//! error) travels through DataFusion's `std::io` spill interface and is
//! found again by the job's error table. A leaf.

use std::fmt;
use std::io;
use std::path::PathBuf;

use strata_units::human;

/// A failure of the SSD tier, as it travels through DataFusion's
/// `std::io` spill interface (inside an [`io::Error`]); the job's error
/// table finds it again by downcasting.
#[derive(Debug, Clone)]
pub enum TierFault {
    /// The area is full: the job needs more spill space than it was given.
    Full {
        /// The spill directory.
        dir: PathBuf,
        /// The area's capacity.
        capacity: u64,
    },
    /// The device failed (or returned damaged data).
    Device(String),
}

impl fmt::Display for TierFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TierFault::Full { dir, capacity } => write!(
                f,
                "spill space exhausted: the job needs more than the {} spill area under {} \
                 (raise --spill-limit, free space there, or give the job a larger --dram-budget)",
                human(*capacity),
                dir.display()
            ),
            TierFault::Device(what) => write!(f, "SSD tier I/O failed: {what}"),
        }
    }
}

impl std::error::Error for TierFault {}

impl TierFault {
    /// As an `io::Error` (storage-full kind for [`TierFault::Full`]).
    pub fn into_io(self) -> io::Error {
        let kind = match self {
            TierFault::Full { .. } => io::ErrorKind::StorageFull,
            TierFault::Device(_) => io::ErrorKind::Other,
        };
        io::Error::new(kind, self)
    }
}
