//! The conformance suite every [`Directory`] must pass, whatever it stores
//! bytes in.

#![allow(dead_code)]

use std::io::ErrorKind;

use strata_device::{Device, Directory};

/// Bytes that differ by position and by `seed`, so misplaced copies show.
pub fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

/// Writes `bytes` at `offset` into the model, extending with zeros.
pub fn model_write(model: &mut Vec<u8>, offset: usize, bytes: &[u8]) {
    if model.len() < offset + bytes.len() {
        model.resize(offset + bytes.len(), 0);
    }
    model[offset..offset + bytes.len()].copy_from_slice(bytes);
}

/// The whole content of `device`.
pub fn content(device: &dyn Device) -> Vec<u8> {
    let mut buf = vec![0; device.len().unwrap() as usize];
    device.read_exact_at(&mut buf, 0).unwrap();
    buf
}

/// Checks `device` against `model`: length, whole content, and a few reads
/// at unaligned offsets.
fn check(device: &dyn Device, model: &[u8]) {
    assert_eq!(device.len().unwrap(), model.len() as u64);
    assert_eq!(device.is_empty().unwrap(), model.is_empty());
    assert!(content(device) == model, "content differs from the model");
    for (offset, len) in [(1, 7), (4093, 9), (4095, 4098), (100, 0)] {
        if offset + len <= model.len() {
            let mut buf = vec![0; len];
            device.read_exact_at(&mut buf, offset as u64).unwrap();
            assert_eq!(buf, model[offset..offset + len]);
        }
    }
}

/// Runs every check on `dir`, which must start empty.
pub fn conformance(dir: &dyn Directory) {
    assert_eq!(dir.list().unwrap(), Vec::<String>::new());
    round_trips(dir);
    lengths(dir);
    handles_share_a_file(dir);
    names(dir);
    replaces(dir);
    written_files_read(dir);
    not_found(dir);
    invalid_names(dir);
}

/// A file written once is read back whole and in parts by a device opened
/// for block reads (aligned blocks, unaligned ranges, the short last
/// block), and mapped whole; reads past its end fail.
fn written_files_read(dir: &dyn Directory) {
    let bytes = pattern(9, 3 * 4096 + 123);
    let device = dir.create("segment").unwrap();
    device.write_all_at(&bytes, 0).unwrap();
    device.sync().unwrap();
    let blocks = dir.open_for_blocks("segment").unwrap();
    assert_eq!(blocks.len().unwrap(), bytes.len() as u64);
    assert!(blocks.read_block(0, bytes.len()).unwrap() == bytes);
    assert!(blocks.read_block(4096, 4096).unwrap() == bytes[4096..8192]);
    assert!(blocks.read_block(3 * 4096, 123).unwrap() == bytes[3 * 4096..]);
    assert!(blocks.read_block(5, 9000).unwrap() == bytes[5..9005]);
    let mut part = vec![0; 4100];
    blocks.read_exact_at(&mut part, 4000).unwrap();
    assert!(part == bytes[4000..8100]);
    let past = blocks.read_block(3 * 4096, 124).unwrap_err();
    assert_eq!(past.kind(), ErrorKind::UnexpectedEof);
    assert!(*blocks.map().unwrap() == *bytes);
    assert!(*device.map().unwrap() == *bytes);
    assert_eq!(
        dir.open_for_blocks("missing").err().map(|e| e.kind()),
        Some(ErrorKind::NotFound)
    );
    dir.create("empty").unwrap().sync().unwrap();
    assert!(dir.open("empty").unwrap().map().unwrap().is_empty());
    dir.remove("empty").unwrap();
    dir.remove("segment").unwrap();
}

