//! A client thread writing its own keys over one connection, sometimes
//! pipelining up to 16 commands, recording every command before it is sent
//! and every reply as it arrives.
//!
//! Worker `w` owns the string keys `w<w>:s<n>` and the counters
//! `w<w>:n0`..`w<w>:n3`; no other connection writes them.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::history::ConnectionLog;
use super::model::{KeyState, Op};
use super::resp::RespConn;

/// Counters per worker.
const COUNTERS: usize = 4;

/// APPEND stops growing a value past this length (a SET replaces it).
const MAX_APPENDED_LEN: usize = 32 * 1024;

/// What a worker carries from one server run to the next.
#[derive(Clone)]
pub struct WorkerKeys {
    pub id: usize,
    /// The keys it owns that exist, with their states.
    pub states: BTreeMap<String, KeyState>,
    /// Number of the next fresh string key.
    pub next_fresh: u64,
}

impl WorkerKeys {
    /// Worker `id` with no keys yet.
    pub fn new(id: usize) -> WorkerKeys {
        WorkerKeys {
            id,
            states: BTreeMap::new(),
            next_fresh: 0,
        }
    }
}

/// Why a worker stopped.
#[derive(Debug)]
pub enum Ended {
    /// It saw the stop flag.
    Stopped,
    /// The connection failed (expected once the server is killed).
    Disconnected(std::io::Error),
    /// The server gave a reply the model did not expect.
    WrongReply(String),
}

/// A finished worker's record.
pub struct WorkerRun {
    pub id: usize,
    pub log: ConnectionLog,
    pub ended: Ended,
    pub next_fresh: u64,
}

impl WorkerRun {
    /// The worker's keys after every command it sent, for a next run on the
    /// same server process (valid only when every command was answered).
    pub fn final_keys(&self) -> WorkerKeys {
        WorkerKeys {
            id: self.id,
            states: self.log.final_states(),
            next_fresh: self.next_fresh,
        }
    }
}

/// A worker thread in progress.
pub struct Worker {
    handle: JoinHandle<WorkerRun>,
}

impl Worker {
    /// Starts worker `keys.id` against `addr`, its choices drawn from
    /// `seed`; it writes until `stop` is set or the connection fails.
    /// `run` labels values, so every value written is unique in a test.
    pub fn start(
        addr: SocketAddr,
        keys: WorkerKeys,
        run: u64,
        seed: u64,
        origin: Instant,
        stop: Arc<AtomicBool>,
    ) -> Worker {
        let handle = std::thread::spawn(move || {
            let mut writer = Writer {
                id: keys.id,
                run,
                rng: StdRng::seed_from_u64(seed),
                string_keys: keys.states.keys().filter(|k| is_string_key(k)).cloned().collect(),
                log: ConnectionLog::new(format!("worker {}", keys.id), origin, keys.states),
                next_fresh: keys.next_fresh,
                values_made: 0,
            };
            let ended = writer.write_until(addr, &stop);
            WorkerRun {
                id: writer.id,
                log: writer.log,
                ended,
                next_fresh: writer.next_fresh,
            }
        });
        Worker { handle }
    }

    /// Waits up to `timeout` for the worker to end; panics if it does not.
    pub fn join(self, timeout: Duration) -> WorkerRun {
        let deadline = Instant::now() + timeout;
        while !self.handle.is_finished() {
            assert!(Instant::now() < deadline, "a worker did not end within {timeout:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
        self.handle.join().expect("worker thread panicked")
    }
}

fn is_string_key(key: &str) -> bool {
    key.contains(":s")
}

struct Writer {
    id: usize,
    run: u64,
    rng: StdRng,
    /// String keys it may pick (existing or deleted during this run).
    string_keys: Vec<String>,
    log: ConnectionLog,
    next_fresh: u64,
    values_made: u64,
}

impl Writer {
    fn write_until(&mut self, addr: SocketAddr, stop: &AtomicBool) -> Ended {
        let mut conn = match RespConn::connect(addr) {
            Ok(conn) => conn,
            Err(e) => return Ended::Disconnected(e),
        };
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ended::Stopped;
            }
            let batch = if self.rng.gen_bool(0.3) {
                self.rng.gen_range(2..=16)
            } else {
                1
            };
            let mut pending = Vec::with_capacity(batch);
            let mut commands = Vec::with_capacity(batch);
            let now = Instant::now();
            for _ in 0..batch {
                let op = self.next_op();
                commands.push(op.command());
                pending.push(self.log.sent(op, now));
            }
            if let Err(e) = conn.send(&commands) {
                return Ended::Disconnected(e);
            }
            for (index, expected) in pending {
                let reply = match conn.read_reply() {
                    Ok(reply) => reply,
                    Err(e) => return Ended::Disconnected(e),
                };
                self.log.acked(index, Instant::now());
                if reply != expected {
                    return Ended::WrongReply(format!(
                        "worker {}: {:?} replied {reply:?}, expected {expected:?}",
                        self.id,
                        self.log.ops()[index].op
                    ));
                }
            }
        }
    }

