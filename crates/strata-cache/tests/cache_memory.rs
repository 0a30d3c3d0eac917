//! The record cache's resident memory stays within its byte budget.
//!
//! The budget is a promise about memory, not about counted bytes: filling a
//! [`Cache`] of 32 MiB with 600,000 small records (100 bytes, the
//! size of a typical KV value; six times what fits) must grow the process's
//! resident set by at most the budget plus 5%. Before the cache counted its
//! tables, queues and allocator rounding it grew by 2.7 times its budget. Each measurement runs in a child process (this test
//! binary run again for one test) so that no other test's allocations share
//! the heap, and reads `/proc/self/statm` before and after.
//!
//! The binary uses the server's allocator with the server's options
//! (jemalloc, freed pages returned within a second, `crates/strata`'s
//! `main.rs`), and reads the resident set a little over a second after the
//! fill. With glibc's malloc the growth is about 9% over the counted
//! bytes: memory freed when the tables resized stays in malloc's free
//! lists (`malloc_trim` brings the growth down to what the cache counts).

use std::process::Command;

use bytes::Bytes;
use strata_cache::Cache;

#[path = "support/process_memory.rs"]
mod process_memory;
use process_memory::{purge_dirty_pages, resident};

/// Set in the child process: run the measurement, print it, and exit.
const CHILD: &str = "STRATA_CACHE_MEMORY_CHILD";

/// The budget of the measurement.
const BUDGET: u64 = 32 << 20;

/// Records inserted, many times what the budget holds.
const RECORDS: u64 = 600_000;

/// Payload bytes per record.
const RECORD_LEN: usize = 100;

/// Fills a cache as the SSD tier does (a record inserted on a miss, every
/// third one read again so that hits hand out clones), then prints the
/// resident growth and what the cache counts.
fn measure() {
    // A version the size of the store's (sequence number and location).
    let cache: Cache<u64, (u64, u64)> = Cache::new(BUDGET);
    let before = resident();
    for key in 0..RECORDS {
        let mut payload = vec![0u8; RECORD_LEN];
        payload[..8].copy_from_slice(&key.to_le_bytes());
        cache.insert(key, (key, key), Bytes::from(payload));
        if key % 3 == 0 {
            assert!(cache.get(&key, &(key, key)).is_some());
        }
    }
    // Freed pages go back to the system within the decay time.
    purge_dirty_pages();
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
    // The cache uses its budget: a table grown past it would have forced
    // out most records (it held half of the budget before tables grew
    // only when the grown table fit).
    assert!(counted >= BUDGET * 9 / 10, "{counted} of {BUDGET} used");
    assert!(
        grown <= BUDGET + BUDGET / 20,
        "resident memory grew {grown} bytes over a budget of {BUDGET} \
         ({per_item:.1} bytes per record, {counted_per_item:.1} counted)"
    );
}
