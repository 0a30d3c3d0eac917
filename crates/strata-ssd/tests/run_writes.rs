//! A run's blocks are written outside the store's writer lock: while a
//! run's write is held at the device, the primary user appends into a new
//! block and flushes, and after a power cut both come back whole.

use crate::common;
use crate::users::{append_run, recover_with, run_payloads};

use std::sync::Arc;

use common::*;
use strata_device::MemBlockDevice;
use strata_ssd::{BlockLoc, SsdStore};

/// A device whose writes at or past `gate_from` wait while the gate is
/// shut: a run block's write held in flight while the primary flushes.
struct Gated {
    inner: MemBlockDevice,
    gate_from: std::sync::atomic::AtomicU64,
    open: (std::sync::Mutex<bool>, std::sync::Condvar),
    waiting: std::sync::atomic::AtomicBool,
}

impl strata_device::BlockDevice for Gated {
    fn capacity(&self) -> u64 {
        self.inner.capacity()
    }
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        self.inner.read_at(buf, offset)
    }
    fn write_at(&self, buf: &[u8], offset: u64) -> std::io::Result<()> {
        if offset >= self.gate_from.load(std::sync::atomic::Ordering::SeqCst) {
            self.waiting
                .store(true, std::sync::atomic::Ordering::SeqCst);
            let (lock, wake) = &self.open;
            let mut open = lock.lock().unwrap();
            while !*open {
                open = wake.wait(open).unwrap();
            }
        }
        self.inner.write_at(buf, offset)
    }
    fn sync(&self) -> std::io::Result<()> {
        self.inner.sync()
    }
    fn is_direct(&self) -> bool {
        true
    }
    fn space_reserved(&self) -> bool {
        true
    }
}

#[test]
fn the_primary_appends_and_flushes_while_a_run_is_being_written() {
    use std::sync::atomic::Ordering::SeqCst;
    use std::sync::mpsc;
    use std::time::Duration;
    for seed in 0..8u64 {
        let device = mem_device(32);
        let gated = Arc::new(Gated {
            inner: device.clone(),
            gate_from: std::sync::atomic::AtomicU64::new(u64::MAX),
            open: (std::sync::Mutex::new(false), std::sync::Condvar::new()),
            waiting: std::sync::atomic::AtomicBool::new(false),
        });
        let mut recovery = SsdStore::open(gated.clone(), config()).unwrap();
        recovery.scan(|_, _, _| {}).unwrap();
        let mut engine = Engine::new(recovery.finish().unwrap());
        for key in 0..10 {
            engine.put(key, 1, 900).unwrap();
        }
        engine.store.flush().unwrap();
        // Only the run writes until the gate reopens: its first block's
        // write (past the device header) waits there.
        gated.gate_from.store(BLOCK as u64, SeqCst);
        let payloads = run_payloads(6, seed);
        let store = engine.store.clone();
        let run = std::thread::spawn(move || append_run(&store, &payloads).map(|l| (l, payloads)));
        while !gated.waiting.load(SeqCst) {
            std::thread::yield_now();
        }
        gated.gate_from.store(u64::MAX, SeqCst);
        // The primary fills its block, opens one after the run's and
        // flushes, all while the run's write is held: runs do not hold
        // the writer lock while they write.
        let (done, primary_done) = mpsc::channel();
        let primary = std::thread::spawn(move || {
            for key in 10..90 {
                engine.put(key, 1, 900).unwrap();
            }
            engine.store.flush().unwrap();
            done.send(()).unwrap();
            engine
        });
        let waited = primary_done.recv_timeout(Duration::from_secs(20));
        *gated.open.0.lock().unwrap() = true;
        gated.open.1.notify_all();
        assert!(
            waited.is_ok(),
            "seed {seed}: the primary waited for the run's write"
        );
        let engine = primary.join().unwrap();
        let (locs, payloads) = run.join().unwrap().unwrap();
        engine.store.flush().unwrap();
        drop(engine);
        // Both the primary's entries and the run (marked by its owner)
        // come back whole after a power cut.
        let cut = device.crash_torn(seed);
        let marks: Vec<(BlockLoc, usize)> = locs
            .iter()
            .copied()
            .zip(payloads.iter().map(Vec::len))
            .collect();
        let engine = recover_with(&cut, &marks).unwrap();
        for key in 0..90 {
            assert_eq!(engine.get(key), Some(1), "seed {seed}");
        }
        for (loc, bytes) in locs.iter().zip(&payloads) {
            assert_eq!(engine.store.read(*loc).unwrap(), *bytes, "seed {seed}");
        }
    }
}
