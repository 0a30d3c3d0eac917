//! `--workload queue`: a job queue on Redis lists. `--connections` producers LPUSH unique
//! elements onto `--queues` lists (`{prefix}queue:0`, ...), `--consumers` consumers BLPOP
//! from all of them with `--pop-timeout`; at the end every acknowledged element must have
//! been popped exactly once ([`QueueCheck`]).
//!
//! Phases: producers run for the warm-up and the measured phase (or `--requests` pushes),
//! pipelining `--pipeline` LPUSHes per batch; consumers send one BLPOP at a time. When the
//! producers stop, the measured phase ends (CPU readings are taken then) and the consumers
//! drain the lists: each leaves when a BLPOP times out. Latency is recorded for both
//! commands (a BLPOP's includes its wait for an element); sets are pushes, gets are BLPOPs,
//! hits the BLPOPs that returned an element, misses those that timed out.
//!
//! - `element`: the element format and its check.
//! - `ledger`: counting deliveries against acknowledgements.

mod element;
mod ledger;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use self::element::{ElementId, Parsed};
pub use self::ledger::QueueCheck;
use self::ledger::{Pushed, Strays};
use super::args::KvArgs;
use super::conn::Connection;
use super::control::Control;
use super::protocol::{resp, Op, ReplyKind};
use super::report::KvResult;
use super::server_cpu::PhaseCpu;
use super::stats::ConnStats;
use super::target::{config, open_all, Target};
use crate::LabError;

/// What the producer and consumer tasks share.
struct Shared {
    control: Control,
    /// Set when the producers have stopped: later pops are the drain, not measured.
    producers_done: AtomicBool,
    /// Elements popped during the measured phase.
    delivered_measured: AtomicU64,
    tag: u32,
    value_size: usize,
    pipeline: u64,
    queue_keys: Vec<Vec<u8>>,
    /// The encoded `BLPOP q0 .. qN timeout` every consumer sends.
    blpop: Vec<u8>,
}

