//! `UringReader` (`uring_reader`) on the real file in both I/O modes:
//! every read comes back with the bytes and the error `read_at` gives,
//! each as soon as its own read is done, with at most the depth pending
//! (also while another thread keeps waking the reader);
//! buffers inside the items are filled where the items sit; dropping the
//! reader with reads in flight waits for them; devices without a file
//! under them have no reader.

use std::io::{self, ErrorKind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::block_files;

use block_files::{byte, file, files_cut_short, fill, same_error, BLOCKS};
use strata_device::{
    uring_available, uring_reader, AlignedBuf, BlockDevice, BlockFile, FaultyBlockDevice, IoMode,
    MemBlockDevice, ReadTarget, UringReader, BLOCK_ALIGN,
};

/// The reader of `device`, or `None` (noted) where io_uring is refused.
fn reader<T: ReadTarget>(device: &BlockFile, depth: usize) -> Option<UringReader<T>> {
    if let Err(why) = uring_available() {
        eprintln!("skipped: {why}");
        return None;
    }
    Some(
        uring_reader(device, depth)
            .expect("a file has a reader")
            .unwrap(),
    )
}

/// A read into a heap buffer of `len` bytes at `offset` (none when
/// `offset` is `None`), numbered.
struct Job {
    id: usize,
    buf: AlignedBuf,
    len: usize,
    offset: Option<u64>,
}

impl ReadTarget for Job {
    fn target(&mut self) -> Option<(&mut [u8], u64)> {
        Some((&mut self.buf[..self.len], self.offset?))
    }
}

fn job(id: usize, blocks: usize, offset: Option<u64>) -> Job {
    Job {
        id,
        buf: AlignedBuf::zeroed(blocks * BLOCK_ALIGN),
        len: blocks * BLOCK_ALIGN,
        offset,
    }
}

/// 1,000 reads of scattered blocks (some two long), fed as room appears
/// (never more than the depth pending), with reads needing nothing and bad
/// ones mixed in: each comes back once, with its bytes or `read_at`'s
/// error.
fn reads_come_back_whole(mode: IoMode) {
    let Some((_dir, device)) = file(mode) else {
        return;
    };
    fill(&device);
    let Some(mut reader) = reader::<Job>(&device, 16) else {
        return;
    };
    // Another thread wakes the reader all along: waits end early, and
    // every read still comes back once.
    let waker = reader.waker().expect("an eventfd");
    let stop = Arc::new(AtomicBool::new(false));
    let waking = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                waker.wake();
                std::thread::yield_now();
            }
        })
    };
    let total = 1000;
    let make = |id: usize| match id % 100 {
        97 => job(id, 1, None),
        98 => job(id, 2, Some(((BLOCKS - 1) * BLOCK_ALIGN) as u64)), // past the end
        99 => job(id, 1, Some(512)),                                 // misaligned
        _ => job(
            id,
            1 + id % 2,
            Some((((id * 331) % (BLOCKS - 2)) * BLOCK_ALIGN) as u64),
        ),
    };
    let mut next = 0;
    let mut seen = vec![false; total];
    let mut done = 0;
    while done < total {
        while next < total && reader.has_room() {
            assert!(reader.submit(make(next)).is_ok());
            next += 1;
        }
        assert!(reader.pending() <= 16);
        assert!(!reader.has_room() || next == total);
        if next < total {
            assert!(reader.submit(make(next)).is_err(), "full");
        }
        reader.complete(|job, read| {
            assert!(!seen[job.id], "job {} came back twice", job.id);
            seen[job.id] = true;
            done += 1;
            let mut alone = AlignedBuf::zeroed(job.len);
            match job.offset {
                None => {
                    read.unwrap();
                    assert!(job.buf.iter().all(|&x| x == 0), "no read, no bytes");
                }
                Some(offset) => match device.read_at(&mut alone, offset) {
                    Ok(()) => {
                        read.unwrap();
                        assert!(job.buf[..] == alone[..], "job {}", job.id);
                        let b = offset as usize / BLOCK_ALIGN;
                        assert_eq!(job.buf[BLOCK_ALIGN - 1], byte(b, BLOCK_ALIGN - 1));
                    }
                    Err(alone) => {
                        assert_eq!(alone.kind(), ErrorKind::InvalidInput);
                        same_error(&read.unwrap_err(), &alone);
                    }
                },
            }
        });
    }
    stop.store(true, Ordering::Relaxed);
    waking.join().unwrap();
    assert!(seen.iter().all(|&s| s));
    assert_eq!(reader.pending(), 0);
}

#[test]
fn direct_file_reads_come_back_whole() {
    reads_come_back_whole(IoMode::Direct);
}

#[test]
fn buffered_file_reads_come_back_whole() {
    reads_come_back_whole(IoMode::Buffered);
}

/// One read alone comes back from one `complete`: nothing waits for a
/// batch to fill.
#[test]
fn a_lone_read_comes_back_at_once() {
    let Some((_dir, device)) = file(IoMode::Buffered) else {
        return;
    };
    fill(&device);
    let Some(mut reader) = reader::<Job>(&device, 64) else {
        return;
    };
    for b in [3, 200, 17] {
        assert!(reader
            .submit(job(b, 1, Some((b * BLOCK_ALIGN) as u64)))
            .is_ok());
        let mut back = Vec::new();
        while back.is_empty() {
            reader.complete(|job, read| back.push((job, read)));
        }
        let (job, read) = back.pop().unwrap();
        read.unwrap();
        assert_eq!(job.buf[0], byte(b, 0));
        assert_eq!(reader.pending(), 0);
    }
    // Nothing pending: returns at once with nothing.
    reader.complete(|_, _| panic!("nothing was submitted"));
}

