//! What `strata lab oltp` runs: the concurrency controls (with DBx1000's
//! names for them), the seed's log devices, its abort ratios, and the
//! tables' titles.

/// (column, `--cc`, DBx1000's CC_ALG).
pub(super) const CCS: [(&str, &str, &str); 2] =
    [("NO_WAIT", "no_wait", "NO_WAIT"), ("Silo", "silo", "SILO")];

/// (row, `--log`): the seed's log devices.
pub(super) const LOGS: [(&str, &str); 4] = [
    ("none", "none"),
    ("SSD", "file"),
    ("RAM disk", "ramdisk"),
    ("pmem", "pmem"),
];

/// The seed's abort ratios (rows as [`LOGS`], columns NO_WAIT, Silo).
pub(super) const SEED_ABORTS: [[f64; 2]; 4] = [
    [0.00929, 0.03085],
    [0.00050, 1.46235],
    [0.00429, 0.01273],
    [0.00738, 0.01209],
];

/// Title of the throughput table.
pub const THROUGHPUT: &str = "TPC-C throughput per log device";
/// Title of the abort-ratio table.
pub const ABORTS: &str = "Abort ratio (aborts / commits) per log device";
