//! Large reads (64 KiB and more) are handed out in the buffer they were
//! read into, 8-byte aligned after [`PAYLOAD_ALIGN_PAD`], and the pooled
//! buffers they come back to never leak one read's bytes into another's.

use crate::common;

use common::open_empty;
use strata_device::MemBlockDevice;
use strata_ssd::{SsdConfig, PAYLOAD_ALIGN_PAD};

const BLOCK: usize = 1 << 20;

fn config() -> SsdConfig {
    SsdConfig {
        dram_cache_size: 0,
        read_buffers: 2 << 20,
        io_threads: 2,
        ..SsdConfig::with_block_size(BLOCK)
    }
}

/// `len` bytes that differ per `seed` and position.
fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

#[test]
fn large_payloads_come_back_aligned_whole_and_never_mixed() {
    let device = MemBlockDevice::new(16 * BLOCK);
    let store = open_empty(&device, config());
    // Sizes around the 64 KiB threshold and across 4 KiB windows, with
    // the alignment pad in front as a caller that wants it puts it.
    let sizes = [70_000, 65_536, 300_000, 64 * 1024 - 100, 123_457, 90_001];
    let mut written = Vec::new();
    for (i, &len) in sizes.iter().cycle().take(18).enumerate() {
        let mut payload = vec![0u8; PAYLOAD_ALIGN_PAD];
        payload.extend(pattern(i as u8, len));
        let loc = store.append(1, &payload).unwrap();
        written.push((loc, payload));
    }
    store.flush().unwrap();
    // The last block stays open: its entries are read from the writer's
    // DRAM buffer, not the device, and are copies.
    let open_block = written.last().unwrap().0.block;
    for round in 0..3 {
        let mut held = Vec::new();
        for (i, (loc, payload)) in written.iter().enumerate() {
            let read = if i % 2 == 0 {
                store.read(*loc).unwrap()
            } else {
                store
                    .read_hinted(*loc, Some(payload.len()), loc.pack())
                    .unwrap()
            };
            assert_eq!(read.len(), payload.len(), "entry {i} round {round}");
            assert!(read[..] == payload[..], "entry {i} round {round}");
            if payload.len() >= 64 * 1024 && loc.block != open_block {
                let data = read.as_ptr() as usize + PAYLOAD_ALIGN_PAD;
                assert_eq!(data % 8, 0, "entry {i}: large payloads are read in place");
            }
            // Keep some reads alive across later ones, so buffers are both
            // held and reused while others are read.
            if i % 3 == 0 {
                held.push((read, payload.clone()));
            }
        }
        for (read, payload) in held {
            assert!(
                read[..] == payload[..],
                "a held read changed under later reads"
            );
        }
    }
}
