//! strata-cache beside foyer's in-memory cache (`foyer-memory`), the
//! comparison issue 34 asks for before adopting foyer ("a good model;
//! adopting `foyer` itself is worth measuring against ours").
//!
//! ```sh
//! cargo bench -p strata-cache --bench versus_foyer            # 3 rounds
//! cargo bench -p strata-cache --bench versus_foyer -- --rounds 1 --scale 0.1
//! ```
//!
//! Each workload is the read-through pattern of Strata's users (the SSD
//! tier's record cache, search's block cache): a get, and on a miss an
//! insert of a freshly allocated value, from two threads at once. Keys
//! are drawn from a Zipf distribution; the scan workload adds one-pass
//! sequential reads of cold keys (every fourth operation), which a
//! scan-resistant policy keeps out of the hot set. The budget is 10% of
//! the data.
//!
//! Contenders, each in its own child process (this binary run again) so
//! that its resident memory is its own, in interleaved rounds:
//! - `strata`: [`strata_cache::Cache`], S3-FIFO, whose budget bounds
//!   resident memory (values as the allocator sizes them, tables, queues);
//! - `foyer-s3fifo` and `foyer-lfu` (foyer's default, w-TinyLFU): the same
//!   nominal budget as foyer's capacity, each entry weighed as its key and
//!   value bytes, as foyer's users weigh them;
//! - `foyer-s3fifo@rss`: foyer's S3-FIFO with its capacity scaled so that
//!   its resident memory matches strata's in the same round (a
//!   like-for-like hit ratio).
//!
//! Printed per workload and contender: hit ratio over the second half of
//! the operations, throughput (million operations per second, both
//! threads), resident growth (MiB, after returning freed pages), medians
//! over the rounds.

use std::process::Command;
use std::time::Instant;

use bytes::Bytes;
use foyer_memory::{CacheBuilder, LfuConfig, S3FifoConfig};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Zipf};

#[path = "../tests/support/process_memory.rs"]
mod process_memory;
use process_memory::{purge_dirty_pages, resident};

/// Set in a child: the case to run (`contender workload capacity`).
const CHILD: &str = "VERSUS_FOYER_CASE";
const THREADS: u64 = 2;
/// The budget as a share of the data.
const BUDGET_SHARE: f64 = 0.10;

/// A workload: keys, value size, Zipf exponent, whether scans interleave.
#[derive(Clone, Copy)]
struct Workload {
    name: &'static str,
    keys: u64,
    value: usize,
    zipf: f64,
    scans: bool,
    /// Operations per thread.
    ops: u64,
}

const WORKLOADS: [Workload; 3] = [
    Workload {
        name: "records: zipf 0.99, 100 B",
        keys: 2_000_000,
        value: 100,
        zipf: 0.99,
        scans: false,
        ops: 4_000_000,
    },
    Workload {
        name: "blocks: zipf 0.99, 4 KiB",
        keys: 200_000,
        value: 4096,
        zipf: 0.99,
        scans: false,
        ops: 1_000_000,
    },
    Workload {
        name: "blocks + scans: zipf 0.99, 4 KiB",
        keys: 200_000,
        value: 4096,
        zipf: 0.99,
        scans: true,
        ops: 1_000_000,
    },
];

const CONTENDERS: [&str; 4] = ["strata", "foyer-s3fifo", "foyer-lfu", "foyer-s3fifo@rss"];

impl Workload {
    fn scaled(mut self, scale: f64) -> Self {
        self.keys = ((self.keys as f64 * scale) as u64).max(1_000);
        self.ops = ((self.ops as f64 * scale) as u64).max(10_000);
        self
    }

    fn budget(&self) -> u64 {
        ((self.keys * self.value as u64) as f64 * BUDGET_SHARE) as u64
    }
}

/// What a child measured.
#[derive(Clone, Copy, Default)]
struct Measured {
    hit_ratio: f64,
    mops: f64,
    grown: u64,
}

/// A read-through cache as the benchmark drives it.
trait ReadThrough: Sync {
    /// Whether `key` was cached; inserts `make()` when it was not.
    fn read(&self, key: u64, make: &dyn Fn() -> Bytes) -> bool;
}

impl ReadThrough for strata_cache::Cache<u64, ()> {
    fn read(&self, key: u64, make: &dyn Fn() -> Bytes) -> bool {
        if self.get(&key, &()).is_some() {
            return true;
        }
        self.insert(key, (), make());
        false
    }
}

impl ReadThrough for foyer_memory::Cache<u64, Bytes> {
    fn read(&self, key: u64, make: &dyn Fn() -> Bytes) -> bool {
        if self.get(&key).is_some() {
            return true;
        }
        self.insert(key, make());
        false
    }
}

