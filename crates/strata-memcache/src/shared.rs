//! [`Shared`]: the state every memcached session of one server shares
//! (keyspace, counters, marks, credentials). Below the commands and the
//! session; the protocol (`protocol.rs`) makes it.

use std::sync::Arc;

use strata_kv::Keyspace;
use strata_metrics::CommandTable;
use strata_service::{Clients, IdleTimeout, ServerInfo};

use crate::auth_file::AuthFile;
use crate::marks::MetaMarks;
use crate::prefix_stats::PrefixStats;
use crate::stats::ProtocolStats;

/// Input allowed beyond the largest item: the command line and slack for
/// pipelined requests behind it.
const INPUT_SLACK: usize = 64 * 1024;

/// State shared by every memcached session of one server.
#[derive(Debug)]
pub struct Shared {
    /// The keyspace all front ends serve.
    pub keyspace: Arc<Keyspace>,
    /// Server identity and runtime settings.
    pub info: Arc<ServerInfo>,
    /// This front end's client registry and connection counters.
    pub clients: Arc<Clients>,
    /// Protocol counters reported by `stats`.
    pub stats: ProtocolStats,
    /// Stale / recache-token marks of the meta commands.
    pub marks: MetaMarks,
    /// `stats detail`: per-prefix counters.
    pub prefixes: PrefixStats,
    /// Credentials clients must log in with first (memcached's `-Y`);
    /// `None`: no authentication.
    pub auth: Option<AuthFile>,
    /// memcached's `idle_timeout`: connections idle this long are closed.
    pub idle_timeout: IdleTimeout,
    /// Calls, failures, refusals and latency per command (the metrics
    /// port).
    pub commands: CommandTable,
}

impl Shared {
    /// Longest request a session keeps buffered: the largest item plus its
    /// command line and slack. Larger values are streamed away instead.
    pub fn max_request(&self) -> usize {
        self.keyspace.max_item_size().saturating_add(INPUT_SLACK)
    }
}
