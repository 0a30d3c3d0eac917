//! [`Server`]: the engine and the enabled front ends running on the current
//! tokio runtime, and their orderly shutdown.
//!
//! Start order: credentials (ACL and memcached auth files), data
//! directory, the TLS certificate (when a port speaks TLS), keyspace,
//! recovery from the snapshot and log (when persistence is on; nothing is
//! served before it is done), listeners (so the actual ports are known,
//! port 0 included), server identity, background maintenance, then one
//! accept loop per port (RESP has two with `tls_port`: plain and TLS, one
//! front end).
//! Shutdown runs in reverse: accept loops stop, open connections get a
//! bounded grace period to finish, maintenance stops, the log is synced.
//! The HTTP (search) front end answers at once and recovers its indices in
//! the background; "strata ready" is logged once they are recovered (at
//! once without it). At shutdown its indices are flushed.
//!
//! `start` is here; the shutdown sequence is in `shutdown.rs`.

mod resp_settings;
mod shutdown;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;

use parking_lot::RwLock;
use strata_kv::{Keyspace, Maintenance};
use strata_memcache::MemcacheProtocol;
use strata_net::Protection;
use strata_persist::Persistence;
use strata_resp::RespProtocol;
use strata_service::{Clients, DriverConfig, RuntimeSettings, ServerInfo, WorkerPool};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::blocking::blocking;
use crate::config::ServerConfig;
use crate::durability::ServerDurability;
use crate::error::ServerError;
use crate::front_end::{bind, spawn_front_end, FrontEnd};
use crate::listeners;
use crate::metrics::{FrontEndCounters, MetricsPort, Sources};
use crate::ready::Ready;
use crate::version::VERSION;

/// A running server. Dropping it without [`Server::shutdown`] leaves the
/// accept loops to the runtime's own shutdown.
pub struct Server {
    keyspace: Arc<Keyspace>,
    durability: Arc<ServerDurability>,
    info: Arc<ServerInfo>,
    maintenance: Option<Maintenance>,
    shutdown: CancellationToken,
    front_ends: Vec<FrontEnd>,
    http: Option<crate::http::HttpFrontEnd>,
    metrics: Option<MetricsPort>,
    /// The runtimes key-value connections run on, when not the server's.
    workers: Option<Arc<WorkerPool>>,
}

