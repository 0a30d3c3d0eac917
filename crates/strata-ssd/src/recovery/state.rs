//! The state of the store during its rebuild ([`Recovery`]): the device,
//! its geometry, the block table as the headers describe it, the blocks
//! found holding entries and the free ones. A leaf: `open` (in
//! `recovery/mod.rs`) builds it, and the scan, split, tally and since
//! modules add its methods.

use std::sync::Arc;
use std::time::Instant;

use strata_device::BlockDevice;

use crate::config::SsdConfig;
use crate::error::SsdError;
use crate::format::block_header::Written;
use crate::format::device_header::DeviceHeader;
use crate::stats::RebuildStats;
use crate::store::geometry::Geometry;
use crate::store::table::BlockTable;

/// A block found holding entries.
pub(super) struct Found {
    pub(super) block: u32,
    pub(super) header: Written,
    /// Where a torn tail was cut, and the entries before it.
    pub(super) cut: Option<(usize, u32)>,
}

/// The store during its rebuild: scan, mark live entries, finish.
pub struct Recovery {
    pub(super) device: Arc<dyn BlockDevice>,
    pub(super) config: SsdConfig,
    pub(super) geometry: Geometry,
    pub(super) nonce: u64,
    /// The device header as found (or as just formatted).
    pub(super) device_header: DeviceHeader,
    pub(super) table: BlockTable,
    /// Blocks with entries, in ascending sequence.
    pub(super) found: Vec<Found>,
    /// Blank or freed blocks.
    pub(super) free: Vec<u32>,
    pub(super) frontier: u64,
    pub(super) next_seq: u64,
    pub(super) scanned: bool,
    pub(super) stats: RebuildStats,
    pub(super) started: Instant,
}

pub(super) fn corrupt(block: u32, offset: u32, reason: String) -> SsdError {
    SsdError::Corrupt {
        block,
        offset,
        reason,
    }
}
