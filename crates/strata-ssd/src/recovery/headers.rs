//! Opening a device: its header (formatting a blank device), then every
//! block header, read in parallel by a few threads, each a range of blocks.

use std::hash::{BuildHasher, RandomState};
use std::time::SystemTime;

use strata_device::{AlignedBuf, BlockDevice, BLOCK_ALIGN};

use crate::config::IndexHome;
use crate::error::SsdError;
use crate::format::block_header::BlockHeader;
use crate::format::device_header::{DeviceHeader, DEVICE_VERSION};
use crate::store::geometry::Geometry;

/// Validates the device header against `geometry` and `home`, or formats
/// a blank device (first block all zeros) for them. Returns the header
/// (its nonce and version) and whether the device was formatted now.
pub(crate) fn device_header(
    device: &dyn BlockDevice,
    geometry: &Geometry,
    home: IndexHome,
) -> Result<(DeviceHeader, bool), SsdError> {
    let mut page = AlignedBuf::zeroed(BLOCK_ALIGN);
    device
        .read_at(&mut page, 0)
        .map_err(|e| SsdError::io("reading the device header", e))?;
    let wanted = DeviceHeader {
        version: DEVICE_VERSION,
        block_size: geometry.block_size as u32,
        block_count: geometry.block_count,
        index_home: home.code(),
        nonce: new_nonce(),
    };
    match DeviceHeader::decode(&page).map_err(SsdError::BadDevice)? {
        Some(found) if found.block_size != wanted.block_size => Err(SsdError::BadDevice(format!(
            "the device was formatted with {}-byte blocks but {} are configured",
            found.block_size, wanted.block_size
        ))),
        Some(found) if found.block_count != wanted.block_count => {
            Err(SsdError::BadDevice(format!(
                "the device was formatted with {} blocks but now holds {} (its size changed)",
                found.block_count, wanted.block_count
            )))
        }
        Some(found) if found.index_home != wanted.index_home => {
            let made = IndexHome::from_code(found.index_home).map_or_else(
                || format!("an unknown index home ({})", found.index_home),
                |h| h.to_string(),
            );
            Err(SsdError::BadDevice(format!(
                "the device was formatted for {made}, not {home}: its entries cannot be \
                 indexed that way (start with the placement it was made with, or use a new device)"
            )))
        }
        Some(found) => Ok((found, false)),
        None => {
            wanted.encode(&mut page);
            device
                .write_at(&page, 0)
                .and_then(|()| device.sync())
                .map_err(|e| SsdError::io("formatting the device", e))?;
            tracing::info!(
                blocks = wanted.block_count,
                block_size = wanted.block_size,
                "SSD tier device formatted"
            );
            Ok((wanted, true))
        }
    }
}

/// A random 64-bit number tying blocks to this format: the standard
/// library's randomly keyed hasher over the time and process id.
fn new_nonce() -> u64 {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one((now, std::process::id()))
}

/// The header of every write block that is not blank, as `(block,
/// header)` in block order, read by `threads` threads.
pub(crate) fn block_headers(
    device: &dyn BlockDevice,
    geometry: &Geometry,
    nonce: u64,
    threads: usize,
) -> Result<Vec<(u32, BlockHeader)>, SsdError> {
    let blocks = geometry.block_count;
    let per_thread = (blocks - 1).div_ceil(threads.max(1) as u32).max(1);
    let ranges: Vec<(u32, u32)> = (1..blocks)
        .step_by(per_thread as usize)
        .map(|first| (first, (first + per_thread).min(blocks)))
        .collect();
    let results: Vec<Result<Vec<(u32, BlockHeader)>, SsdError>> = std::thread::scope(|scope| {
        let readers: Vec<_> = ranges
            .iter()
            .map(|&(first, end)| {
                scope.spawn(move || read_range(device, geometry, nonce, first, end))
            })
            .collect();
        readers
            .into_iter()
            .map(|reader| reader.join().unwrap_or_else(|_| Err(reader_died())))
            .collect()
    });
    let mut found = Vec::new();
    for result in results {
        found.extend(result?);
    }
    Ok(found)
}

fn read_range(
    device: &dyn BlockDevice,
    geometry: &Geometry,
    nonce: u64,
    first: u32,
    end: u32,
) -> Result<Vec<(u32, BlockHeader)>, SsdError> {
    let mut page = AlignedBuf::zeroed(BLOCK_ALIGN);
    let mut found = Vec::new();
    for block in first..end {
        device
            .read_at(&mut page, geometry.offset(block))
            .map_err(|e| SsdError::io(format!("reading the header of block {block}"), e))?;
        match BlockHeader::decode(nonce, &page) {
            BlockHeader::Blank => {}
            header => found.push((block, header)),
        }
    }
    Ok(found)
}

/// A rebuild thread panicked.
pub(crate) fn reader_died() -> SsdError {
    SsdError::io(
        "rebuilding",
        std::io::Error::other("a rebuild reader thread panicked"),
    )
}
