//! `BlockDevice::read_batch` against every block device: the same bytes
//! and the same errors as one `read_at` per request, for batches larger
//! than a ring, with bad requests mixed in; on the real file through
//! io_uring (where this kernel allows it) in both I/O modes.

use std::io::{self, ErrorKind};
use std::sync::Arc;

use crate::block_files;

use block_files::{file, files_cut_short, fill, same_error, BLOCKS};
use strata_device::{
    uring_available, AlignedBuf, BlockDevice, FaultyBlockDevice, IoMode, MemBlockDevice, ReadReq,
    BLOCK_ALIGN,
};

/// 400 reads (more than one ring's worth) of scattered blocks, some two
/// blocks long, then three bad ones, each checked against `read_at`.
fn check(device: &dyn BlockDevice) {
    fill(device);
    let spans: Vec<(usize, usize)> = (0..400)
        .map(|k| ((k * 331) % (BLOCKS - 2), 1 + k % 2))
        .collect();
    let mut bufs: Vec<AlignedBuf> = spans
        .iter()
        .map(|&(_, n)| AlignedBuf::zeroed(n * BLOCK_ALIGN))
        .collect();
    let mut misaligned = AlignedBuf::zeroed(2 * BLOCK_ALIGN);
    let mut past_end = AlignedBuf::zeroed(2 * BLOCK_ALIGN);
    let mut short = AlignedBuf::zeroed(BLOCK_ALIGN);
    let mut reqs: Vec<ReadReq<'_>> = bufs
        .iter_mut()
        .zip(&spans)
        .map(|(buf, &(b, _))| ReadReq::new(buf, (b * BLOCK_ALIGN) as u64))
        .collect();
    reqs.push(ReadReq::new(&mut misaligned[..BLOCK_ALIGN], 512));
    reqs.push(ReadReq::new(
        &mut past_end,
        ((BLOCKS - 1) * BLOCK_ALIGN) as u64,
    ));
    reqs.push(ReadReq::new(&mut short[..100], 0));
    device.read_batch(&mut reqs);
    let results: Vec<io::Result<()>> = reqs.into_iter().map(|r| r.result).collect();
    for (k, (&(b, n), buf)) in spans.iter().zip(&bufs).enumerate() {
        assert!(results[k].is_ok(), "read {k}: {:?}", results[k]);
        let mut alone = AlignedBuf::zeroed(n * BLOCK_ALIGN);
        device
            .read_at(&mut alone, (b * BLOCK_ALIGN) as u64)
            .unwrap();
        assert!(buf[..] == alone[..], "read {k} of block {b}");
        assert_eq!(buf[0], (b * 7) as u8);
    }
    for (k, offset, len) in [
        (400, 512, BLOCK_ALIGN),
        (401, (BLOCKS - 1) * BLOCK_ALIGN, 2 * BLOCK_ALIGN),
        (402, 0, 100),
    ] {
        let err = results[k].as_ref().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        let mut buf = AlignedBuf::zeroed(2 * BLOCK_ALIGN);
        let alone = device.read_at(&mut buf[..len], offset as u64).unwrap_err();
        same_error(err, &alone);
    }
}

#[test]
fn direct_file_batches_read_as_read_at_does() {
    eprintln!("io_uring: {:?}", uring_available());
    if let Some((_dir, device)) = file(IoMode::Direct) {
        check(&device);
    }
}

#[test]
fn buffered_file_batches_read_as_read_at_does() {
    let (_dir, device) = file(IoMode::Buffered).unwrap();
    check(&device);
}

#[test]
fn memory_and_faulty_devices_batch_by_read_at() {
    let mem = MemBlockDevice::new(BLOCKS * BLOCK_ALIGN);
    check(&mem);
    check(&FaultyBlockDevice::new(Arc::new(mem)));
}

/// A file cut short under the device: the batch's short reads end in the
/// same `UnexpectedEof` as `read_at`'s, and whole reads still succeed.
#[test]
fn short_reads_fail_as_read_at_does() {
    for (_dir, device) in files_cut_short(10) {
        let mut bufs: Vec<AlignedBuf> = (0..3)
            .map(|_| AlignedBuf::zeroed(2 * BLOCK_ALIGN))
            .collect();
        let offsets = [0, 9 * BLOCK_ALIGN, 20 * BLOCK_ALIGN];
        let mut reqs: Vec<ReadReq<'_>> = bufs
            .iter_mut()
            .zip(offsets)
            .map(|(buf, at)| ReadReq::new(buf, at as u64))
            .collect();
        device.read_batch(&mut reqs);
        let results: Vec<io::Result<()>> = reqs.into_iter().map(|r| r.result).collect();
        assert!(results[0].is_ok());
        assert_eq!(bufs[0][BLOCK_ALIGN], 7);
        for (k, at) in [(1, offsets[1]), (2, offsets[2])] {
            let err = results[k].as_ref().unwrap_err();
            let mut buf = AlignedBuf::zeroed(2 * BLOCK_ALIGN);
            let alone = device.read_at(&mut buf, at as u64).unwrap_err();
            assert_eq!(alone.kind(), ErrorKind::UnexpectedEof);
            same_error(err, &alone);
        }
    }
}