/// Runs the queue workload against `target`.
pub(crate) async fn run(args: &KvArgs, target: &Target) -> Result<KvResult, LabError> {
    let producers = args.connections;
    let consumers = args.consumers.unwrap_or(producers);
    let mut all = args.clone();
    all.connections = producers + consumers;
    let mut conns = open_all(&all, &target.addr()).await?;
    let seed = args.seed.unwrap_or_else(rand::random);
    let queue_keys: Vec<Vec<u8>> = (0..args.queues)
        .map(|q| format!("{}queue:{q}", args.key_prefix).into_bytes())
        .collect();
    let timeout = format!("{}", args.pop_timeout);
    let mut blpop_args: Vec<&[u8]> = vec![b"BLPOP"];
    blpop_args.extend(queue_keys.iter().map(Vec::as_slice));
    blpop_args.push(timeout.as_bytes());
    let mut blpop = Vec::new();
    resp::encode_command(&mut blpop, &blpop_args);

    let started = Instant::now();
    let measure_start = started + Duration::from_secs_f64(args.warmup);
    let shared = Arc::new(Shared {
        control: Control {
            measure_start,
            deadline: args.measure_duration().map(|d| measure_start + d),
            budget: args.requests.map(AtomicU64::new),
            stop: AtomicBool::new(false),
            measured: AtomicU64::new(0),
        },
        producers_done: AtomicBool::new(false),
        delivered_measured: AtomicU64::new(0),
        tag: (seed ^ (seed >> 32)) as u32,
        value_size: args.value_size,
        pipeline: args.pipeline as u64,
        queue_keys,
        blpop,
    });
    let cpu = PhaseCpu::begin_at(target.pid, measure_start);

    let mut consumer_tasks = JoinSet::new();
    for _ in 0..consumers {
        let (conn, shared) = (conns.pop().expect("opened"), Arc::clone(&shared));
        consumer_tasks
            .spawn(async move { stopping_on_error(&shared, consume(conn, &shared)).await });
    }
    let mut producer_tasks = JoinSet::new();
    for (index, conn) in conns.into_iter().enumerate() {
        let shared = Arc::clone(&shared);
        let index = u32::try_from(index).expect("connection count fits u32");
        producer_tasks
            .spawn(async move { stopping_on_error(&shared, produce(conn, &shared, index)).await });
    }

    let mut total = ConnStats::new(None, measure_start);
    let mut pushed = vec![Pushed::default(); producers];
    let mut first_error = None;
    while let Some(joined) = producer_tasks.join_next().await {
        match joined.map_err(LabError::Task).and_then(|r| r) {
            Ok((index, stats, record)) => {
                total.merge(&stats);
                pushed[index as usize] = record;
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let measure_end = Instant::now().max(measure_start);
    shared.producers_done.store(true, Ordering::Relaxed);
    let cpu = cpu.end_samples().await?;

    let (mut popped, mut strays) = (Vec::new(), Strays::default());
    while let Some(joined) = consumer_tasks.join_next().await {
        match joined.map_err(LabError::Task).and_then(|r| r) {
            Ok((stats, ids, stray)) => {
                total.merge(&stats);
                popped.extend(ids);
                strays.foreign += stray.foreign;
                strays.corrupt += stray.corrupt;
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let drain_secs = measure_end.elapsed().as_secs_f64();
    let elapsed = measure_end - measure_start;
    let secs = elapsed.as_secs_f64().max(1e-9);
    let cpu = cpu.usage(total.ops(), elapsed.as_secs_f64());

    let mut check = QueueCheck::count(&pushed, &popped, strays);
    check.consumers = consumers;
    check.queues = args.queues;
    check.left_in_queues = left_in_queues(args, target, &shared.queue_keys).await?;
    check.delivered_per_sec = shared.delivered_measured.load(Ordering::Relaxed) as f64 / secs;
    check.drain_secs = drain_secs;
    let mut result = total.result(config(args, target, seed), elapsed, cpu);
    result.queue = Some(check);
    Ok(result)
}

/// Runs `task`, raising the stop flag if it fails so the other tasks end early.
async fn stopping_on_error<T>(
    shared: &Shared,
    task: impl std::future::Future<Output = Result<T, LabError>>,
) -> Result<T, LabError> {
    let outcome = task.await;
    if outcome.is_err() {
        shared.control.stop.store(true, Ordering::Relaxed);
    }
    outcome
}

/// One producer: batches of LPUSH of its next elements, round-robin over the lists.
async fn produce(
    mut conn: Connection,
    shared: &Shared,
    index: u32,
) -> Result<(u32, ConnStats, Pushed), LabError> {
    let control = &shared.control;
    let mut stats = ConnStats::new(None, control.measure_start);
    let mut record = Pushed::default();
    let (mut request, mut ops, mut element) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        if control.stop.load(Ordering::Relaxed) {
            break;
        }
        let now = Instant::now();
        let measured = now >= control.measure_start;
        let batch = if !measured {
            shared.pipeline
        } else if control.deadline.is_some_and(|d| now >= d) {
            0
        } else {
            control.claim(shared.pipeline)
        };
        if batch == 0 {
            break;
        }
        request.clear();
        ops.clear();
        let first = record.sent;
        for seq in first..first + batch {
            element.clear();
            let id = ElementId {
                producer: index,
                seq,
            };
            element::encode(&mut element, shared.tag, id, shared.value_size);
            let key = &shared.queue_keys
                [((u64::from(index) + seq) % shared.queue_keys.len() as u64) as usize];
            resp::encode_command(
                &mut request,
                &[b"LPUSH", key.as_slice(), element.as_slice()],
            );
            ops.push(Op::Set);
        }
        let (sent, mut seq) = (Instant::now(), first);
        conn.exchange(&request, &ops, |op, kind, _reply, done| {
            if kind != ReplyKind::Success {
                record.rejected.push(seq);
            }
            seq += 1;
            if measured {
                stats.record(op, kind, sent, done);
            }
        })
        .await?;
        record.sent = first + batch;
        if measured {
            control.measured.fetch_add(batch, Ordering::Relaxed);
        }
    }
    stats.finish();
    Ok((index, stats, record))
}

/// One consumer: BLPOP until the producers are done and a BLPOP times out.
async fn consume(
    mut conn: Connection,
    shared: &Shared,
) -> Result<(ConnStats, Vec<ElementId>, Strays), LabError> {
    let control = &shared.control;
    let mut stats = ConnStats::new(None, control.measure_start);
    let (mut popped, mut strays) = (Vec::new(), Strays::default());
    while !control.stop.load(Ordering::Relaxed) {
        let done_before = shared.producers_done.load(Ordering::Relaxed);
        let sent = Instant::now();
        let measured = sent >= control.measure_start && !done_before;
        let mut got_element = false;
        conn.exchange(&shared.blpop, &[Op::Get], |op, kind, reply, done| {
            let kind = match (kind, resp::array_last_bulk(reply)) {
                (ReplyKind::Success, Some(bytes)) => {
                    got_element = true;
                    match element::parse(bytes, shared.tag, shared.value_size) {
                        Parsed::Ours(id) => popped.push(id),
                        Parsed::Foreign => strays.foreign += 1,
                        Parsed::Corrupt => strays.corrupt += 1,
                    }
                    ReplyKind::Hit
                }
                (ReplyKind::Success, None) => ReplyKind::Error,
                (other, _) => other,
            };
            if measured {
                stats.record(op, kind, sent, done);
            }
        })
        .await?;
        if got_element && measured {
            shared.delivered_measured.fetch_add(1, Ordering::Relaxed);
        }
        if !got_element && done_before {
            break;
        }
    }
    stats.finish();
    Ok((stats, popped, strays))
}

/// The summed LLEN of the lists, on a connection of its own.
async fn left_in_queues(args: &KvArgs, target: &Target, keys: &[Vec<u8>]) -> Result<u64, LabError> {
    let mut conn = Connection::open(target.addr(), super::protocol::Protocol::Resp).await?;
    if let Some(password) = &args.auth {
        conn.auth(password).await?;
    }
    let mut request = Vec::new();
    for key in keys {
        resp::encode_command(&mut request, &[b"LLEN", key]);
    }
    let ops = vec![Op::Get; keys.len()];
    let mut left = 0;
    conn.exchange(&request, &ops, |_, _, reply, _| {
        left += resp::integer_value(reply).unwrap_or(0);
    })
    .await?;
    Ok(left)
}
