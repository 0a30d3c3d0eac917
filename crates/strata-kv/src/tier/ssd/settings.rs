//! [`SsdSettings`], what the engine does with the SSD tier on its own,
//! and [`SsdRebuild`], what the start found on the device. A leaf.

use std::time::Duration;

/// What the engine does with the SSD tier on its own.
#[derive(Debug, Clone)]
pub struct SsdSettings {
    /// How often appended records are made durable (`ssd_flush_interval`).
    pub flush_interval: Duration,
    /// Blocks with less live data than this percentage are defragmented.
    pub defrag_threshold_pct: u8,
    /// How requests read values only the device has.
    pub read_path: crate::fetch::ReadPath,
    /// The store's other users (search's segment files), whose entries
    /// the opening marks live before it finishes the store's recovery.
    pub other_users: strata_ssd::OtherUsers,
}

impl Default for SsdSettings {
    fn default() -> Self {
        Self {
            flush_interval: Duration::from_millis(100),
            defrag_threshold_pct: 50,
            read_path: crate::fetch::ReadPath::Deferred,
            other_users: strata_ssd::OtherUsers::none(),
        }
    }
}

/// What the start found on the SSD (reported in `INFO tiers`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SsdRebuild {
    /// Entries read by the rebuild scan.
    pub entries: u64,
    /// Items restored.
    pub items: u64,
    /// Tombstones kept.
    pub tombstones: u64,
    /// Wall time of the whole rebuild (scan and index).
    pub duration: Duration,
    /// Keys whose records had none reached the device (an adopted
    /// persistent index after a crash; each was created within the flush
    /// window): dropped at the start.
    pub keys_lost: u64,
    /// Keys whose newest record had not reached the device but an older
    /// one had (an adopted persistent index after a crash): served with
    /// that one.
    pub keys_restored: u64,
}
