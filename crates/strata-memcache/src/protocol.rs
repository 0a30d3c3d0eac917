//! [`MemcacheProtocol`]: the memcached front end as a
//! [`strata_service::Protocol`], and the state its sessions share.

use std::sync::Arc;

use strata_kv::Keyspace;
use strata_metrics::CommandTable;
use strata_service::{ClientInfo, Clients, DriverConfig, IdleTimeout, Protocol, ServerInfo};

use crate::auth_file::AuthFile;
use crate::marks::MetaMarks;
use crate::prefix_stats::PrefixStats;
use crate::session::MemcacheSession;
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

/// The memcached text protocol (classic and meta commands).
#[derive(Debug)]
pub struct MemcacheProtocol {
    shared: Arc<Shared>,
}

impl MemcacheProtocol {
    /// A front end serving `keyspace`, reporting `info` and counting its
    /// connections in `clients`, without authentication.
    pub fn new(keyspace: Arc<Keyspace>, info: Arc<ServerInfo>, clients: Arc<Clients>) -> Self {
        Self::with_auth(keyspace, info, clients, None)
    }

    /// Like [`new`](Self::new); with `auth`, every connection must log in
    /// first (memcached's ASCII authentication).
    pub fn with_auth(
        keyspace: Arc<Keyspace>,
        info: Arc<ServerInfo>,
        clients: Arc<Clients>,
        auth: Option<AuthFile>,
    ) -> Self {
        let shared = Shared {
            keyspace,
            info,
            clients,
            stats: ProtocolStats::default(),
            marks: MetaMarks::default(),
            prefixes: PrefixStats::default(),
            auth,
            idle_timeout: IdleTimeout::default(),
            commands: crate::command_stats::new_table(),
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// The driver limits this protocol needs: its input buffer must hold the
    /// largest item with its command line; idle connections are closed
    /// after `idle_timeout` (none by default).
    pub fn driver_config(&self) -> DriverConfig {
        DriverConfig {
            idle_timeout: self.shared.idle_timeout.clone(),
            ..DriverConfig::new(self.shared.max_request())
        }
    }

    /// memcached's `idle_timeout` (`-o idle_timeout`), in seconds.
    pub fn idle_timeout(&self) -> &IdleTimeout {
        &self.shared.idle_timeout
    }

    /// The protocol counters (for tests and the server's own reporting).
    pub fn stats(&self) -> &ProtocolStats {
        &self.shared.stats
    }

    /// The state its sessions share (counters for the metrics port).
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }
}

impl Protocol for MemcacheProtocol {
    type Session = MemcacheSession;

    fn name(&self) -> &'static str {
        "memcache"
    }

    fn open(&self, client: Arc<ClientInfo>) -> MemcacheSession {
        let authenticated = self.shared.auth.is_none();
        MemcacheSession::new(self.shared.clone(), client, authenticated)
    }

    fn too_many_connections(&self) -> &'static [u8] {
        b"ERROR Too many open connections\r\n"
    }

    fn internal_error(&self) -> &'static [u8] {
        b"SERVER_ERROR internal error: the server failed on this request\r\n"
    }

    fn protected_mode_refusal(&self) -> &'static [u8] {
        crate::reply::PROTECTED_MODE_REPLY
    }
}
