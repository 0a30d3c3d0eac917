//! kill -9 loop of `strata bench tpcc` with a log: a child runs TPC-C's
//! full mix, appending every durably acknowledged NewOrder (its ORDER key)
//! and Payment (its HISTORY key) to a file; it is killed at a random
//! moment; the database is then recovered in this process, must satisfy
//! TPC-C's consistency conditions, and must hold every acknowledged
//! order and payment. The next child recovers the same log and goes on.
//! Concurrency control alternates; checkpoints run every 0.7 s. Two
//! cycles; ten with `STRATA_TEST_FULL=1`, `STRATA_CRASH_CYCLES=N` exactly N.

use crate::scale;

use std::io::Read as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::Rng;
use strata_tpcc::consistency::check;
use strata_tpcc::schema::{self, Tables};
use strata_tpcc::Mix;
use strata_txn::{Database, LogDevice, NoWait, Options};

fn strata() -> &'static str {
    env!("CARGO_BIN_EXE_strata")
}

fn cycles() -> usize {
    scale::count("STRATA_CRASH_CYCLES", 2, 10)
}

fn ack_lines(path: &Path) -> Vec<(char, u64)> {
    let mut text = String::new();
    if let Ok(mut f) = std::fs::File::open(path) {
        f.read_to_string(&mut text).unwrap();
    }
    // A line cut by the kill has no newline: ignore it.
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    complete
        .lines()
        .map(|l| {
            let (kind, key) = l.split_once(' ').expect("kind and key");
            (kind.chars().next().unwrap(), key.parse().expect("key"))
        })
        .collect()
}

/// Kills the child when dropped, so that a failing check never leaves a
/// ten-minute benchmark running.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn killed_tpcc_runs_lose_no_acknowledged_commit() {
    let base = if Path::new("/dev/shm").is_dir() {
        tempfile::tempdir_in("/dev/shm").unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let log_dir = base.path().join("log");
    let acks = base.path().join("acks");
    let mut rng = rand::thread_rng();
    for cycle in 0..cycles() {
        let cc = if cycle % 2 == 0 { "silo" } else { "no_wait" };
        let before = ack_lines(&acks).len();
        let child = Command::new(strata())
            .args([
                "bench",
                "tpcc",
                "--cc",
                cc,
                "--log",
                "ramdisk",
                "--keep",
                "--warehouses",
                "1",
            ])
            .args([
                "--threads",
                "2",
                "--duration",
                "600",
                "--warmup",
                "0",
                "--mix",
                "full",
            ])
            .args([
                "--no-progress",
                "--checkpoint-every",
                "0.7",
                "--epoch-ms",
                "10",
            ])
            .arg("--log-path")
            .arg(&log_dir)
            .arg("--ack-file")
            .arg(&acks)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut guard = KillOnDrop(child);
        let child = &mut guard.0;
        // Wait for acknowledgments of this run, then a random moment more.
        let deadline = Instant::now() + Duration::from_secs(120);
        while ack_lines(&acks).len() < before + 50 {
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                panic!("cycle {cycle}: the child exited ({status}): {err}");
            }
            assert!(
                Instant::now() < deadline,
                "cycle {cycle}: no acknowledgments"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(rng.gen_range(50..1500)));
        child.kill().unwrap();
        child.wait().unwrap();
        drop(guard);

        let acked = ack_lines(&acks);
        let options = Options::default()
            .with_max_workers(2)
            .with_log(LogDevice::Ramdisk {
                path: log_dir.clone(),
            });
        let db = Database::<NoWait>::open(options, schema::tables().unwrap()).unwrap();
        check(&db, Mix::Full).unwrap_or_else(|e| panic!("cycle {cycle}: {e}"));
        let t = Tables::of(&db).unwrap();
        let mut worker = db.worker().unwrap();
        let mut order = db.new_row(t.order).unwrap();
        let mut history = db.new_row(t.history).unwrap();
        let mut txn = worker.begin();
        for &(kind, key) in &acked {
            let found = match kind {
                'o' => txn.read(t.order, key, &mut order).unwrap(),
                _ => txn.read(t.history, key, &mut history).unwrap(),
            };
            assert!(
                found,
                "cycle {cycle}: acknowledged {kind} {key:#x} lost ({} acks)",
                acked.len()
            );
        }
        drop(txn);
        eprintln!(
            "cycle {cycle} ({cc}): {} acknowledged commits checked; {:?}",
            acked.len(),
            db.recovery_report()
        );
    }
}
