//! Running the load: open every connection, then drive each from its own tokio task until
//! the request budget or the deadline is reached, and merge what the tasks measured.
//!
//! Phases: all connections are opened (and authenticated) before the clock starts; batches
//! begun before the end of warm-up are sent but not recorded; a measured batch first claims
//! its requests from the shared budget, so a `--requests N` run issues exactly `N` measured
//! requests whatever the number of connections.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tokio::task::JoinSet;

use super::args::KvArgs;
use super::conn::Connection;
use super::control::Control;
use super::keys::{write_key, KeySpace};
use super::mix::OpMix;
use super::progress::Progress;
use super::report::KvResult;
use super::server_cpu::PhaseCpu;
use super::stats::{ConnStats, Timeline};
use super::target::{config, open_all, Target};
use super::workload::Requests;
use crate::LabError;

/// Everything a connection task needs besides its socket.
struct Workload {
    args: KvArgs,
    requests: Requests,
    keys: KeySpace,
    value: Vec<u8>,
    seed: u64,
    control: Arc<Control>,
    timeline: Option<Arc<Timeline>>,
}

/// Runs the request-mix benchmark described by `args` against `target`
/// (the queue workload has its own runner, [`super::queue`]).
pub(crate) async fn run(args: &KvArgs, target: &Target) -> Result<KvResult, LabError> {
    let addr = target.addr();
    let connections = open_all(args, &addr).await?;
    let seed = args.seed.unwrap_or_else(rand::random);

    let started = Instant::now();
    let measure_start = started + Duration::from_secs_f64(args.warmup);
    let cpu = PhaseCpu::begin_at(target.pid, measure_start);
    let workload = Arc::new(Workload {
        keys: args.key_space()?,
        value: value_bytes(args.value_size),
        seed,
        control: Arc::new(Control {
            measure_start,
            deadline: args.measure_duration().map(|d| measure_start + d),
            budget: args.requests.map(AtomicU64::new),
            stop: AtomicBool::new(false),
            measured: AtomicU64::new(0),
        }),
        timeline: args.timeline.then(Arc::default),
        requests: Requests::new(args.workload, args.protocol, args.fields, args.range),
        args: args.clone(),
    });
    let progress = Progress::start(args, Arc::clone(&workload.control), started);

    let mut tasks = JoinSet::new();
    for (index, conn) in connections.into_iter().enumerate() {
        let workload = Arc::clone(&workload);
        tasks.spawn(async move {
            let outcome = drive(conn, &workload, index as u64).await;
            if outcome.is_err() {
                workload.control.stop.store(true, Ordering::Relaxed);
            }
            outcome
        });
    }
    let mut total = ConnStats::new(None, measure_start);
    let mut first_error = None;
    while let Some(joined) = tasks.join_next().await {
        match joined.map_err(LabError::Task).and_then(|outcome| outcome) {
            Ok(stats) => total.merge(&stats),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    progress.finish();
    if let Some(e) = first_error {
        return Err(e);
    }

    let end = total
        .last_reply
        .unwrap_or_else(Instant::now)
        .max(measure_start);
    let elapsed = end - measure_start;
    let cpu = cpu.end(total.ops(), elapsed.as_secs_f64()).await?;
    let mut result = total.result(config(args, target, seed), elapsed, cpu);
    result.timeline = workload.timeline.as_ref().map(|t| t.seconds(elapsed));
    Ok(result)
}

/// One connection's loop: build a batch, exchange it, record it if measured.
async fn drive(mut conn: Connection, work: &Workload, index: u64) -> Result<ConnStats, LabError> {
    let (args, control) = (&work.args, &work.control);
    // Distinct, reproducible streams per connection (golden-ratio spacing of seeds).
    let mut rng = SmallRng::seed_from_u64(work.seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // Stagger the set/get cycles so connections do not all set at once.
    let mut mix = OpMix::new(args.ratio, index);
    let mut stats = ConnStats::new(work.timeline.clone(), control.measure_start);
    let pipeline = args.pipeline as u64;
    let (mut request, mut ops, mut key) =
        (Vec::new(), Vec::with_capacity(args.pipeline), Vec::new());
    loop {
        if control.stop.load(Ordering::Relaxed) {
            break;
        }
        let now = Instant::now();
        let measured = now >= control.measure_start;
        let batch = if !measured {
            pipeline
        } else if control.deadline.is_some_and(|d| now >= d) {
            0
        } else {
            control.claim(pipeline)
        };
        if batch == 0 {
            break;
        }
        request.clear();
        ops.clear();
        for _ in 0..batch {
            let op = mix.next_op();
            key.clear();
            write_key(
                &mut key,
                args.key_prefix.as_bytes(),
                work.keys.next_key(op, &mut rng),
            );
            // The hash field or sorted-set member, for the type workloads.
            let field = rng.gen_range(0..work.requests.fields());
            work.requests
                .encode(op, &mut request, &key, &work.value, field);
            ops.push(op);
        }
        let sent = Instant::now();
        conn.exchange(&request, &ops, |op, kind, reply, done| {
            if measured {
                stats.record(op, work.requests.classify(op, kind, reply), sent, done);
            }
        })
        .await?;
        if measured {
            control.measured.fetch_add(batch, Ordering::Relaxed);
        }
    }
    stats.finish();
    Ok(stats)
}

/// The stored value: `value_size` bytes cycling through digits and lowercase letters.
pub(crate) fn value_bytes(value_size: usize) -> Vec<u8> {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    ALPHABET.iter().copied().cycle().take(value_size).collect()
}
