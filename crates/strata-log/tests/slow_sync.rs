//! A slow device in `Async` mode: while the interval's sync takes long (a
//! busy disk: hundreds of milliseconds for one `fdatasync`), the records
//! appended meanwhile still reach the file within the write delay, so a
//! process crash (`kill -9`: the written bytes are in the page cache)
//! loses only what the delay allows, not the whole sync's duration; once
//! the device answers, they become durable. A failing background sync
//! poisons the log as a failing sync on the flusher's thread does.
//!
//! The device here is a `MemDirectory` whose syncs wait at a gate the
//! test opens (`common::SlowSync`): its content without `crash()` is what
//! a killed process leaves (written bytes), with `crash()` what a power
//! cut leaves.

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use strata_device::{Directory, MemDirectory};
use strata_log::{Durability, LogConfig, LogError};

use crate::common::{arc, open, replay_all, SlowSync};

/// Whether syncs wait, and how many were entered.
#[derive(Default)]
struct Gate {
    state: Mutex<(bool, u64)>,
    cv: Condvar,
}

impl Gate {
    fn close(&self) {
        self.state.lock().0 = true;
    }
    fn open(&self) {
        self.state.lock().0 = false;
        self.cv.notify_all();
    }
    fn pass(&self) {
        let mut s = self.state.lock();
        s.1 += 1;
        self.cv.notify_all();
        while s.0 {
            self.cv.wait(&mut s);
        }
    }
    /// Waits until a sync is held at the gate.
    fn wait_entered(&self, more_than: u64) {
        let mut s = self.state.lock();
        while s.1 <= more_than {
            self.cv.wait(&mut s);
        }
    }
    fn entered(&self) -> u64 {
        self.state.lock().1
    }
}

/// Opens the gate when dropped, so that a failed assertion does not leave
/// the log's close waiting at it.
struct OpenOnDrop(Arc<Gate>);

impl Drop for OpenOnDrop {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// A `MemDirectory` (returned too) whose syncs wait at the gate and fail
/// while `fail` is set.
struct Gated {
    dir: Arc<dyn Directory>,
    gate: Arc<Gate>,
    fail: Arc<Mutex<bool>>,
}

fn gated() -> (MemDirectory, Gated) {
    let mem = MemDirectory::new();
    let gate = Arc::new(Gate::default());
    let fail = Arc::new(Mutex::new(false));
    let (g, f) = (Arc::clone(&gate), Arc::clone(&fail));
    let dir = SlowSync::hooked(arc(&mem), move || {
        g.pass();
        match *f.lock() {
            true => Err(io::Error::other("injected sync failure")),
            false => Ok(()),
        }
    });
    let dir = Arc::new(dir) as Arc<dyn Directory>;
    (mem, Gated { dir, gate, fail })
}

fn async_10ms() -> LogConfig {
    LogConfig::new(Durability::Async {
        sync_interval: Duration::from_millis(10),
    })
}

/// Waits (up to 10 s) until the records written to `mem` (what a killed
/// process leaves) number `n`.
fn wait_written(mem: &MemDirectory, n: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let written = replay_all(mem as &dyn Directory).map_or(0, |r| r.len());
        if written >= n || Instant::now() > deadline {
            return written;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn records_reach_the_file_while_a_sync_is_held() {
    let (mem, dir) = gated();
    let (log, _) = open(Arc::clone(&dir.dir), async_10ms());
    // Declared after the log: dropped (the gate opened) before it.
    let _open = OpenOnDrop(Arc::clone(&dir.gate));
    log.append(1, b"first").unwrap();
    // The interval's sync of the first record is held at the gate.
    let before = dir.gate.entered();
    dir.gate.close();
    dir.gate.wait_entered(before);
    for i in 0..200u64 {
        log.append(2, &i.to_le_bytes()).unwrap();
    }
    // Written (a killed process keeps them) while the sync still waits;
    // before, the flusher was itself in that sync and wrote none.
    assert_eq!(wait_written(&mem, 201), 201, "{:?}", log.stats());
    assert!(log.durable_lsn() < 201, "{:?}", log.stats());
    dir.gate.open();
    let deadline = Instant::now() + Duration::from_secs(10);
    while log.durable_lsn() < 201 {
        assert!(Instant::now() < deadline, "not durable: {:?}", log.stats());
        std::thread::sleep(Duration::from_millis(1));
    }
    // A power cut now keeps them all.
    assert_eq!(
        replay_all(&mem.crash() as &dyn Directory).unwrap().len(),
        201
    );
    assert_eq!(log.close().unwrap(), 201);
}

#[test]
fn a_failed_background_sync_poisons_the_log() {
    let (mem, dir) = gated();
    let (log, _) = open(Arc::clone(&dir.dir), async_10ms());
    *dir.fail.lock() = true;
    log.append(1, b"lost on a power cut").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match log.append(1, b"more") {
            Err(LogError::Poisoned { .. }) => break,
            Err(e) => panic!("unexpected {e}"),
            Ok(_) => {}
        }
        assert!(
            Instant::now() < deadline,
            "never poisoned: {:?}",
            log.stats()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(log.durable_lsn(), 0);
    assert!(matches!(log.flush(), Err(LogError::Poisoned { .. })));
    // Nothing was ever synced: a power cut leaves no record.
    assert_eq!(replay_all(&mem.crash() as &dyn Directory).unwrap().len(), 0);
}
