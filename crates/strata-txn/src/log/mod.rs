//! Durability: value logging of every committed write set to one log
//! stream per worker (parallel logging, as in SiloR and Taurus), on a log
//! device chosen by name, with group commit per epoch.
//!
//! - [`LogDevice`]: `none`, `file` (fdatasync, or `O_DIRECT | O_DSYNC`),
//!   `ramdisk` (a file on tmpfs: the seed's emulated NVM), `pmem`
//!   (persistent-memory files from `strata-pmem`, cache-line flushes on
//!   DAX, `msync` emulation elsewhere), or any [`LogRoot`] (tests:
//!   [`MemRoot`], which cuts the power and injects faults).
//! - `root`: where streams and checkpoints live ([`LogRoot`], [`FsRoot`],
//!   [`MemRoot`]); `pmem_dir`: the persistent-memory `Directory`.
//! - `record`: the record bodies: a transaction's TID and its writes
//!   (inserted rows whole, updated columns only, deletes), and epoch
//!   markers.
//! - `streams`: [`LogSet`]: the streams (each a `strata-log`
//!   `CommandLog` in on-demand mode), closing epochs, the durable epoch.
//!
//! Group commit: a worker appends its transaction's record before the
//! writes become visible. When the epoch thread sees that no transaction
//! can commit in epoch `e` any more, it appends a marker for `e` to every
//! stream and syncs them all; the durable (persistent) epoch becomes `e`,
//! the minimum over the streams, and every commit of epoch `e` or before
//! is acknowledged. Recovery replays only transactions of epochs up to
//! the smallest epoch every stream has a durable marker for.
//!
//! A full device stalls its stream (the command log retries the write):
//! the epoch stays open, commits are refused with `LogFull` and waits for
//! durability answer so, until space is freed and the epochs close again.

pub(crate) mod pmem_dir;
pub(crate) mod record;
mod root;
mod stream_wait;
pub(crate) mod streams;

pub use pmem_dir::PmemDirectory;
pub use root::{FsRoot, LogRoot, MemRoot, PmemRoot};
pub use streams::LogStats;

use std::path::PathBuf;
use std::sync::Arc;

use strata_device::SyncMode;

use crate::error::TxnError;

/// Where the log streams and checkpoints go.
#[derive(Clone, Default)]
pub enum LogDevice {
    /// No logging: commits are never durable.
    #[default]
    None,
    /// Files under `path` on a disk, made durable with `fdatasync` or
    /// written with `O_DIRECT | O_DSYNC` (`direct`).
    File {
        /// The directory.
        path: PathBuf,
        /// How writes are made durable.
        sync: SyncMode,
    },
    /// Files under `path` on tmpfs (`/dev/shm`): DRAM standing in for
    /// non-volatile memory, as the seed's RAM disk; survives a killed
    /// process, not a power cut.
    Ramdisk {
        /// The directory (on tmpfs).
        path: PathBuf,
    },
    /// Persistent-memory files under `path` (`strata-pmem`): real
    /// persistent memory on a DAX mount, emulated with `msync` elsewhere.
    Pmem {
        /// The directory.
        path: PathBuf,
    },
    /// Any root (tests).
    Root(Arc<dyn LogRoot>),
}

impl std::fmt::Debug for LogDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl LogDevice {
    /// A device from its name (`none`, `file`, `file-direct`, `ramdisk`,
    /// `pmem`) and path.
    pub fn from_name(name: &str, path: Option<PathBuf>) -> Result<LogDevice, TxnError> {
        let need =
            |path: Option<PathBuf>, default: &str| path.unwrap_or_else(|| PathBuf::from(default));
        Ok(match name {
            "none" => LogDevice::None,
            "file" => LogDevice::File {
                path: need(path, "./strata-txn-log"),
                sync: SyncMode::Fdatasync,
            },
            "file-direct" => LogDevice::File {
                path: need(path, "./strata-txn-log"),
                sync: SyncMode::DirectDsync,
            },
            "ramdisk" => LogDevice::Ramdisk {
                path: need(path, "/dev/shm/strata-txn-log"),
            },
            "pmem" => LogDevice::Pmem {
                path: need(path, "/dev/shm/strata-txn-pmem"),
            },
            other => {
                return Err(TxnError::storage(format!(
                "unknown log device {other:?}: expected none, file, file-direct, ramdisk or pmem"
            )))
            }
        })
    }

    /// The device's name and place, for reports.
    pub fn describe(&self) -> String {
        match self {
            LogDevice::None => "none".into(),
            LogDevice::File { path, sync } => format!("file ({sync}) at {}", path.display()),
            LogDevice::Ramdisk { path } => format!("ramdisk at {}", path.display()),
            LogDevice::Pmem { path } => format!("pmem at {}", path.display()),
            LogDevice::Root(root) => root.describe(),
        }
    }

    /// The root for this device (`None` for no logging).
    pub(crate) fn root(&self) -> Result<Option<Arc<dyn LogRoot>>, TxnError> {
        let io = |e: std::io::Error| {
            TxnError::storage(format!(
                "cannot open the log device {}: {e}",
                self.describe()
            ))
        };
        Ok(match self {
            LogDevice::None => None,
            LogDevice::File { path, sync } => {
                Some(Arc::new(FsRoot::new(path.clone(), *sync).map_err(io)?))
            }
            LogDevice::Ramdisk { path } => Some(Arc::new(
                FsRoot::new(path.clone(), SyncMode::Fdatasync).map_err(io)?,
            )),
            LogDevice::Pmem { path } => Some(Arc::new(PmemRoot::new(path.clone()).map_err(io)?)),
            LogDevice::Root(root) => Some(Arc::clone(root)),
        })
    }
}
