//! [`MemcacheProtocol`]: the memcached front end as a
//! [`strata_service::Protocol`]; the state its sessions share is
//! [`Shared`] (`shared.rs`).

use std::sync::Arc;

use strata_kv::Keyspace;
use strata_service::{ClientInfo, Clients, DriverConfig, IdleTimeout, Protocol, ServerInfo};

use crate::auth_file::AuthFile;
use crate::marks::MetaMarks;
use crate::prefix_stats::PrefixStats;
use crate::session::MemcacheSession;
pub use crate::shared::Shared;
use crate::stats::ProtocolStats;

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
