//! Shared fixture: a keyspace with persistence on simulated directories,
//! restarted cleanly or by a power cut, and a model of what it must hold.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use strata_device::{Directory, MemDirectory};
use strata_kv::{Keyspace, KeyspaceConfig, ManualClock, Store};
use strata_persist::{Durability, PersistConfig, Persistence};

pub mod large;

/// Small segments so that rotation and removal happen in short tests.
pub const SEGMENT: u64 = 16 * 1024;

/// Live items: key -> (value, flags, expiry).
pub type Model = BTreeMap<Vec<u8>, (Vec<u8>, u32, Option<u64>)>;

pub fn config(mode: Durability) -> PersistConfig {
    let mut c = PersistConfig::new(mode, "/unused");
    c.log_segment_size = SEGMENT;
    // Checkpoints only when a test asks (the trigger would race the model).
    c.checkpoint_min_log_size = u64::MAX;
    c.checkpoint_io_rate = 0;
    c.checkpoint_cpu_pct = 0;
    c
}

pub fn keyspace(clock: &Arc<ManualClock>) -> Arc<Keyspace> {
    let config = KeyspaceConfig {
        memory_limit: 0,
        shards: 8,
        ..KeyspaceConfig::default()
    };
    Keyspace::new(config, clock.clone())
}

pub fn arc(dir: &MemDirectory) -> Arc<dyn Directory> {
    Arc::new(dir.clone())
}

/// A keyspace with persistence on two simulated directories.
pub struct World {
    pub clock: Arc<ManualClock>,
    pub log_dir: MemDirectory,
    pub snap_dir: MemDirectory,
    pub ks: Arc<Keyspace>,
    pub p: Option<Persistence>,
    pub config: PersistConfig,
}

impl World {
    pub fn new(mode: Durability) -> World {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let (log_dir, snap_dir) = (MemDirectory::new(), MemDirectory::new());
        let config = config(mode);
        let ks = keyspace(&clock);
        let p = Persistence::open_in(ks.clone(), arc(&log_dir), arc(&snap_dir), config.clone())
            .expect("open a new keyspace");
        World {
            clock,
            log_dir,
            snap_dir,
            ks,
            p: Some(p),
            config,
        }
    }

    pub fn p(&self) -> &Persistence {
        self.p.as_ref().expect("open")
    }

    /// Waits until everything the current thread journaled is durable.
    pub fn ack(&self) {
        let lsn = strata_kv::take_written_lsn();
        if lsn != 0 {
            self.p().log().wait_durable(lsn).expect("durable");
        }
    }

    /// Reopens on the same directories after a clean close.
    pub fn restart_clean(&mut self) {
        let p = self.p.take().expect("open");
        p.close().expect("close");
        drop(p);
        self.reopen();
    }

    /// Cuts the power: only synced bytes survive (plus, with `torn`, a
    /// random prefix of the unsynced writes), then reopens.
    pub fn power_cut(&mut self, torn: Option<u64>) {
        let (log, snap) = match torn {
            None => (self.log_dir.crash(), self.snap_dir.crash()),
            Some(seed) => (
                self.log_dir.crash_torn(seed),
                self.snap_dir.crash_torn(seed ^ 1),
            ),
        };
        drop(self.p.take()); // its late writes go to the old directories
        self.log_dir = log;
        self.snap_dir = snap;
        self.reopen();
    }

    fn reopen(&mut self) {
        self.ks = keyspace(&self.clock);
        let p = Persistence::open_in(
            self.ks.clone(),
            arc(&self.log_dir),
            arc(&self.snap_dir),
            self.config.clone(),
        )
        .expect("recover");
        self.p = Some(p);
    }

    /// Every live item, read through the store.
    pub fn live(&self) -> Model {
        let mut found = Model::new();
        let mut cursor = 0;
        loop {
            cursor = self.ks.store().scan(cursor, 100, &mut |item| {
                found.insert(
                    item.key.to_vec(),
                    (item.value.to_vec(), item.flags, item.expires_at),
                );
            });
            if cursor == 0 {
                return found;
            }
        }
    }

    /// The model without the items expired by now.
    pub fn expect(&self, model: &Model) -> Model {
        let now = self.ks.now_ms();
        model
            .iter()
            .filter(|(_, (_, _, exp))| exp.is_none_or(|at| at > now))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}
