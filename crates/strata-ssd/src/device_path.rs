//! Opening `ssd_path`: a directory (the tier is one file in it) or a
//! block-device file (the whole device), with direct or buffered I/O as
//! the caller chooses ([`IoMode`]).

use std::fs;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::Arc;

use strata_device::{BlockDevice, BufferedBlockFile, DirectBlockFile, BLOCK_ALIGN};

use crate::error::SsdError;

/// Name of the tier's file inside an `ssd_path` directory.
pub const DATA_FILE_NAME: &str = "strata-ssd.blocks";

/// How the tier's file is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoMode {
    /// `O_DIRECT`: the engine alone decides what stays in DRAM. Refused
    /// (with an error saying so) where the filesystem does not support it.
    #[default]
    Direct,
    /// Through the page cache; for filesystems that refuse `O_DIRECT`. The
    /// engine should report the tier as not direct.
    Buffered,
}

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
        match mode {
            IoMode::Direct => Arc::new(DirectBlockFile::create(&file, capacity).map_err(io)?),
            IoMode::Buffered => Arc::new(BufferedBlockFile::create(&file, capacity).map_err(io)?),
        }
    } else if file_type.is_block_device() || file_type.is_file() {
        match mode {
            IoMode::Direct => Arc::new(DirectBlockFile::open(path).map_err(io)?),
            IoMode::Buffered => Arc::new(BufferedBlockFile::open(path).map_err(io)?),
        }
    } else {
        return Err(SsdError::BadDevice(format!(
            "{} is neither a directory, a block device nor a regular file",
            path.display()
        )));
    };
    Ok(device)
}
