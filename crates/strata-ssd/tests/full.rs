//! Writes are refused with `Full` before the device is full, and the
//! defragmenter can still move live entries using the reserve.

use crate::common;

use common::*;
use strata_ssd::{BlockLoc, SsdError};

#[test]
fn appends_are_refused_before_the_device_is_full_and_defrag_uses_the_reserve() {
    let device = mem_device(16);
    let store = open_empty(&device, config());
    let mut locs: Vec<BlockLoc> = Vec::new();
    let value = vec![7u8; 8000];
    let err = loop {
        match store.append(PUT, &value) {
            Ok(loc) => locs.push(loc),
            Err(e) => break e,
        }
    };
    let stats = store.stats();
    match err {
        SsdError::Full {
            free_blocks,
            reserve,
        } => {
            assert_eq!(reserve, 2);
            assert_eq!(u64::from(free_blocks), stats.blocks_free);
            assert!(free_blocks > 0, "refused before the device is full");
        }
        other => panic!("{other}"),
    }
    assert_eq!(stats.blocks_free, 2);
    // Still full: nothing was released.
    assert!(matches!(
        store.append(PUT, &value),
        Err(SsdError::Full { .. })
    ));

    // Drop three entries in four, so every sealed block stays partly live.
    for (i, loc) in locs.iter().enumerate() {
        if i % 4 != 0 {
            store.release(*loc, value.len()).unwrap();
        }
    }
    store.flush().unwrap();
    assert_eq!(store.stats().blocks_free, 2, "no block emptied by itself");

    // The defragmenter relocates live entries into the reserve.
    let mut relocated = 0;
    for block in store.defrag_candidates(50) {
        for entry in store.entries(block).unwrap() {
            let keep = locs.iter().position(|l| *l == entry.loc).unwrap() % 4 == 0;
            if keep {
                store.append_relocated(entry.kind, &entry.payload).unwrap();
                store.release(entry.loc, entry.payload.len()).unwrap();
                relocated += 1;
            }
        }
        store.free_block(block, false).unwrap();
    }
    assert!(relocated > 0);
    store.flush().unwrap();
    let stats = store.stats();
    assert!(stats.blocks_free > 2, "{stats:?}");
    assert_eq!(stats.defrag.entries_moved, relocated);
    assert!(stats.defrag.blocks_freed > 0);
    store.append(PUT, &value).unwrap();
}
