//! The workers of one server run, started and ended together.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::Rng;

use super::model::Protocol;
use super::server::DurableServer;
use super::workload::{Worker, WorkerKeys, WorkerRun};

/// How long workers may take to notice a stop or a dead server: longer than
/// the client's I/O timeout.
const JOIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Workers writing to one server.
pub struct Fleet {
    workers: Vec<Worker>,
    stop: Arc<AtomicBool>,
    /// When they started; times in failure messages count from here.
    pub origin: Instant,
}

impl Fleet {
    /// Starts one worker per entry of `keys` against `server`, each seeded
    /// from `rng`. `run` numbers the server run (it labels values).
    pub fn start(server: &DurableServer, keys: &[WorkerKeys], run: u64, rng: &mut StdRng) -> Fleet {
        let stop = Arc::new(AtomicBool::new(false));
        let origin = Instant::now();
        let workers = keys
            .iter()
            .map(|k| {
                let addr = match k.protocol {
                    Protocol::Resp => server.resp(),
                    Protocol::Memcache => server.memcache(),
                };
                Worker::start(addr, k.clone(), run, rng.gen(), origin, stop.clone())
            })
            .collect();
        Fleet {
            workers,
            stop,
            origin,
        }
    }

    /// Asks every worker to stop after its current batch and waits for them.
    pub fn stop(self) -> Vec<WorkerRun> {
        self.stop.store(true, Ordering::Relaxed);
        self.join()
    }

    /// Waits for every worker to end (after the server died, or a stop).
    pub fn join(self) -> Vec<WorkerRun> {
        self.workers
            .into_iter()
            .map(|worker| worker.join(JOIN_TIMEOUT))
            .collect()
    }
}
