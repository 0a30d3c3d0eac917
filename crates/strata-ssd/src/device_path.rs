//! Opening `ssd_path`: a directory (the tier is one file in it) or a
//! block-device file (the whole device), with direct or buffered I/O as
//! the caller chooses ([`IoMode`]).

use std::fs;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::Arc;

pub use strata_device::IoMode;
use strata_device::{BlockDevice, BlockFile, BLOCK_ALIGN};

use crate::error::SsdError;

/// Name of the tier's file inside an `ssd_path` directory.
pub const DATA_FILE_NAME: &str = "strata-ssd.blocks";

/// Opens the tier's device at `path`:
/// - a directory (created if missing): the file [`DATA_FILE_NAME`] in it,
///   created with `capacity` bytes (rounded down to 4096) or reopened if it
///   has exactly that size;
/// - a block-device file or an existing regular file: the whole of it
///   (`capacity` is ignored).
pub fn open_ssd_path(
    path: &Path,
    capacity: u64,
    mode: IoMode,
) -> Result<Arc<dyn BlockDevice>, SsdError> {
    let io = |e: io::Error| SsdError::io(format!("opening {}", path.display()), e);
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(path).map_err(io)?;
            fs::metadata(path).map_err(io)?
        }
        Err(e) => return Err(io(e)),
    };
    let file_type = metadata.file_type();
    let device: Arc<dyn BlockDevice> = if file_type.is_dir() {
        let file = path.join(DATA_FILE_NAME);
        let capacity = capacity - capacity % BLOCK_ALIGN as u64;
        Arc::new(BlockFile::create(&file, capacity, mode).map_err(io)?)
    } else if file_type.is_block_device() || file_type.is_file() {
        Arc::new(BlockFile::open(path, mode).map_err(io)?)
    } else {
        return Err(SsdError::BadDevice(format!(
            "{} is neither a directory, a block device nor a regular file",
            path.display()
        )));
    };
    Ok(device)
}
