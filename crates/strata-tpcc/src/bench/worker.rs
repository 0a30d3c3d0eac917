//! One benchmark worker: draws its next input, runs it with the engine's
//! retries (counting the aborted attempts against its type), and keeps its
//! commits in a queue until the durable epoch covers them: the latency
//! recorded is from the first attempt to that acknowledgment.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use strata_txn::{ConcurrencyControl, Database, TxnError};

use crate::bench::args::TpccArgs;
use crate::bench::report::TypeCounts;
use crate::mix::{next_input, TxnType};
use crate::random::{Constants, TpccRng};
use crate::schema::Tables;
use crate::txns::{execute, Buffers, Output};

/// What the driver tells every worker: stop, the measured window has
/// begun, and where each counts its commits (for the progress bar).
pub(super) struct Control {
    pub(super) stop: AtomicBool,
    pub(super) measuring: AtomicBool,
    pub(super) committed: Vec<AtomicU64>,
}

/// What one worker counted in the measured window.
pub(super) struct WorkerResult {
    pub(super) per_type: BTreeMap<&'static str, TypeCounts>,
    pub(super) aborts: [u64; 3],
    pub(super) commits: u64,
    pub(super) latency: Histogram<u64>,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn worker<C: ConcurrencyControl>(
    db: &Database<C>,
    t: Tables,
    args: &TpccArgs,
    k: usize,
    constants: Constants,
    control: &Control,
    acks: Option<&std::fs::File>,
) -> Result<WorkerResult, String> {
    let mut worker = db.worker().map_err(|e| e.to_string())?;
    let mut bufs = Buffers::new(db, &t, k as u32).map_err(|e| e.to_string())?;
    let mut rng = TpccRng::new(
        args.seed.wrapping_mul(7919) ^ (k as u64 + 1) << 20,
        constants,
    );
    let home = k as u32 % args.warehouses + 1;
    let mut out = WorkerResult {
        per_type: TxnType::ALL
            .iter()
            .map(|t| (t.name(), TypeCounts::default()))
            .collect(),
        aborts: [0; 3],
        commits: 0,
        latency: Histogram::new_with_bounds(1, 600_000_000, 3).map_err(|e| e.to_string())?,
    };
    let mut pending: VecDeque<(u64, Instant, Output)> = VecDeque::new();
    let mut measuring = false;
    let per_worker_target = args.transactions.map(|n| n.div_ceil(args.threads as u64));
    while !control.stop.load(Ordering::Relaxed) {
        if !measuring && control.measuring.load(Ordering::Relaxed) {
            measuring = true;
            worker.reset_stats();
            pending.clear();
        }
        let input = next_input(args.mix, &mut rng, home, args.warehouses);
        let before = worker.stats();
        let start = Instant::now();
        let result = worker.run(|txn| execute(txn, &t, &mut bufs, args.mix, &input));
        let aborted = worker.stats().total_aborts() - before.total_aborts();
        let counts = out
            .per_type
            .get_mut(input.kind().name())
            .expect("every type");
        match result {
            Ok((output, commit)) => {
                if measuring {
                    counts.commits += 1;
                    counts.aborts += aborted;
                    out.commits += 1;
                    control.committed[k].fetch_add(1, Ordering::Relaxed);
                }
                pending.push_back((commit.epoch, start, output));
            }
            Err(TxnError::UserAbort) => {
                if measuring {
                    counts.rollbacks += 1;
                    counts.aborts += aborted.saturating_sub(1);
                }
            }
            Err(e) => return Err(format!("{} failed: {e}", input.kind().name())),
        }
        drain(db, &mut pending, &mut out.latency, measuring, acks)?;
        if let Some(target) = per_worker_target {
            if measuring && out.commits >= target {
                break;
            }
        }
    }
    // Acknowledge what is still pending (the epoch thread keeps going).
    let deadline = Instant::now() + Duration::from_secs(5);
    while !pending.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
        drain(db, &mut pending, &mut out.latency, measuring, acks)?;
    }
    let stats = worker.stats();
    out.aborts = stats.aborts;
    Ok(out)
}

/// Acknowledges the pending commits the durable epoch now covers:
/// records their latency (when measuring) and writes them to the
/// acknowledgment file, if any.
fn drain<C: ConcurrencyControl>(
    db: &Database<C>,
    pending: &mut VecDeque<(u64, Instant, Output)>,
    latency: &mut Histogram<u64>,
    measuring: bool,
    acks: Option<&std::fs::File>,
) -> Result<(), String> {
    let durable = db.durable_epoch();
    while let Some(&(epoch, start, output)) = pending.front() {
        if epoch > durable {
            break;
        }
        pending.pop_front();
        if measuring {
            latency.saturating_record(start.elapsed().as_micros().max(1) as u64);
        }
        if let Some(mut file) = acks {
            let line = match output {
                Output::Order(key) => format!("o {key}\n"),
                Output::History(key) => format!("h {key}\n"),
                Output::None => continue,
            };
            file.write_all(line.as_bytes())
                .map_err(|e| format!("ack file: {e}"))?;
        }
    }
    if let Some(failure) = db.log_failure() {
        return Err(format!("the log failed: {failure}"));
    }
    Ok(())
}
