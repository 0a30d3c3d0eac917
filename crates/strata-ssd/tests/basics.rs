//! Appends, reads, flush and reopen; limits; refused devices; the record
//! cache under ten times its budget; live accounting; a failing sync.

use crate::common;

use std::sync::Arc;

use common::*;
use strata_device::{BlockDevice, FaultyBlockDevice, MemBlockDevice};
use strata_ssd::{BlockLoc, IoEngine, SsdConfig, SsdError, SsdStore};

/// Opens `device` and returns every entry the scan yields, without
/// marking any live (so finishing would free them all).
fn scan_all(device: &MemBlockDevice, config: SsdConfig) -> Vec<(BlockLoc, u8, Vec<u8>)> {
    let mut recovery = SsdStore::open(Arc::new(device.clone()), config).unwrap();
    let mut seen = Vec::new();
    recovery
        .scan(|loc, kind, payload| seen.push((loc, kind, payload.to_vec())))
        .unwrap();
    seen
}

#[test]
fn appends_read_back_from_buffer_device_and_after_reopen() {
    let device = mem_device(16);
    let store = open_empty(&device, config());
    let sizes = [0, 1, 13, 4083, 4084, 5000, 20_000, store.max_payload(), 7];
    let mut written = Vec::new();
    for (i, &size) in sizes.iter().cycle().take(40).enumerate() {
        let bytes = vec![i as u8; size];
        let loc = store.append(i as u8, &bytes).unwrap();
        assert_eq!(loc.offset % 8, 0);
        assert_eq!(store.read(loc).unwrap(), bytes, "entry {i} before flush");
        written.push((loc, i as u8, bytes));
    }
    store.flush().unwrap();
    for (loc, _, bytes) in &written {
        assert_eq!(store.read(*loc).unwrap(), *bytes);
    }
    let stats = store.stats();
    assert!(stats.device_reads > 0 && stats.buffer_reads > 0 && stats.cache.hits > 0);
    assert_eq!(stats.appends, 40);
    drop(store);

    // Everything flushed is found again, in append order.
    let seen = scan_all(&device.crash(), config());
    assert_eq!(seen, written);
}