/// `replace` creates or replaces a device whole (shorter content leaves
/// no tail of the longer one), `read_all` reads it back, and no temporary
/// device is left behind.
fn replaces(dir: &dyn Directory) {
    let long = pattern(3, 10_000);
    dir.replace("meta.json", &long).unwrap();
    assert!(dir.read_all("meta.json").unwrap() == long);
    dir.replace("meta.json", b"short").unwrap();
    assert_eq!(dir.read_all("meta.json").unwrap(), b"short");
    assert_eq!(dir.list().unwrap(), ["meta.json"]);
    assert_eq!(
        dir.read_all("missing").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    dir.remove("meta.json").unwrap();
}

/// Writes at unaligned offsets and lengths, across block boundaries, past
/// the end (zeros fill the gap), and more than a megabyte at once.
fn round_trips(dir: &dyn Directory) {
    let device = dir.create("data").unwrap();
    let mut model = Vec::new();
    check(&*device, &model);
    let writes: [(usize, usize); 10] = [
        (0, 10),
        (5, 4100),
        (4090, 20),
        (8191, 1),
        (10_000, 3),
        (0, 4096),
        (3 * 4096 - 7, 2 * 4096 + 14),
        (20_000, 4096),
        (1000, (3 << 19) + 5),
        (30_001, 2),
    ];
    for (i, (offset, len)) in writes.into_iter().enumerate() {
        let bytes = pattern(i as u8 + 1, len);
        device.write_all_at(&bytes, offset as u64).unwrap();
        model_write(&mut model, offset, &bytes);
        check(&*device, &model);
    }
    device.write_all_at(&[], 1 << 30).unwrap();
    device.sync().unwrap();
    check(&*device, &model);

    let mut buf = [0u8; 4];
    let end = model.len() as u64;
    let err = device.read_exact_at(&mut buf, end - 2).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
    let err = device.read_exact_at(&mut buf, end + 4096).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnexpectedEof);
    device.read_exact_at(&mut [], end).unwrap();

    let reopened = dir.open("data").unwrap();
    check(&*reopened, &model);
    drop((device, reopened));
    dir.remove("data").unwrap();
}

/// `set_len` shrinks and grows (with zeros); writes after it land right;
/// `create` on an existing name truncates.
fn lengths(dir: &dyn Directory) {
    let device = dir.create("sized").unwrap();
    let mut model = pattern(7, 9000);
    device.write_all_at(&model, 0).unwrap();
    for len in [5000, 4096, 4097, 12_345, 1, 0, 777] {
        device.set_len(len as u64).unwrap();
        model.resize(len, 0);
        check(&*device, &model);
    }
    device.write_all_at(b"tail", 900).unwrap();
    model_write(&mut model, 900, b"tail");
    device.sync().unwrap();
    check(&*device, &model);

    let again = dir.create("sized").unwrap();
    check(&*again, &[]);
    check(&*device, &[]);
    drop((device, again));
    dir.remove("sized").unwrap();
}

/// Two devices on one name see each other's writes.
fn handles_share_a_file(dir: &dyn Directory) {
    let first = dir.create("shared").unwrap();
    first.write_all_at(b"hello", 0).unwrap();
    let second = dir.open("shared").unwrap();
    assert_eq!(content(&*second), b"hello");
    second.write_all_at(b", world", 5).unwrap();
    assert_eq!(content(&*first), b"hello, world");
    drop((first, second));
    dir.remove("shared").unwrap();
}

/// Create, rename (replacing a target), remove, list sorted, sync_names.
fn names(dir: &dyn Directory) {
    for name in ["zeta", "alpha", "mid", "alpha.tmp"] {
        let device = dir.create(name).unwrap();
        device.write_all_at(name.as_bytes(), 0).unwrap();
        device.sync().unwrap();
    }
    dir.sync_names().unwrap();
    assert_eq!(dir.list().unwrap(), ["alpha", "alpha.tmp", "mid", "zeta"]);

    dir.rename("alpha.tmp", "alpha").unwrap();
    assert_eq!(dir.list().unwrap(), ["alpha", "mid", "zeta"]);
    assert_eq!(content(&*dir.open("alpha").unwrap()), b"alpha.tmp");

    dir.rename("mid", "new").unwrap();
    assert_eq!(dir.list().unwrap(), ["alpha", "new", "zeta"]);
    assert_eq!(content(&*dir.open("new").unwrap()), b"mid");

    for name in ["alpha", "new", "zeta"] {
        dir.remove(name).unwrap();
    }
    dir.sync_names().unwrap();
    assert_eq!(dir.list().unwrap(), Vec::<String>::new());
}

fn not_found(dir: &dyn Directory) {
    let kind = |result: std::io::Result<()>| result.unwrap_err().kind();
    assert_eq!(kind(dir.open("missing").map(drop)), ErrorKind::NotFound);
    assert_eq!(kind(dir.remove("missing")), ErrorKind::NotFound);
    assert_eq!(kind(dir.rename("missing", "other")), ErrorKind::NotFound);
    assert!(dir.list().unwrap().is_empty());
}

fn invalid_names(dir: &dyn Directory) {
    for name in ["", ".", "..", "a/b", "/abs"] {
        let err = dir.create(name).map(drop).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{name:?}");
    }
    assert!(dir.list().unwrap().is_empty());
}
