//! Block files for the read tests (`read_batch`, `uring_reader`): a file
//! of [`BLOCKS`] blocks with known bytes in either I/O mode, cut short
//! under the device, and the check that two errors are the same.

#![allow(dead_code)]

use std::io::{self, ErrorKind};

use strata_device::{AlignedBuf, BlockDevice, BlockFile, IoMode, BLOCK_ALIGN};

/// Blocks of each test file.
pub const BLOCKS: usize = 600;

/// The byte at `i` of block `b`.
pub fn byte(b: usize, i: usize) -> u8 {
    (b * 7 + i / 64) as u8
}

/// Fills every block with its [`byte`]s.
pub fn fill(device: &dyn BlockDevice) {
    let mut block = AlignedBuf::zeroed(BLOCK_ALIGN);
    for b in 0..BLOCKS {
        block
            .iter_mut()
            .enumerate()
            .for_each(|(i, x)| *x = byte(b, i));
        device.write_at(&block, (b * BLOCK_ALIGN) as u64).unwrap();
    }
    device.sync().unwrap();
}

/// A file of [`BLOCKS`] blocks in a temporary directory, or `None`
/// (noted) where the filesystem refuses `mode`.
pub fn file(mode: IoMode) -> Option<(tempfile::TempDir, BlockFile)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blocks");
    match BlockFile::create(&path, (BLOCKS * BLOCK_ALIGN) as u64, mode) {
        Ok(device) => Some((dir, device)),
        Err(e) if e.kind() == ErrorKind::Unsupported => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// A [`fill`]ed file in each I/O mode the filesystem allows, each cut
/// to its first `blocks` blocks under the open device.
pub fn files_cut_short(blocks: usize) -> Vec<(tempfile::TempDir, BlockFile)> {
    let mut files = Vec::new();
    for mode in [IoMode::Direct, IoMode::Buffered] {
        let Some((dir, device)) = file(mode) else {
            continue;
        };
        fill(&device);
        let cut = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join("blocks"))
            .unwrap();
        cut.set_len((blocks * BLOCK_ALIGN) as u64).unwrap();
        files.push((dir, device));
    }
    files
}

/// Asserts that `a` and `b` are the same error: kind, code and message.
pub fn same_error(a: &io::Error, b: &io::Error) {
    assert_eq!(a.kind(), b.kind());
    assert_eq!(a.raw_os_error(), b.raw_os_error());
    assert_eq!(a.to_string(), b.to_string());
}
