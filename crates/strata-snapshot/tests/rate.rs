//! Pacing (`checkpoint_io_rate`): with an injected clock, writing N bytes at
//! R bytes per second asks for about N / R of sleep, in small steps; without
//! a rate nothing sleeps.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use strata_device::MemDirectory;
use strata_snapshot::{WriterOptions, DEFAULT_BLOCK_SIZE};

/// 1024 items of 4 KiB values: about 4 MiB.
fn four_mib() -> Vec<OwnedItem> {
    (0..1024u32)
        .map(|i| OwnedItem {
            key: i.to_be_bytes().to_vec(),
            value: vec![i as u8; 4096],
            flags: 0,
            cas: u64::from(i),
            expires_at: None,
        })
        .collect()
}

#[test]
fn sleep_matches_bytes_over_rate() {
    for rate in [256 << 10, 1 << 20, 50 << 20] {
        let clock = Arc::new(ManualClock::default());
        let options = WriterOptions::new().rate(Some(rate)).clock(clock.clone());
        let info = write_snapshot(&MemDirectory::new(), 1, &four_mib(), options).unwrap();
        let expected = info.bytes as f64 / rate as f64;
        let slept = clock.slept().as_secs_f64();
        assert!(
            (slept - expected).abs() < expected * 0.01,
            "rate {rate}: slept {slept} s for {} bytes, expected {expected} s",
            info.bytes
        );
        assert!(clock
            .sleeps()
            .iter()
            .all(|s| *s <= Duration::from_millis(10)));
    }
}

#[test]
fn no_rate_never_sleeps() {
    let clock = Arc::new(ManualClock::default());
    let options = WriterOptions::new().rate(None).clock(clock.clone());
    write_snapshot(&MemDirectory::new(), 1, &four_mib(), options).unwrap();
    assert_eq!(clock.slept(), Duration::ZERO);
}

#[test]
fn the_real_clock_paces_too() {
    // 1 MiB at 10 MiB/s: about 100 ms.
    let items: Vec<OwnedItem> = four_mib().into_iter().take(256).collect();
    let rate = 10 << 20;
    let start = Instant::now();
    let info = write_snapshot(
        &MemDirectory::new(),
        1,
        &items,
        WriterOptions::new()
            .rate(Some(rate))
            .block_size(DEFAULT_BLOCK_SIZE),
    )
    .unwrap();
    let expected = Duration::from_secs_f64(info.bytes as f64 / rate as f64);
    assert!(
        start.elapsed() >= expected.mul_f64(0.95),
        "{:?}",
        start.elapsed()
    );
}
