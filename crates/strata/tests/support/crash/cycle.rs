//! The kill cycle: workers write to the server, it is crashed as planned
//! ([`CyclePlan`]), restarted on the same data directory and checked. A
//! [`CrashLoop`] runs cycle after cycle, each starting from what the last
//! one recovered.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::fleet::Fleet;
use super::history::Survival;
use super::model::Protocol;
use super::recovered::{persistence_info, Recovered};
use super::resp::{Reply, RespConn};
use super::server::DurableServer;
use super::totals::Totals;
use super::verify::{ended_before_kill, verify};
use super::workload::{WorkerKeys, WorkerRun};
use super::DataDir;

/// RESP connections writing at once; one memcached connection writes too.
const RESP_WORKERS: usize = 4;

/// Keys for a fresh data directory: [`RESP_WORKERS`] RESP workers and one
/// memcached worker, owning nothing yet.
pub fn fresh_keys() -> Vec<WorkerKeys> {
    let mut keys: Vec<WorkerKeys> = (0..RESP_WORKERS)
        .map(|id| WorkerKeys::new(id, Protocol::Resp))
        .collect();
    keys.push(WorkerKeys::new(RESP_WORKERS, Protocol::Memcache));
    keys
}

/// Kill cycles against one data directory.
pub struct CrashLoop {
    seed: u64,
    /// Every random choice of the loop and its workers comes from here.
    pub rng: StdRng,
    /// `sync` or `async`: what `INFO persistence` must report.
    mode: &'static str,
    dir: DataDir,
    server: DurableServer,
    keys: Vec<WorkerKeys>,
    cycles_run: usize,
    /// Counts for the closing line.
    pub totals: Totals,
}

impl CrashLoop {
    /// Starts the server in `mode` on a fresh data directory, with the
    /// options `options` draws.
    pub fn start(
        seed: u64,
        mode: &'static str,
        options: impl FnOnce(&mut StdRng) -> Vec<String>,
    ) -> CrashLoop {
        let mut rng = StdRng::seed_from_u64(seed);
        let dir = DataDir::new(mode);
        let server = DurableServer::start(dir.path(), &options(&mut rng));
        CrashLoop {
            seed,
            rng,
            mode,
            dir,
            server,
            keys: fresh_keys(),
            cycles_run: 0,
            totals: Totals::default(),
        }
    }

    /// Runs one cycle as `plan` says and checks the restarted server under
    /// `survival(the moment of the kill)`. Every problem fails the test,
    /// naming the seed, the cycle, the plan and quoting both servers' logs.
    pub fn cycle(
        &mut self,
        plan: &CyclePlan,
        survival: impl Fn(Instant) -> Survival,
    ) -> CycleOutcome {
        let run = self.cycles_run as u64;
        self.cycles_run += 1;
        let fleet = Fleet::start(&self.server, &self.keys, run, &mut self.rng);
        let resp = self.server.resp();
        let _save_connection = plan.checkpoint.map(|c| c.send_at(resp, fleet.origin));
        sleep_until(fleet.origin + plan.kill_after);
        let killed_at = Instant::now();
        plan.crash.apply(&mut self.server);
        let runs = fleet.join();
        let killed_log = self.server.log_tail();

        if let Crash::AlsoDuringRecovery(after) = plan.crash {
            DurableServer::start_and_kill(self.dir.path(), &plan.restart_options, after);
        }
        self.server = DurableServer::start(self.dir.path(), &plan.restart_options);
        let mut verdict = verify(self.server.resp(), &runs, survival(killed_at));
        verdict.problems.extend(ended_before_kill(&runs, killed_at));
        let info = persistence_info(self.server.resp());
        verdict.problems.extend(info_problems(&info, self.mode));
        assert!(
            verdict.problems.is_empty(),
            "seed {}, cycle {run}: {plan:?}\n{}\n--- log of the killed server ---\n{killed_log}\n\
             --- log of the restarted server ---\n{}",
            self.seed,
            verdict.problems.join("\n\n"),
            self.server.log_tail()
        );
        self.totals.add(&runs, &info);
        self.totals.checkpoint_requests += usize::from(plan.checkpoint.is_some());
        self.keys = verdict.next;
        CycleOutcome {
            runs,
            recovered: verdict.recovered,
            killed_at,
        }
    }
}

/// What happens to the server in one cycle, and when.
#[derive(Debug)]
pub struct CyclePlan {
    /// When the crash comes, counted from the workers' start.
    pub kill_after: Duration,
    pub crash: Crash,
    pub checkpoint: Option<CheckpointRequest>,
    /// Options of the restarted server.
    pub restart_options: Vec<String>,
}

