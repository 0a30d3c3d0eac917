//! What goes into a snapshot comes back out, in order, on every directory
//! and with any block size.

use crate::common;

use common::*;
use proptest::prelude::*;
use strata_device::{Directory, FsDirectory, MemDirectory, SyncMode};
use strata_snapshot::{
    check_complete, newest_complete, snapshot_name, Fallback, SnapshotError, SnapshotItem,
    SnapshotReader, SnapshotWriter, WriterOptions, HEADER_LEN, TRAILER_LEN,
};

#[test]
fn many_items_round_trip_with_default_blocks() {
    let dir = MemDirectory::new();
    let items = items(2000);
    let info = write_snapshot(&dir, 77, &items, WriterOptions::new()).unwrap();
    assert_eq!(info.name, snapshot_name(77));
    assert_eq!((info.start_lsn, info.records), (77, 2000));
    assert_eq!(info.bytes, file_bytes(&dir, &info.name).len() as u64);
    assert_eq!(read_all(&dir, &info.name).unwrap(), items);
    let mut reader = SnapshotReader::open(&dir, &info.name).unwrap();
    assert_eq!(reader.start_lsn(), 77);
    assert_eq!(reader.created_ms(), info.created_ms);
    assert_eq!(reader.verify().unwrap(), info);
    assert_eq!(check_complete(&dir, &info.name).unwrap(), info);
}

#[test]
fn large_values_span_many_small_blocks() {
    let dir = MemDirectory::new();
    let mut items = items(120);
    items.push(OwnedItem {
        key: vec![],
        value: vec![0xab; 3 << 20], // three times the largest block
        flags: u64::MAX,
        cas: u64::MAX,
        expires_at: Some(u64::MAX),
    });
    let info = write_snapshot(&dir, 1, &items, small_blocks()).unwrap();
    assert_eq!(read_all(&dir, &info.name).unwrap(), items);
}

#[test]
fn an_empty_snapshot_is_header_and_trailer() {
    let dir = MemDirectory::new();
    let info = write_snapshot(&dir, 5, &[], WriterOptions::new()).unwrap();
    assert_eq!(info.records, 0);
    assert_eq!(info.bytes, (HEADER_LEN + TRAILER_LEN) as u64);
    assert!(read_all(&dir, &info.name).unwrap().is_empty());
    let (name, chosen) = newest_complete(&dir, Fallback::Strict).unwrap().unwrap();
    assert_eq!((name, chosen), (info.name.clone(), info));
}

#[test]
fn the_callback_error_stops_reading() {
    let dir = MemDirectory::new();
    let info = write_snapshot(&dir, 1, &items(50), small_blocks()).unwrap();
    let mut seen = 0;
    let mut reader = SnapshotReader::open(&dir, &info.name).unwrap();
    let result = reader.for_each(|_| {
        seen += 1;
        if seen == 10 {
            Err(SnapshotError::Config("stop here".into()))
        } else {
            Ok(())
        }
    });
    assert!(matches!(result, Err(SnapshotError::Config(_))));
    assert_eq!(seen, 10);
}

#[test]
fn oversized_items_are_refused_and_the_writer_goes_on() {
    let dir = MemDirectory::new();
    let mut writer = SnapshotWriter::create(&dir, &snapshot_name(1), 1, None).unwrap();
    let huge = vec![0u8; strata_snapshot::MAX_KEY_LEN + 1];
    let item = SnapshotItem {
        key: &huge,
        value: b"",
        flags: 0,
        cas: 0,
        expires_at: None,
    };
    assert!(matches!(
        writer.add(&item),
        Err(SnapshotError::ItemTooLarge { field: "key", .. })
    ));
    writer.add(&items(1)[0].as_item()).unwrap();
    assert_eq!(writer.finish().unwrap().records, 1);
}

#[test]
fn options_are_checked() {
    let dir = MemDirectory::new();
    for options in [
        WriterOptions::new().rate(Some(0)),
        WriterOptions::new().block_size(0),
        WriterOptions::new().block_size(strata_snapshot::MAX_BLOCK_LEN + 1),
    ] {
        assert!(matches!(
            SnapshotWriter::create_with(&dir, "s", 1, options),
            Err(SnapshotError::Config(_))
        ));
    }
    assert!(matches!(
        SnapshotWriter::create(&dir, &snapshot_name(2), 3, None),
        Err(SnapshotError::InvalidName { .. })
    ));
    assert!(dir.list().unwrap().is_empty());
}

#[test]
fn round_trip_on_the_real_filesystem() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    let items = items(300);
    let info = write_snapshot(&dir, 9, &items, WriterOptions::new().block_size(4096)).unwrap();
    assert_eq!(dir.list().unwrap(), [snapshot_name(9)]);
    assert_eq!(read_all(&dir, &info.name).unwrap(), items);
    let reopened = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    let (name, _) = newest_complete(&reopened, Fallback::Strict)
        .unwrap()
        .unwrap();
    assert_eq!(name, info.name);
}

fn arb_item() -> impl Strategy<Value = OwnedItem> {
    (
        prop::collection::vec(any::<u8>(), 0..40),
        prop_oneof![
            3 => prop::collection::vec(any::<u8>(), 0..64),
            1 => prop::collection::vec(any::<u8>(), 0..5000),
        ],
        any::<u64>(),
        any::<u64>(),
        any::<Option<u64>>(),
    )
        .prop_map(|(key, value, flags, cas, expires_at)| OwnedItem {
            key,
            value,
            flags,
            cas,
            expires_at,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_items_with_any_block_size_round_trip(
        items in prop::collection::vec(arb_item(), 0..60),
        block_size in 1usize..3000,
        lsn in any::<u64>(),
    ) {
        let dir = MemDirectory::new();
        let options = WriterOptions::new().block_size(block_size).created_ms(lsn / 3);
        let info = write_snapshot(&dir, lsn, &items, options).unwrap();
        prop_assert_eq!(info.records, items.len() as u64);
        prop_assert_eq!(info.created_ms, lsn / 3);
        prop_assert_eq!(read_all(&dir, &info.name).unwrap(), items);
    }
}