    fn next_op(&mut self) -> Op {
        match self.rng.gen_range(0..100) {
            0..=24 => Op::Set {
                key: self.fresh_key(),
                value: self.value(),
                expire: self.rng.gen_bool(0.1),
            },
            25..=39 => Op::Set {
                key: self.string_key(),
                value: self.value(),
                expire: self.rng.gen_bool(0.1),
            },
            40..=47 => Op::Del {
                key: self.string_key(),
            },
            48..=49 => Op::Del {
                key: self.counter(),
            },
            50..=62 => Op::IncrBy {
                key: self.counter(),
                delta: self.rng.gen_range(-1000..=1000),
            },
            63..=65 => Op::Set {
                key: self.counter(),
                value: self.rng.gen_range(-1_000_000..1_000_000i64).to_string().into_bytes(),
                expire: false,
            },
            66..=75 => self.append(),
            76..=81 => Op::Expire {
                key: self.any_key(),
            },
            82..=87 => Op::Persist {
                key: self.any_key(),
            },
            88..=94 => self.mset(),
            _ => self.rename(),
        }
    }

    fn append(&mut self) -> Op {
        let key = self.string_key();
        let len = self.log.state(&key).value.map_or(0, |v| v.len());
        if len > MAX_APPENDED_LEN {
            return Op::Set {
                key,
                value: self.value(),
                expire: false,
            };
        }
        Op::Append {
            key,
            chunk: self.value(),
        }
    }

    fn mset(&mut self) -> Op {
        let count = self.rng.gen_range(2..=3);
        let mut pairs: Vec<(String, Vec<u8>)> = Vec::new();
        while pairs.len() < count {
            let key = if self.rng.gen_bool(0.5) {
                self.fresh_key()
            } else {
                self.string_key()
            };
            if pairs.iter().all(|(k, _)| *k != key) {
                let value = self.value();
                pairs.push((key, value));
            }
        }
        Op::MSet { pairs }
    }

    fn rename(&mut self) -> Op {
        for _ in 0..5 {
            let from = self.string_key();
            if !self.log.state(&from).exists() {
                continue;
            }
            let to = if self.rng.gen_bool(0.5) {
                self.fresh_key()
            } else {
                self.string_key()
            };
            if to != from {
                return Op::Rename { from, to };
            }
        }
        Op::Set {
            key: self.fresh_key(),
            value: self.value(),
            expire: false,
        }
    }

    /// A string key never used before.
    fn fresh_key(&mut self) -> String {
        let key = format!("w{}:s{}", self.id, self.next_fresh);
        self.next_fresh += 1;
        self.string_keys.push(key.clone());
        key
    }

    /// A string key used before (fresh if there is none).
    fn string_key(&mut self) -> String {
        if self.string_keys.is_empty() {
            return self.fresh_key();
        }
        let pick = self.rng.gen_range(0..self.string_keys.len());
        self.string_keys[pick].clone()
    }

    fn counter(&mut self) -> String {
        format!("w{}:n{}", self.id, self.rng.gen_range(0..COUNTERS))
    }

    fn any_key(&mut self) -> String {
        if self.rng.gen_bool(0.7) {
            self.string_key()
        } else {
            self.counter()
        }
    }

    /// A value no other write in the test uses: a unique label, then
    /// filler of a random length (mostly short, sometimes tens of KiB).
    fn value(&mut self) -> Vec<u8> {
        let mut value = format!("r{}.w{}.{}:", self.run, self.id, self.values_made).into_bytes();
        self.values_made += 1;
        let len = match self.rng.gen_range(0..100) {
            0..=79 => self.rng.gen_range(0..200),
            80..=96 => self.rng.gen_range(200..4000),
            _ => self.rng.gen_range(4000..40_000),
        };
        value.extend((0..len).map(|_| self.rng.sample(rand::distributions::Alphanumeric)));
        value
    }
}
