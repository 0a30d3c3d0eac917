//! The SSD tier of a job: one [`SpillArea`], a write-block store
//! (`strata-ssd`'s [`SsdStore`]) on an `O_DIRECT` file under the spill
//! directory, holding both operator spill files ([`spill_file`]) and the
//! cached dataset's blocks on SSD ([`crate::cache`]).
//!
//! Reused from the key-value engine's SSD tier: the block store (appends
//! assembled in a DRAM write block and written whole, 4 MiB at a time,
//! with aligned `O_DIRECT` I/O; CRC-checked entries; blocks freed and
//! reused once nothing in them is live), its pool of reader threads
//! (reads run off the query's threads, several in flight), and
//! `strata-device`'s [`BlockFile`] (the file's blocks are reserved
//! with `fallocate` when it is created, so a filesystem filling up later
//! cannot fail a spill half-way). Nothing here is durable: the file is
//! removed when the job ends, and a job's crash leaves only a file named
//! after its process id, which the next job in that directory removes.
//!
//! - [`area`]: [`SpillArea`], creating the file and appending, reading
//!   and releasing extents.
//! - [`fault`]: [`TierFault`], the tier's failures as carried through
//!   DataFusion's `std::io` spill interface.
//! - [`spill_file`]: DataFusion's `TempFileFactory` on the area.
//! - [`chunks`]: a stream of an extent list read back in order, a few
//!   reads ahead.

pub mod area;
pub mod chunks;
pub mod fault;
pub mod spill_file;

pub use area::{Extent, SpillArea, SpillIo, TierCounters};
pub use fault::TierFault;
pub use spill_file::SpillFiles;
pub use strata_device::BlockFile;
pub use strata_ssd::SsdStore;