#[test]
fn oversized_payloads_are_refused() {
    let device = mem_device(8);
    let store = open_empty(&device, config());
    let max = store.max_payload();
    assert_eq!(max, BLOCK - 64 - 12);
    assert!(store.append(1, &vec![0; max]).is_ok());
    match store.append(1, &vec![0; max + 1]) {
        Err(SsdError::TooLarge { len, max: limit }) => assert_eq!((len, limit), (max + 1, max)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_device_formatted_otherwise_or_holding_other_data_is_refused() {
    let device = mem_device(16);
    drop(open_empty(&device, config()));
    let other = SsdConfig {
        block_size: 2 * BLOCK,
        ..config()
    };
    let err = SsdStore::open(Arc::new(device.clone()), other)
        .err()
        .unwrap();
    assert!(
        matches!(err, SsdError::BadDevice(ref m) if m.contains("blocks")),
        "{err}"
    );

    let garbage = mem_device(16);
    garbage.damage(0, 0x5A);
    let err = SsdStore::open(Arc::new(garbage), config()).err().unwrap();
    assert!(
        matches!(err, SsdError::BadDevice(ref m) if m.contains("magic")),
        "{err}"
    );

    let too_small = mem_device(4);
    assert!(matches!(
        SsdStore::open(Arc::new(too_small), config()).err().unwrap(),
        SsdError::BadDevice(_)
    ));
}

/// Data larger than DRAM: ten times the cache budget is appended and read
/// back; the cache stays within its budget.
#[test]
fn ten_times_the_cache_size_is_stored_and_read_back() {
    let device = mem_device(64);
    let config = SsdConfig {
        dram_cache_size: 256 * 1024,
        ..config()
    };
    let store = open_empty(&device, config);
    let mut locs = Vec::new();
    let mut total = 0;
    while total < 10 * 256 * 1024 {
        let version = locs.len() as u64;
        let bytes = payload(version as u32, version, 3000);
        total += bytes.len();
        locs.push((store.append(PUT, &bytes).unwrap(), version));
    }
    store.flush().unwrap();
    for _ in 0..2 {
        for (loc, version) in &locs {
            assert_eq!(decode(&store.read(*loc).unwrap()).1, *version);
        }
    }
    let cache = store.stats().cache;
    assert!(
        cache.bytes <= cache.budget && cache.evictions > 0,
        "{cache:?}"
    );
    assert!(cache.misses >= locs.len() as u64);
}

#[test]
fn live_accounting_release_and_free_block() {
    let device = mem_device(16);
    let store = open_empty(&device, config());
    let first = store.append(PUT, &[1; 100]).unwrap();
    let mut last = first;
    while last.block == first.block {
        last = store.append(PUT, &[2; 30_000]).unwrap();
    }
    let live = store.live_fraction(first.block).unwrap();
    assert!(live > 0.5, "{live}");
    assert!(matches!(
        store.free_block(first.block, false),
        Err(SsdError::StillLive { .. })
    ));
    assert_eq!(store.release_by_reading(first).unwrap(), 100);
    // Per-block accounting cannot see a double release, but refuses to
    // release more than is live.
    assert!(matches!(
        store.release(first, 200_000),
        Err(SsdError::NotLive { .. })
    ));
    assert!(store.defrag_candidates(100).contains(&first.block));
    store.free_block(first.block, true).unwrap();
    assert!(matches!(store.read(first), Err(SsdError::NotLive { .. })));
    store.flush().unwrap();
    let stats = store.stats();
    assert_eq!(stats.defrag.blocks_freed, 1);
    assert_eq!(store.live_fraction(first.block), None);
    assert_eq!(stats.bytes_live, footprint(30_000));
}

#[test]
fn a_failed_sync_poisons_the_store() {
    let mem = mem_device(16);
    let faulty = FaultyBlockDevice::new(Arc::new(mem.clone()));
    let mut recovery = SsdStore::open(Arc::new(faulty.clone()), config()).unwrap();
    recovery.scan(|_, _, _| {}).unwrap();
    let store = recovery.finish().unwrap();
    let loc = store
        .append(PUT, b"kept only until the sync fails")
        .unwrap();
    faulty.faults().fail_syncs_after(0);
    assert!(matches!(store.flush(), Err(SsdError::Io { .. })));
    faulty.faults().heal();
    assert!(matches!(store.flush(), Err(SsdError::Poisoned(_))));
    assert!(matches!(
        store.append(PUT, b"x"),
        Err(SsdError::Poisoned(_))
    ));
    // Reads still work.
    assert_eq!(
        &store.read(loc).unwrap()[..],
        b"kept only until the sync fails"
    );
    assert!(faulty.is_direct());
}

#[test]
fn concurrent_appends_reads_and_flushes() {
    let device = mem_device(64);
    let store = open_empty(&device, config());
    let written: Vec<Vec<(BlockLoc, u64)>> = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..4u32)
            .map(|thread| {
                let store = store.clone();
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for i in 0..300u64 {
                        let version = u64::from(thread) << 32 | i;
                        let bytes = payload(thread, version, (i as usize * 131) % 4000);
                        let loc = store.append(PUT, &bytes).unwrap();
                        assert_eq!(decode(&store.read(loc).unwrap()).1, version);
                        if i % 50 == 0 {
                            store.flush().unwrap();
                        }
                        mine.push((loc, version));
                    }
                    mine
                })
            })
            .collect();
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    store.flush().unwrap();
    let mut all: Vec<(BlockLoc, u64)> = written.concat();
    for (loc, version) in &all {
        assert_eq!(decode(&store.read(*loc).unwrap()).1, *version);
    }
    // Each thread's entries are in its append order in the scan.
    all.sort();
    drop(store);
    let seen = scan_all(&device.crash(), config());
    assert_eq!(seen.len(), 1200);
    let found: Vec<(BlockLoc, u64)> = seen.iter().map(|(l, _, b)| (*l, decode(b).1)).collect();
    assert_eq!(found, all);
}

/// An entry crossing a 4 KiB boundary costs two device reads when only its
/// location is known, one when the caller passes its length; a payload
/// appended with `append_cached` is served from the cache once its block
/// is sealed.
#[test]
fn sized_fetches_read_once_and_appended_payloads_can_be_cached() {
    for io_engine in [IoEngine::Uring, IoEngine::Threads] {
        let config = SsdConfig {
            io_engine,
            ..config()
        };
        sized_fetches(config);
    }
}

fn sized_fetches(config: SsdConfig) {
    let device = mem_device(16);
    let store = open_empty(&device, config);
    let first = store.append(1, &[1u8; 4000]).unwrap();
    let crossing = store.append(1, &[2u8; 3000]).unwrap();
    assert!(crossing.offset as usize % 4096 + 3000 > 4096, "test setup");
    let cached = store.append_cached(1, &[3u8; 100], 77).unwrap();
    // Fill the block so it is sealed and written.
    while store.append(9, &[0u8; 8000]).unwrap().block == first.block {}
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let reads = |store: &SsdStore| store.stats().device_reads;
    let before = reads(&store);
    let got = runtime
        .block_on(store.fetch_async(crossing, None, 1))
        .unwrap();
    assert_eq!(got.len(), 3000);
    assert_eq!(reads(&store) - before, 2, "header window, then the rest");
    store.release(crossing, 3000).unwrap();
    let again = store.append(1, &[2u8; 3000]).unwrap();
    while store.append(9, &[0u8; 8000]).unwrap().block == again.block {}
    let before = reads(&store);
    let got = runtime
        .block_on(store.fetch_async(again, Some(3000), 2))
        .unwrap();
    assert_eq!(got[..], [2u8; 3000][..]);
    assert!(
        reads(&store) - before == 1,
        "one read with the length known"
    );
    let before = reads(&store);
    assert_eq!(
        store.read_resident(cached, 77).unwrap().unwrap()[..],
        [3u8; 100][..]
    );
    assert_eq!(reads(&store), before);
    // Under another hint it is not found (the hint names the object).
    assert!(store.read_resident(cached, 78).is_none());
}
