//! What `strata lab durable-cache` runs: its options and parts, the
//! configurations (Strata's persistence modes and the peers), the phases,
//! and the sizes of a full and a quick run.

use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::lab::common::{secs, CommonArgs};
use crate::lab::peers::PeerKind;

/// `strata lab durable-cache`'s options.
#[derive(Debug, Clone, Args)]
pub struct DurableCacheArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,

    /// Run one part only [default: all three].
    #[arg(long, value_enum)]
    pub only: Option<Part>,

    /// Checkpointed runs of Strata per round, each alternated with a control
    /// run of the same length and load without a checkpoint [default: 3, 1 with --quick].
    #[arg(long)]
    pub pairs: Option<usize>,
}

/// A part of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Part {
    /// The memtier-style phases of every configuration (throughput and latency tables).
    Phases,
    /// The checkpoint timelines (after the insert phase fills the keys), Strata's
    /// against its control runs.
    Checkpoint,
    /// Sync logging against Redis `appendfsync always`, set-only, pinned to cores.
    Pinned,
}

impl DurableCacheArgs {
    pub(super) fn runs(&self, part: Part) -> bool {
        self.only.is_none_or(|only| only == part)
    }
}

/// A configuration: Strata in a persistence mode, or a peer.
#[derive(Debug, Clone, Copy)]
pub(super) enum Target {
    Strata(&'static str),
    Peer(PeerKind),
}

/// (row label, target), in the tables' order.
pub(super) const CONFIGS: [(&str, Target); 10] = [
    ("strata, persistence off", Target::Strata("off")),
    ("strata, async logging", Target::Strata("async")),
    ("strata, sync logging", Target::Strata("sync")),
    ("redis, no AOF", Target::Peer(PeerKind::RedisOff)),
    (
        "redis, appendfsync everysec",
        Target::Peer(PeerKind::RedisEverysec),
    ),
    (
        "redis, appendfsync always",
        Target::Peer(PeerKind::RedisAlways),
    ),
    ("memcached", Target::Peer(PeerKind::Memcached)),
    ("arcus, persistence off", Target::Peer(PeerKind::ArcusOff)),
    ("arcus, async logging", Target::Peer(PeerKind::ArcusAsync)),
    ("arcus, sync logging", Target::Peer(PeerKind::ArcusSync)),
];

/// (column, set:get ratio); the insert is sequential over every key.
pub const PHASES: [(&str, &str); 5] = [
    ("insert", "1:0"),
    ("uniform reads", "0:1"),
    ("1:9", "1:9"),
    ("3:7", "3:7"),
    ("5:5", "5:5"),
];

/// Title of the throughput table.
pub const THROUGHPUT: &str = "Throughput per persistence mode";

pub(super) struct Sizes {
    pub(super) keys: u64,
    pub(super) value: usize,
    pub(super) measure: f64,
    pub(super) connections: usize,
    pub(super) timeline: f64,
    pub(super) pairs: usize,
    pub(super) pinned: f64,
}

impl Sizes {
    pub(super) fn new(quick: bool) -> Self {
        if quick {
            Self {
                keys: 5_000,
                value: 50,
                measure: 0.5,
                connections: 16,
                timeline: 3.0,
                pairs: 1,
                pinned: 0.5,
            }
        } else {
            Self {
                keys: 1_000_000,
                value: 50,
                measure: 10.0,
                connections: 50,
                timeline: 30.0,
                pairs: 3,
                pinned: 10.0,
            }
        }
    }

    pub(super) fn per_config(&self) -> Duration {
        secs(2.0 + self.keys as f64 / 20_000.0 + 4.0 * self.measure)
    }
}
