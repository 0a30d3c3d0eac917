//! Damage found at rebuild: a flipped byte inside a synced block is
//! `Corrupt` naming block and offset (and a read of it fails the same
//! way); a torn tail of the newest block is cut and counted, and the cut
//! is repaired so the next restart is clean.

use crate::common;

use std::sync::Arc;

use common::*;
use strata_device::MemBlockDevice;
use strata_ssd::{BlockLoc, SsdError, SsdStore};

/// Appends `count` entries of `len` bytes; returns their locations.
fn fill(store: &SsdStore, count: usize, len: usize) -> Vec<BlockLoc> {
    (0..count)
        .map(|i| {
            store
                .append(PUT, &payload(i as u32, i as u64, len))
                .unwrap()
        })
        .collect()
}

fn device_offset(loc: BlockLoc, inside: u64) -> u64 {
    u64::from(loc.block) * BLOCK as u64 + u64::from(loc.offset) + inside
}

#[test]
fn a_flipped_byte_in_a_synced_block_is_corruption_naming_block_and_offset() {
    let device = mem_device(16);
    let store = open_empty(&device, config());
    let locs = fill(&store, 40, 5000);
    store.flush().unwrap();
    // A second flush records the synced frontier in the open block.
    store.append(PUT, &payload(99, 99, 10)).unwrap();
    store.flush().unwrap();
    let victim = locs[3];
    assert_eq!(victim.block, locs[0].block);
    device.damage(device_offset(victim, 2000), 0x40);

    match store.read(victim) {
        Err(SsdError::Corrupt { block, offset, .. }) => {
            assert_eq!((block, offset), (victim.block, victim.offset));
        }
        other => panic!("read gave {other:?}"),
    }
    let mut recovery = SsdStore::open(Arc::new(device.crash()), config()).unwrap();
    match recovery.scan(|_, _, _| {}) {
        Err(SsdError::Corrupt {
            block,
            offset,
            reason,
        }) => {
            assert_eq!((block, offset), (victim.block, victim.offset));
            assert!(reason.contains("checksum"), "{reason}");
        }
        other => panic!("scan gave {other:?}"),
    }
    assert!(recovery.finish().is_err(), "no finish after a failed scan");
}

#[test]
fn a_torn_tail_of_the_newest_block_is_cut_counted_and_repaired() {
    let device = mem_device(16);
    let store = open_empty(&device, config());
    let first = fill(&store, 3, 1000);
    store.flush().unwrap();
    let second = fill(&store, 4, 1000);
    store.flush().unwrap();
    assert_eq!(first[0].block, second[3].block, "all in the open block");
    // The second flush's last entries never fully arrived.
    device.damage(device_offset(second[2], 500), 0x01);
    let crashed = device.crash();

    let reopen = |device: &MemBlockDevice| {
        let mut recovery = SsdStore::open(Arc::new(device.clone()), config()).unwrap();
        let mut seen = Vec::new();
        recovery
            .scan(|loc, _, bytes| seen.push((loc, bytes.len())))
            .unwrap();
        for &(loc, len) in &seen {
            recovery.set_live(loc, len).unwrap();
        }
        let stats = recovery.stats();
        (recovery.finish().unwrap(), seen, stats)
    };
    let (store, seen, stats) = reopen(&crashed);
    assert_eq!(seen.len(), 5);
    assert_eq!(stats.torn_blocks, 1);
    let cut_at = u64::from(second[2].offset);
    let used = u64::from(second[3].offset) + footprint(1012);
    assert_eq!(stats.bytes_dropped, used - cut_at);
    assert_eq!(store.rebuild_stats().bytes_dropped, stats.bytes_dropped);
    assert!(store.rebuild_stats().duration > std::time::Duration::ZERO);
    store.append(PUT, &payload(50, 50, 100)).unwrap();
    store.flush().unwrap();
    drop(store);

    // The header was rewritten to the cut: the next restart finds no tear.
    let (_, seen, stats) = reopen(&crashed.crash());
    assert_eq!((stats.torn_blocks, seen.len()), (0, 6));
}
