//! What a worker writes next: a command over its own keys, drawn from its
//! seeded generator and the current states of its keys.
//!
//! Worker `w` owns the string keys `w<w>:s<n>` and the counters
//! `w<w>:n0`..`w<w>:n3`. RESP workers use every [`Op`]; memcached workers
//! only SET, DEL, INCRBY of an existing counter and APPEND to an existing
//! key, EXPIRE and PERSIST.
//!
//! Every write gives its key a value the key never had before, so a
//! recovered value names the write it came from: string values carry a
//! unique label (APPEND adds one), and counters only grow: INCRBY adds a
//! positive delta to an existing counter, and a counter is (re)created by
//! a SET above every value counters had before (`counter_value`).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::history::ConnectionLog;
use super::model::{Op, Protocol};

/// Counters per worker.
const COUNTERS: usize = 4;

/// String keys per worker at most: past this, "fresh" keys are old ones,
/// which keeps the keyspace (and the time to check it) bounded.
const MAX_STRING_KEYS: usize = 1000;

/// APPEND stops growing a value past this length (a SET replaces it).
const MAX_APPENDED_LEN: usize = 32 * 1024;

/// One worker's command generator for one server run.
pub struct Chooser {
    id: usize,
    /// Labels values, with `values_made`, so each is unique in a test.
    run: u64,
    values_made: u64,
    rng: StdRng,
    /// String keys it may pick (existing, or deleted during this run).
    string_keys: Vec<String>,
    next_fresh: u64,
}

impl Chooser {
    /// The generator of worker `id` in server run `run`, whose existing
    /// keys are `existing` and whose next fresh key is number `next_fresh`.
    pub fn new<'a>(
        id: usize,
        run: u64,
        seed: u64,
        existing: impl Iterator<Item = &'a String>,
        next_fresh: u64,
    ) -> Chooser {
        Chooser {
            id,
            run,
            values_made: 0,
            rng: StdRng::seed_from_u64(seed),
            string_keys: existing.filter(|k| k.contains(":s")).cloned().collect(),
            next_fresh,
        }
    }

    /// Number of the next fresh string key.
    pub fn next_fresh(&self) -> u64 {
        self.next_fresh
    }

    /// The next command for a connection over `protocol` whose keys
    /// stand as in `log`.
    pub fn next(&mut self, protocol: Protocol, log: &ConnectionLog) -> Op {
        match protocol {
            Protocol::Resp => self.next_resp(log),
            Protocol::Memcache => self.next_memcache(log),
        }
    }

    /// How many commands to send at once: mostly one, sometimes up to 16.
    pub fn batch_size(&mut self) -> usize {
        if self.rng.gen_bool(0.3) {
            self.rng.gen_range(2..=16)
        } else {
            1
        }
    }

    fn next_resp(&mut self, log: &ConnectionLog) -> Op {
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
            50..=62 => self.incr_counter(log),
            63..=65 => Op::Set {
                key: self.counter(),
                value: self.counter_value(),
                expire: false,
            },
            66..=75 => {
                let key = self.string_key();
                self.append_to(key, log)
            }
            76..=81 => Op::Expire {
                key: self.any_key(),
            },
            82..=87 => Op::Persist {
                key: self.any_key(),
            },
            88..=94 => self.mset(),
            _ => self.rename(log),
        }
    }

    /// The memcached subset: INCRBY only of an existing counter (else SET
    /// it), APPEND only to an existing key (else SET).
    fn next_memcache(&mut self, log: &ConnectionLog) -> Op {
        match self.rng.gen_range(0..100) {
            0..=29 => Op::Set {
                key: self.fresh_key(),
                value: self.value(),
                expire: self.rng.gen_bool(0.1),
            },
            30..=44 => Op::Set {
                key: self.string_key(),
                value: self.value(),
                expire: self.rng.gen_bool(0.1),
            },
            45..=54 => Op::Del {
                key: self.string_key(),
            },
            55..=56 => Op::Del {
                key: self.counter(),
            },
            57..=69 => self.incr_counter(log),
            70..=79 => {
                let key = self.string_key();
                if log.state(&key).exists() {
                    self.append_to(key, log)
                } else {
                    let value = self.value();
                    Op::Set {
                        key,
                        value,
                        expire: false,
                    }
                }
            }
            80..=89 => Op::Expire {
                key: self.any_key(),
            },
            _ => Op::Persist {
                key: self.any_key(),
            },
        }
    }

    /// INCRBY of an existing counter by a positive delta, or a SET that
    /// creates it (INCRBY of a missing counter would start at 0, a value
    /// it may have had before).
    fn incr_counter(&mut self, log: &ConnectionLog) -> Op {
        let key = self.counter();
        if log.state(&key).exists() {
            let delta = self.rng.gen_range(1..=1000);
            return Op::IncrBy { key, delta };
        }
        Op::Set {
            key,
            value: self.counter_value(),
            expire: false,
        }
    }

    /// A counter value above every one set or reached before in the test:
    /// values in run `r` start at `r * 10^15`, each SET `10^9` above the
    /// previous one (far more than the increments between two SETs).
    fn counter_value(&mut self) -> Vec<u8> {
        const PER_RUN: u64 = 1_000_000_000_000_000;
        const PER_SET: u64 = 1_000_000_000;
        self.values_made += 1;
        let value = self.run * PER_RUN + self.values_made * PER_SET;
        value.to_string().into_bytes()
    }

    /// APPEND to `key`, or SET it when its value is long already.
    fn append_to(&mut self, key: String, log: &ConnectionLog) -> Op {
        let len = log.state(&key).value.map_or(0, |v| v.len());
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

    fn rename(&mut self, log: &ConnectionLog) -> Op {
        for _ in 0..5 {
            let from = self.string_key();
            if !log.state(&from).exists() {
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

    /// A string key never used before, unless the worker has
    /// [`MAX_STRING_KEYS`] already.
    fn fresh_key(&mut self) -> String {
        if self.string_keys.len() >= MAX_STRING_KEYS {
            return self.string_key();
        }
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
