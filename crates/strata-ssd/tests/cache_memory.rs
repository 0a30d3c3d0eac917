//! The record cache's resident memory stays within its byte budget.
//!
//! The budget is a promise about memory, not about counted bytes: filling a
//! [`RecordCache`] with 1,000,000 small records (100 bytes, the size of a
//! typical KV value) must grow the process's resident set by at most the
//! budget plus 15% (measured: 9%, the allocator's free memory after the
//! tables were resized and shrunk; before the cache counted its tables,
//! queues and allocator rounding, 166%). The goal is 5%, which needs the
//! tables sized without reallocation (see `cache::memory`). Each measurement runs in a child process (this test
//! binary run again for one test) so that no other test's allocations share
//! the heap, and reads `/proc/self/statm` before and after.

use std::process::Command;

use bytes::Bytes;
use strata_ssd::RecordCache;

/// Set in the child process: run the measurement, print it, and exit.
const CHILD: &str = "STRATA_CACHE_MEMORY_CHILD";

/// The budget of the measurement.
const BUDGET: u64 = 64 << 20;

/// Records inserted, many times what the budget holds.
const RECORDS: u64 = 1_000_000;

/// Payload bytes per record.
const RECORD_LEN: usize = 100;

/// Resident bytes of this process.
fn resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// Fills a cache as the SSD tier does (a record inserted on a miss, every
/// third one read again so that hits hand out clones), then prints the
/// resident growth and what the cache counts.
fn measure() {
    // A version the size of the store's (sequence number and location).
    let cache: RecordCache<u64, (u64, u64)> = RecordCache::new(BUDGET);
    let before = resident();
    for key in 0..RECORDS {
        let mut payload = vec![0u8; RECORD_LEN];
        payload[..8].copy_from_slice(&key.to_le_bytes());
        cache.insert(key, (key, key), Bytes::from(payload));
        if key % 3 == 0 {
            assert!(cache.get(&key, &(key, key)).is_some());
        }
    }
    let grown = resident().saturating_sub(before);
    let stats = cache.stats();
    println!(
        "MEASURED grown={grown} entries={} counted={} budget={}",
        stats.entries, stats.bytes, stats.budget
    );
    drop(cache);
}

/// Runs `measure` in a child process and parses what it printed.
fn measured_in_child(test: &str) -> (u64, u64, u64) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}");
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("MEASURED ").map(|(_, m)| m))
        .unwrap_or_else(|| panic!("no measurement in {stdout}"));
    let field = |name: &str| -> u64 {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
            .unwrap()
            .parse()
            .unwrap()
    };
    (field("grown"), field("entries"), field("counted"))
}

#[test]
fn a_full_cache_of_small_records_stays_within_its_budget_in_resident_memory() {
    if std::env::var_os(CHILD).is_some() {
        measure();
        return;
    }
    let (grown, entries, counted) = measured_in_child(
        "a_full_cache_of_small_records_stays_within_its_budget_in_resident_memory",
    );
    let per_item = grown as f64 / entries as f64;
    let counted_per_item = counted as f64 / entries as f64;
    eprintln!(
        "{entries} records of {RECORD_LEN} bytes: resident grew {grown} bytes \
         ({per_item:.1} per record), the cache counts {counted} ({counted_per_item:.1} per record); \
         budget {BUDGET}"
    );
    assert!(counted <= BUDGET);
    assert!(
        grown <= BUDGET + BUDGET * 15 / 100,
        "resident memory grew {grown} bytes over a budget of {BUDGET} \
         ({per_item:.1} bytes per record, {counted_per_item:.1} counted)"
    );
}