/// A buffer inside the item itself (not behind a pointer): filled where
/// the item sits in the reader, and handed back with it.
#[repr(align(4096))]
struct Inline {
    bytes: [u8; BLOCK_ALIGN],
    block: usize,
}

impl ReadTarget for Inline {
    fn target(&mut self) -> Option<(&mut [u8], u64)> {
        Some((&mut self.bytes[..], (self.block * BLOCK_ALIGN) as u64))
    }
}

#[test]
fn buffers_inside_items_are_filled_in_place() {
    let Some((_dir, device)) = file(IoMode::Buffered) else {
        return;
    };
    fill(&device);
    let Some(mut boxes) = reader::<Box<Inline>>(&device, 8) else {
        return;
    };
    let mut inline = reader::<Inline>(&device, 8).unwrap();
    for b in 0..8 {
        let item = Inline {
            bytes: [0; BLOCK_ALIGN],
            block: b * 30,
        };
        assert!(inline.submit(item).is_ok());
        let boxed = Box::new(Inline {
            bytes: [0; BLOCK_ALIGN],
            block: b * 31,
        });
        assert!(boxes.submit(boxed).is_ok());
    }
    let mut back = 0;
    while inline.pending() + boxes.pending() > 0 {
        let mut check = |item: &Inline, read: io::Result<()>| {
            read.unwrap();
            let expected: Vec<u8> = (0..BLOCK_ALIGN).map(|i| byte(item.block, i)).collect();
            assert!(item.bytes[..] == expected[..], "block {}", item.block);
            back += 1;
        };
        inline.complete(|item, read| check(&item, read));
        boxes.complete(|item, read| check(&item, read));
    }
    assert_eq!(back, 16);
}

/// Records, when dropped, whether its buffer had been filled.
struct Watched {
    buf: AlignedBuf,
    block: usize,
    filled: Arc<Mutex<Vec<bool>>>,
}

impl ReadTarget for Watched {
    fn target(&mut self) -> Option<(&mut [u8], u64)> {
        Some((&mut self.buf[..], (self.block * BLOCK_ALIGN) as u64))
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        let whole = (0..BLOCK_ALIGN).all(|i| self.buf[i] == byte(self.block, i));
        self.filled.lock().unwrap().push(whole);
    }
}

/// Dropped with reads in flight, the reader waits for them: every item
/// it drops has its bytes (none is freed while the kernel writes it).
#[test]
fn dropping_the_reader_waits_for_reads_in_flight() {
    let Some((_dir, device)) = file(IoMode::Direct).or_else(|| file(IoMode::Buffered)) else {
        return;
    };
    fill(&device);
    let filled = Arc::new(Mutex::new(Vec::new()));
    let Some(mut reader) = reader::<Watched>(&device, 32) else {
        return;
    };
    for b in 0..32 {
        let item = Watched {
            buf: AlignedBuf::zeroed(BLOCK_ALIGN),
            block: b * 9,
            filled: filled.clone(),
        };
        assert!(reader.submit(item).is_ok());
    }
    // Submits all 32 and takes what came back first; the rest stay in
    // flight (or finished, not yet reaped) until the drop.
    let mut early = 0;
    reader.complete(|_, read| {
        read.unwrap();
        early += 1;
    });
    assert!(early >= 1);
    drop(reader);
    let filled = filled.lock().unwrap();
    assert_eq!(filled.len(), 32);
    assert!(filled.iter().all(|&whole| whole));
}

/// A file cut short under the device: reads past the new end end in the
/// same `UnexpectedEof` as `read_at`'s, whole ones still succeed.
#[test]
fn short_reads_fail_as_read_at_does() {
    for (_dir, device) in files_cut_short(10) {
        let Some(mut reader) = reader::<Job>(&device, 4) else {
            return;
        };
        let offsets = [0, 9 * BLOCK_ALIGN, 20 * BLOCK_ALIGN];
        for (id, at) in offsets.iter().enumerate() {
            assert!(reader.submit(job(id, 2, Some(*at as u64))).is_ok());
        }
        let mut back = Vec::new();
        while reader.pending() > 0 {
            reader.complete(|job, read| back.push((job, read)));
        }
        back.sort_by_key(|(job, _)| job.id);
        assert!(back[0].1.is_ok());
        assert_eq!(back[0].0.buf[BLOCK_ALIGN], byte(1, 0));
        for (job, read) in &back[1..] {
            let mut buf = AlignedBuf::zeroed(2 * BLOCK_ALIGN);
            let alone = device.read_at(&mut buf, job.offset.unwrap()).unwrap_err();
            assert_eq!(alone.kind(), ErrorKind::UnexpectedEof);
            same_error(read.as_ref().unwrap_err(), &alone);
        }
    }
}

/// Memory and fault-injecting devices have no file under them: their
/// reads keep going through `read_at` (power cuts, faults).
#[test]
fn devices_without_a_file_have_no_reader() {
    let mem = MemBlockDevice::new(BLOCKS * BLOCK_ALIGN);
    assert!(uring_reader::<Job>(&mem, 8).is_none());
    let faulty = FaultyBlockDevice::new(Arc::new(mem));
    assert!(uring_reader::<Job>(&faulty, 8).is_none());
}