/// Stops a worker pool when dropped.
struct StopOnDrop(Arc<WorkerPool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl Server {
    /// Starts everything `config` asks for on the current tokio runtime.
    ///
    /// The caller guarantees `config` was validated ([`ServerConfig::load`]
    /// or [`ServerConfig::validate`]) and that this runs inside a runtime with
    /// I/O and time enabled.
    pub async fn start(config: &ServerConfig) -> Result<Self, ServerError> {
        let credentials = crate::auth::load(config)?;
        std::fs::create_dir_all(&config.data_dir).map_err(|source| ServerError::DataDir {
            path: config.data_dir.clone(),
            source,
        })?;
        let tls = listeners::load_tls(config)?;
        // With `cache_size`, the one DRAM cache both engines share.
        let shared_cache = config.shared_cache();
        let (keyspace, node_store) =
            blocking(|| crate::placement::open_keyspace_sharing(config, shared_cache.as_ref()))?;
        let persistence = match config.persist_config() {
            // Recovery runs before any port opens.
            Some(persist) => Some(
                blocking(|| Persistence::open(keyspace.clone(), persist))
                    .map_err(ServerError::Persistence)?,
            ),
            None => None,
        };
        let memcache_listener = config
            .memcache_enabled
            .then(|| {
                bind(
                    "memcache",
                    SocketAddr::new(config.bind, config.memcache_port),
                )
            })
            .transpose()?;
        let resp_listener = config
            .resp_enabled
            .then(|| bind("resp", SocketAddr::new(config.bind, config.resp_port)))
            .transpose()?;
        let resp_tls_listener = config
            .tls_port
            .map(|port| bind("resp-tls", SocketAddr::new(config.bind, port)))
            .transpose()?;
        let http_listener = config
            .http_enabled
            .then(|| bind("http", SocketAddr::new(config.bind, config.http_port)))
            .transpose()?;
        let metrics_listener = config
            .metrics_enabled
            .then(|| bind("metrics", SocketAddr::new(config.bind, config.metrics_port)))
            .transpose()?;
        let port_of = |l: &Option<(TcpListener, SocketAddr)>| l.as_ref().map(|(_, a)| a.port());
        let settings = RuntimeSettings {
            bind: config.bind,
            memcache_port: port_of(&memcache_listener),
            resp_port: port_of(&resp_listener),
            threads: config.threads,
            data_dir: config.data_dir.display().to_string(),
            max_connections: AtomicUsize::new(config.max_connections),
            requirepass: RwLock::new(config.requirepass.clone()),
            verbosity: AtomicU32::new(config.verbosity()),
        };
        // Key-value connections run on their own workers unless the mode
        // shares the server's runtime.
        let workers = match config.worker_mode.pool_policy() {
            Some(policy) => Some(Arc::new(
                WorkerPool::start(config.threads, "strata-conn", policy)
                    .map_err(ServerError::Runtime)?,
            )),
            None => None,
        };
        let mut info = ServerInfo::new(VERSION, settings).with_commit(&config.build_commit);
        if let Some(pool) = &workers {
            info = info.with_workers(pool.clone());
        }
        let durability = Arc::new(ServerDurability::new(persistence, info.started_unix));
        let info = Arc::new(info.with_durability(durability.clone()));
        crate::caches::register_records(&info.caches, &keyspace);
        let maintenance = Maintenance::start(keyspace.clone()).map_err(ServerError::Maintenance)?;

        let shutdown = CancellationToken::new();
        let protection = |auth: Arc<dyn strata_net::Authentication>| {
            Protection::new(config.protected_mode(), auth)
        };
        let request_bound = config.request_timeout.0;
        if let Some(pool) = &workers {
            // The pool lives as long as this runtime even when the server
            // is dropped without `shutdown` (a test's): its connections
            // hold it, so only this task's end stops it.
            let guard = StopOnDrop(pool.clone());
            tokio::spawn(async move {
                let _guard = guard;
                std::future::pending::<()>().await;
            });
        }
        let mut front_ends = Vec::new();
        let mut counted: Vec<(&'static str, Arc<dyn FrontEndCounters>)> = Vec::new();
        let mut resp_shared = None;
        if let Some((tcp, addr)) = memcache_listener {
            let clients = Arc::new(Clients::default());
            let requires_login = credentials.memcache.is_some();
            let protocol = MemcacheProtocol::with_auth(
                keyspace.clone(),
                info.clone(),
                clients.clone(),
                credentials.memcache,
            );
            protocol.idle_timeout().set(config.idle_timeout);
            let driver = DriverConfig {
                request_timeout: request_bound,
                workers: workers.clone(),
                ..protocol.driver_config()
            };
            let tls = tls.as_ref().filter(|_| config.memcache_tls);
            let auth = Arc::new(move || requires_login);
            let listener = listeners::port(tcp, tls, request_bound, protection(auth));
            counted.push(("memcache", protocol.shared().clone()));
            let protocol = Arc::new(protocol);
            front_ends.push(spawn_front_end(
                "memcache", protocol, driver, listener, addr, clients, &info, &shutdown,
            ));
        }
        if resp_listener.is_some() || resp_tls_listener.is_some() {
            let clients = Arc::new(Clients::default());
            let protocol = RespProtocol::with_acl(
                keyspace.clone(),
                info.clone(),
                clients.clone(),
                credentials.acl,
            );
            let port = resp_listener.as_ref().or(resp_tls_listener.as_ref());
            resp_settings::apply(&protocol, config, port.map(|(_, addr)| addr.port()))?;
            counted.push(("resp", protocol.shared().clone()));
            resp_shared = Some(protocol.shared().clone());
            let driver = DriverConfig {
                request_timeout: request_bound,
                workers: workers.clone(),
                ..protocol.driver_config()
            };
            let protocol = Arc::new(protocol);
            // Protected mode asks, per connection, whether the port makes
            // clients authenticate: the default user has a password, or
            // some user does (`ACL SETUSER`, `CONFIG SET requirepass`).
            let shared = protocol.shared().clone();
            let resp_auth: Arc<dyn strata_net::Authentication> =
                Arc::new(move || shared.acl.requires_auth());
            let ports = [
                ("resp", resp_listener, None),
                ("resp-tls", resp_tls_listener, tls.as_ref()),
            ];
            for (name, bound, tls) in ports {
                if let Some((tcp, addr)) = bound {
                    let listener =
                        listeners::port(tcp, tls, request_bound, protection(resp_auth.clone()));
                    front_ends.push(spawn_front_end(
                        name,
                        protocol.clone(),
                        driver.clone(),
                        listener,
                        addr,
                        clients.clone(),
                        &info,
                        &shutdown,
                    ));
                }
            }
        }
        let http = match http_listener {
            Some((tcp, addr)) => {
                let tls = tls.as_ref().filter(|_| config.http_tls);
                let header_bound = config.http_header_timeout.0;
                let requires_auth = config.http_requires_authentication();
                let auth = Arc::new(move || requires_auth);
                let listener = listeners::port(tcp, tls, header_bound, protection(auth));
                listeners::announce("http", addr, &listener);
                Some(crate::http::HttpFrontEnd::start(
                    config,
                    listener,
                    addr,
                    &shutdown,
                    info.caches.clone(),
                    shared_cache.as_ref(),
                    node_store.clone(),
                )?)
            }
            None => None,
        };
        let metrics = metrics_listener.map(|(tcp, addr)| {
            let tls = tls.as_ref().filter(|_| config.metrics_tls);
            // The port asks no authentication: protected mode keeps it to
            // the loopback interface unless switched off.
            let listener = listeners::port(
                tcp,
                tls,
                config.http_header_timeout.0,
                protection(Arc::new(|| false)),
            );
            listeners::announce("metrics", addr, &listener);
            let registry = crate::metrics::registry(Sources {
                keyspace: keyspace.clone(),
                durability: durability.clone(),
                checkpoint_min_log_bytes: config.checkpoint_min_log_size.bytes(),
                front_ends: counted,
                resp: resp_shared,
                search: http.as_ref().map(|h| h.state().clone()),
            });
            MetricsPort::start(
                listener,
                addr,
                registry,
                config.http_header_timeout.0,
                &shutdown,
            )
        });
        if let Some(acceptor) = &tls {
            listeners::watch_tls(acceptor, &shutdown);
        }
        let ready = Ready {
            pid: info.pid,
            threads: config.threads,
            memory_limit: config.memory_limit.to_string(),
            eviction: keyspace.eviction().as_str(),
            max_item_size: config.max_item_size.to_string(),
            max_connections: config.max_connections,
            data_dir: config.data_dir.display().to_string(),
            persistence: strata_service::Durability::mode(&*durability),
        };
        match &http {
            // Logged once the search indices are recovered: every port then
            // serves everything (the key-value ports serve already).
            Some(http) => {
                let recovered = http.recovered();
                tokio::spawn(async move {
                    if recovered.await.is_ok() {
                        ready.log();
                    }
                });
            }
            None => ready.log(),
        }
        Ok(Self {
            keyspace,
            durability,
            info,
            maintenance: Some(maintenance),
            shutdown,
            front_ends,
            http,
            metrics,
            workers,
        })
    }

    /// Address the memcached front end listens on, if it runs.
    pub fn memcache_addr(&self) -> Option<SocketAddr> {
        self.addr_of("memcache")
    }

    /// Address the RESP front end listens on, if it runs.
    pub fn resp_addr(&self) -> Option<SocketAddr> {
        self.addr_of("resp")
    }

    /// Address RESP over TLS listens on (`tls_port`), if it runs.
    pub fn resp_tls_addr(&self) -> Option<SocketAddr> {
        self.addr_of("resp-tls")
    }

    /// Address the Prometheus metrics port listens on, if it runs.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|m| m.addr())
    }

    /// Address the HTTP (search) front end listens on, if it runs.
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http.as_ref().map(|h| h.addr())
    }

    fn addr_of(&self, name: &str) -> Option<SocketAddr> {
        self.front_ends
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.addr)
    }

    /// The keyspace every front end serves.
    pub fn keyspace(&self) -> &Arc<Keyspace> {
        &self.keyspace
    }

    /// Identity and runtime settings shared by the front ends.
    pub fn info(&self) -> &Arc<ServerInfo> {
        &self.info
    }

    /// Persistence as the front ends see it.
    pub fn durability(&self) -> &Arc<ServerDurability> {
        &self.durability
    }

    /// Resolves with the cause once the command log or the SSD tier has
    /// failed for good, or the search indices could not be opened (see
    /// `fail_stop`): the caller stops the server without serving another
    /// request.
    pub fn failed(&self) -> impl std::future::Future<Output = String> + Send + 'static {
        let search = self.http.as_ref().map(|h| h.state().clone());
        crate::fail_stop::failed(self.keyspace.clone(), self.durability.clone(), search)
    }

    /// Resolves once the search indices are recovered and served (at once
    /// without the HTTP front end); `Err` with why if they could not be.
    pub fn search_recovered(
        &self,
    ) -> impl std::future::Future<Output = Result<(), String>> + Send + 'static {
        let recovered = self.http.as_ref().map(|h| h.recovered());
        async move {
            match recovered {
                Some(recovered) => recovered.await,
                None => Ok(()),
            }
        }
    }
}
