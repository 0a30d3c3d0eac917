//! Process-level crash testing of `strata serve --persistence`: start the
//! server on a data directory, write from several connections while
//! recording what was acknowledged and what was in flight, kill or stop the
//! server, restart it on the same files and check what survived.
//!
//! - `cycle`: one kill cycle and the loop of them.
//! - `server`: the child process ([`server::DurableServer`]).
//! - `resp`: a raw RESP client that pipelines and reads replies one by one.
//! - `memcache`: the same for the memcached text protocol.
//! - `model`: the write commands and what they do to a key.
//! - `choice`: what a worker writes next.
//! - `workload`: worker threads, each writing its own keys.
//! - `fleet`: starting and stopping the workers of one server run together.
//! - `history`: one connection's record and the survival checks.
//! - `recovered`: reading back a restarted server's keys and INFO.
//! - `totals`: what a loop did, for its closing line.
//! - `verify`: checking a restarted server against every connection's record.

pub mod choice;
pub mod cycle;
pub mod fleet;
pub mod history;
#[cfg(test)]
mod history_tests;
pub mod memcache;
pub mod model;
pub mod recovered;
pub mod resp;
pub use crate::support::scale;
pub mod server;
pub mod totals;
pub mod verify;
pub mod workload;

use std::path::Path;

/// A temporary data directory that is kept (and its path printed) when the
/// test fails, for reproducing what the server recovered from.
pub struct DataDir {
    dir: Option<tempfile::TempDir>,
}

impl DataDir {
    /// A new empty directory.
    pub fn new(label: &str) -> DataDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("strata-crash-{label}-"))
            .tempdir()
            .expect("temp data dir");
        DataDir { dir: Some(dir) }
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.dir.as_ref().expect("present until drop").path()
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let Some(dir) = self.dir.take() {
                eprintln!(
                    "data directory kept for inspection: {}",
                    dir.keep().display()
                );
            }
        }
    }
}

/// The `STRATA_CRASH_SEED` environment variable, or a random seed. Printed
/// either way so a failure can be replayed.
pub fn seed(test: &str) -> u64 {
    let seed = match std::env::var("STRATA_CRASH_SEED") {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("STRATA_CRASH_SEED={text:?} is not a u64")),
        Err(_) => rand::random(),
    };
    eprintln!("{test}: seed {seed} (replay with STRATA_CRASH_SEED={seed})");
    seed
}

/// `STRATA_CRASH_CYCLES` if set, else `full_count` in the full suite and
/// `quick` otherwise (the rule of [`scale`]).
pub fn cycles(quick: usize, full_count: usize) -> usize {
    scale::count("STRATA_CRASH_CYCLES", quick, full_count)
}

/// `strata serve` options putting the records on an SSD tier file at
/// `path` of `size` (64 KiB blocks, buffered I/O, a 64 KiB DRAM record
/// cache), flushed every `flush_interval`.
#[allow(dead_code)] // not every crash test uses the SSD tier
pub fn ssd_options(path: &Path, size: &str, flush_interval: &str) -> Vec<String> {
    let path = path.display().to_string();
    [
        "--data",
        "ssd",
        "--ssd-path",
        &path,
        "--ssd-size",
        size,
        "--ssd-block-size",
        "64kb",
        "--ssd-io",
        "buffered",
        "--dram-cache-size",
        "64kb",
        "--ssd-flush-interval",
        flush_interval,
    ]
    .map(String::from)
    .to_vec()
}