/// Runs `w` against `cache` from [`THREADS`] threads.
fn drive(cache: &dyn ReadThrough, w: Workload) -> (f64, f64) {
    let zipf = Zipf::new(w.keys, w.zipf).expect("a valid Zipf distribution");
    let started = Instant::now();
    let (hits, counted) = std::thread::scope(|s| {
        let runs: Vec<_> = (0..THREADS)
            .map(|t| {
                s.spawn(move || {
                    let mut rng = SmallRng::seed_from_u64(0x5eed + t);
                    let make = || Bytes::from(vec![t as u8; w.value]);
                    // Scans walk the coldest half of the key space.
                    let mut scan = w.keys / 2 + t * (w.keys / 4);
                    let (mut hits, mut counted) = (0u64, 0u64);
                    for op in 0..w.ops {
                        let key = if w.scans && op % 4 == 3 {
                            scan = if scan + 1 >= w.keys {
                                w.keys / 2
                            } else {
                                scan + 1
                            };
                            scan
                        } else {
                            // Hot keys spread over the space, not 0..k.
                            (zipf.sample(&mut rng) as u64 - 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
                                % w.keys
                        };
                        let hit = cache.read(key, &make);
                        if op >= w.ops / 2 {
                            counted += 1;
                            hits += u64::from(hit);
                        }
                    }
                    (hits, counted)
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("a bench thread"))
            .fold((0, 0), |(h, c), (h2, c2)| (h + h2, c + c2))
    });
    let secs = started.elapsed().as_secs_f64();
    (
        hits as f64 / counted.max(1) as f64,
        (w.ops * THREADS) as f64 / secs / 1e6,
    )
}

/// The child: builds one contender with `capacity`, runs, prints.
fn child(spec: &str) {
    let mut parts = spec.split(' ');
    let contender = parts.next().unwrap_or_default();
    let workload: usize = parts
        .next()
        .and_then(|p| p.parse().ok())
        .expect("workload index");
    let scale: f64 = parts.next().and_then(|p| p.parse().ok()).expect("scale");
    let capacity: u64 = parts.next().and_then(|p| p.parse().ok()).expect("capacity");
    let w = WORKLOADS[workload].scaled(scale);
    let before = resident();
    let weigh = |_: &u64, v: &Bytes| 8 + v.len();
    let cache: Box<dyn ReadThrough> = match contender {
        "strata" => Box::new(strata_cache::Cache::<u64, ()>::new(capacity)),
        "foyer-s3fifo" | "foyer-s3fifo@rss" => Box::new(
            CacheBuilder::new(capacity as usize)
                .with_shards(16)
                .with_eviction_config(S3FifoConfig::default())
                .with_weighter(weigh)
                .build(),
        ),
        "foyer-lfu" => Box::new(
            CacheBuilder::new(capacity as usize)
                .with_shards(16)
                .with_eviction_config(LfuConfig::default())
                .with_weighter(weigh)
                .build(),
        ),
        other => panic!("unknown contender {other}"),
    };
    let (hit_ratio, mops) = drive(&*cache, w);
    purge_dirty_pages();
    let grown = resident().saturating_sub(before);
    println!("MEASURED {hit_ratio} {mops} {grown}");
}

fn run_child(contender: &str, workload: usize, scale: f64, capacity: u64) -> Measured {
    let out = Command::new(std::env::current_exe().expect("this binary"))
        .env(CHILD, format!("{contender} {workload} {scale} {capacity}"))
        .output()
        .expect("the bench runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("MEASURED "))
        .unwrap_or_else(|| {
            panic!(
                "{contender}: no measurement: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let f: Vec<f64> = line.split(' ').filter_map(|x| x.parse().ok()).collect();
    Measured {
        hit_ratio: f[0],
        mops: f[1],
        grown: f[2] as u64,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    let args: Vec<String> = std::env::args().collect();
    // `--rounds N` and `--scale F`; a value that does not parse is an
    // error, not the default.
    let value_of = |name: &str| -> Option<f64> {
        let i = args.iter().position(|a| a == name)?;
        let text = args.get(i + 1).map_or("", String::as_str);
        match text.parse() {
            Ok(v) => Some(v),
            Err(_) => panic!("{name} needs a number, not {text:?}"),
        }
    };
    let rounds = value_of("--rounds").map_or(3, |v| v as usize).max(1);
    let scale = value_of("--scale").unwrap_or(1.0);
    assert!(scale > 0.0, "--scale must be above 0");
    println!("strata-cache vs foyer-memory: {THREADS} threads, budget {:.0}% of the data, {rounds} rounds (medians)", BUDGET_SHARE * 100.0);
    println!(
        "| workload | contender | capacity (MiB) | hit ratio | Mops/s | resident growth (MiB) |"
    );
    println!("|---|---|---:|---:|---:|---:|");
    for (i, base) in WORKLOADS.iter().enumerate() {
        let w = base.scaled(scale);
        let budget = w.budget();
        let mut results: Vec<Vec<(u64, Measured)>> = vec![Vec::new(); CONTENDERS.len()];
        for _ in 0..rounds {
            let mut strata_grown = 0;
            let mut foyer_grown = 0;
            for (c, contender) in CONTENDERS.iter().enumerate() {
                let capacity = if *contender == "foyer-s3fifo@rss" {
                    // foyer's capacity scaled to strata's resident memory.
                    (budget as f64 * strata_grown as f64 / foyer_grown.max(1) as f64) as u64
                } else {
                    budget
                }
                .max(1 << 20);
                let m = run_child(contender, i, scale, capacity);
                match *contender {
                    "strata" => strata_grown = m.grown,
                    "foyer-s3fifo" => foyer_grown = m.grown,
                    _ => {}
                }
                results[c].push((capacity, m));
            }
        }
        for (c, contender) in CONTENDERS.iter().enumerate() {
            let r = &results[c];
            let cap = median(r.iter().map(|(cap, _)| *cap as f64).collect());
            let hit = median(r.iter().map(|(_, m)| m.hit_ratio).collect());
            let mops = median(r.iter().map(|(_, m)| m.mops).collect());
            let grown = median(r.iter().map(|(_, m)| m.grown as f64).collect());
            println!(
                "| {} | {contender} | {:.1} | {hit:.4} | {mops:.2} | {:.1} |",
                w.name,
                cap / 1048576.0,
                grown / 1048576.0
            );
        }
    }
}