impl CyclePlan {
    /// A plan with a checkpoint request drawn from `rng` (or none).
    pub fn new(
        kill_after: Duration,
        crash: Crash,
        restart_options: Vec<String>,
        rng: &mut StdRng,
    ) -> CyclePlan {
        CyclePlan {
            kill_after,
            crash,
            checkpoint: CheckpointRequest::choose(rng, kill_after),
            restart_options,
        }
    }
}

/// What a cycle saw.
pub struct CycleOutcome {
    pub runs: Vec<WorkerRun>,
    pub recovered: Recovered,
    pub killed_at: Instant,
}

/// How a cycle ends the server.
#[derive(Debug, Clone, Copy)]
pub enum Crash {
    /// SIGKILL.
    Sigkill,
    /// SIGTERM, then SIGKILL this long after: a crash during shutdown.
    DuringShutdown(Duration),
    /// SIGKILL, then SIGKILL again this long into the restart: a crash
    /// during recovery.
    AlsoDuringRecovery(Duration),
}

impl Crash {
    /// Mostly a plain SIGKILL.
    pub fn choose(rng: &mut StdRng) -> Crash {
        let after = Duration::from_millis(rng.gen_range(0..=60));
        match rng.gen_range(0..100) {
            0..=69 => Crash::Sigkill,
            70..=84 => Crash::DuringShutdown(after),
            _ => Crash::AlsoDuringRecovery(after * 3),
        }
    }

    fn apply(self, server: &mut DurableServer) {
        match self {
            Crash::Sigkill | Crash::AlsoDuringRecovery(_) => server.kill(),
            Crash::DuringShutdown(after) => server.terminate_then_kill(after),
        }
    }
}

/// A checkpoint asked for during a cycle.
#[derive(Debug, Clone, Copy)]
pub enum CheckpointRequest {
    /// `BGSAVE` at this offset into the cycle.
    Bgsave(Duration),
    /// `SAVE` at this offset, its reply never awaited.
    Save(Duration),
}

impl CheckpointRequest {
    /// None in about 4 of 10 cycles, otherwise BGSAVE (or now and then
    /// SAVE) at a random moment before the kill.
    fn choose(rng: &mut StdRng, kill_after: Duration) -> Option<CheckpointRequest> {
        let at = kill_after.mul_f64(rng.gen_range(0.0..1.0));
        match rng.gen_range(0..10) {
            0..=3 => None,
            4..=8 => Some(CheckpointRequest::Bgsave(at)),
            _ => Some(CheckpointRequest::Save(at)),
        }
    }

    /// Waits until `origin` + the offset, then sends the request. Returns
    /// the connection of a SAVE, to be held open until the kill.
    fn send_at(self, addr: SocketAddr, origin: Instant) -> Option<RespConn> {
        match self {
            CheckpointRequest::Bgsave(at) => {
                sleep_until(origin + at);
                request_bgsave(addr);
                None
            }
            CheckpointRequest::Save(at) => {
                sleep_until(origin + at);
                let mut conn = RespConn::connect(addr).expect("connect for SAVE");
                conn.send(&[vec![b"SAVE".to_vec()]]).expect("send SAVE");
                Some(conn)
            }
        }
    }
}

/// Sends BGSAVE; it must start or report one already running.
pub fn request_bgsave(addr: SocketAddr) {
    match call(addr, &[b"BGSAVE"]) {
        Reply::Simple(text) if text.starts_with("Background saving started") => {}
        Reply::Error(text) if text.contains("in progress") => {}
        other => panic!("BGSAVE replied {other:?}"),
    }
}

/// One command on a new connection.
pub fn call(addr: SocketAddr, args: &[&[u8]]) -> Reply {
    let mut conn = RespConn::connect(addr).expect("connect");
    conn.call(args).expect("reply")
}

/// What `INFO persistence` of a freshly restarted server in `mode` must say.
pub fn info_problems(info: &BTreeMap<String, String>, mode: &str) -> Vec<String> {
    let expected = [
        ("strata_persistence", mode),
        ("loading", "0"),
        ("strata_log_poisoned", "0"),
    ];
    expected
        .iter()
        .filter(|(field, value)| info.get(*field).map(String::as_str) != Some(*value))
        .map(|(field, value)| {
            format!(
                "INFO persistence: {field} is {:?}, expected {value:?}",
                info.get(*field)
            )
        })
        .collect()
}

fn sleep_until(deadline: Instant) {
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
}
