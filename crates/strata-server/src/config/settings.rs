//! [`ServerConfig`]: every setting of a running server, its built-in
//! defaults and the bounds of the general ones, read from TOML. Checking
//! the settings is `rules`, merging the flags over them is `apply`.

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use strata_search::{IndexingPriority, MergeYield};

use crate::config::modes::{DebugCommand, EvictionMode, LogFormat, WorkerMode};
use crate::config::observability;
use crate::config::persistence::{HumanDuration, LogDevice, PersistenceMode, RecoveryMode};
use crate::config::search::SearchTier;
use crate::config::tiers::{
    DataPlacement, IndexPlacement, PmemPersist, SsdIo, SsdIoEngine, SsdReads,
};
use crate::config::transport::{ProtectedModeSetting, TlsAuthClients};
use crate::error::ServerError;
use strata_units::ByteSize;

/// Smallest allowed `max_item_size`.
pub const MIN_ITEM_SIZE: ByteSize = ByteSize::kib(1);
/// Largest allowed `max_item_size`.
pub const MAX_ITEM_SIZE: ByteSize = ByteSize::mib(128);
/// Smallest allowed `proto_max_bulk_len` (Redis's minimum).
pub const MIN_BULK_LEN: ByteSize = ByteSize::mib(1);
/// Largest allowed `proto_max_bulk_len`, and its default (Redis's).
pub const MAX_BULK_LEN: ByteSize = ByteSize::mib(512);
/// Smallest allowed `memory_limit`.
pub const MIN_MEMORY_LIMIT: ByteSize = ByteSize::mib(1);
/// Largest allowed `threads`.
pub const MAX_THREADS: usize = 1024;
/// Largest allowed `max_connections`.
pub const MAX_CONNECTIONS: usize = 1_000_000;
/// Largest allowed `shards`.
pub const MAX_SHARDS: usize = 4096;
/// Smallest allowed `http_max_body`.
pub const MIN_HTTP_BODY: ByteSize = ByteSize::kib(1);
/// Largest allowed `http_max_body`.
pub const MAX_HTTP_BODY: ByteSize = ByteSize::mib(2047);

/// Every setting of a running server. In a TOML file all keys are optional
/// and unknown keys are an error.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address every front end listens on.
    pub bind: IpAddr,
    /// memcached text protocol port (0: any free port).
    pub memcache_port: u16,
    /// Whether the memcached front end runs.
    pub memcache_enabled: bool,
    /// RESP port (0: any free port).
    pub resp_port: u16,
    /// Whether the RESP front end runs.
    pub resp_enabled: bool,
    /// Elasticsearch-compatible HTTP port (0: any free port).
    pub http_port: u16,
    /// Whether the HTTP (search) front end runs.
    pub http_enabled: bool,
    /// Largest HTTP request body; larger ones get 413.
    pub http_max_body: ByteSize,
    /// The HTTP file realm's directory; `None`: no authentication.
    pub http_security_dir: Option<PathBuf>,
    /// Worker threads serving connections (and the server runtime's).
    pub threads: usize,
    /// How key-value connections are spread over the workers.
    pub worker_mode: WorkerMode,
    /// Memory for items.
    pub memory_limit: ByteSize,
    /// Cache mode (evict) or store mode (refuse writes) when memory is full.
    pub eviction: EvictionMode,
    /// Simultaneous connections per front end.
    pub max_connections: usize,
    /// Largest item accepted.
    pub max_item_size: ByteSize,
    /// Redis `proto-max-bulk-len` at start: the largest RESP bulk argument.
    pub proto_max_bulk_len: ByteSize,
    /// Redis AUTH password (the default user's); `None` (or empty in the
    /// file) for none.
    pub requirepass: Option<String>,
    /// Redis Cluster mode on the RESP port (a one-node cluster owning every
    /// slot; see `strata_resp::cluster`).
    pub cluster_enabled: bool,
    /// Redis `cluster-config-file`: where cluster mode keeps the node id
    /// and epoch; a relative path is under `data_dir`.
    pub cluster_config_file: PathBuf,
    /// Who may run Redis's `DEBUG` (`enable-debug-command`).
    pub enable_debug_command: DebugCommand,
    /// Redis ACL file: users loaded at start, `ACL LOAD` and `ACL SAVE`.
    pub aclfile: Option<PathBuf>,
    /// memcached ASCII authentication file (`user:password` lines, as
    /// memcached's `-Y`); `None`: the memcached port needs no login.
    pub memcache_auth_file: Option<PathBuf>,
    /// Serve the memcached port without authentication even though RESP
    /// requires it (otherwise such a configuration is refused).
    pub memcache_unauthenticated: bool,
    /// Directory for the server's files.
    pub data_dir: PathBuf,
    /// Log level or tracing filter directives.
    pub log_level: String,
    /// Log line format.
    pub log_format: LogFormat,
    /// Keyspace shards.
    pub shards: usize,
    /// Persistence: `off`, `async` or `sync`.
    pub persistence: PersistenceMode,
    /// Command log directory; `<data_dir>/log` when unset.
    pub log_dir: Option<PathBuf>,
    /// Snapshot directory; `<data_dir>/snapshots` when unset.
    pub snapshot_dir: Option<PathBuf>,
    /// Longest time an async-mode write stays unsynced.
    pub sync_interval: HumanDuration,
    /// In sync mode, the longest a log sync waits for its group to fill.
    pub group_commit_delay: HumanDuration,
    /// How log files are made durable.
    pub log_device: LogDevice,
    /// Log segment size.
    pub log_segment_size: ByteSize,
    /// A checkpoint starts when the log since the last one is at least
    /// this large ...
    pub checkpoint_min_log_size: ByteSize,
    /// ... and at least this percentage of the last snapshot's size.
    pub checkpoint_log_ratio_pct: u64,
    /// Bytes per second a checkpoint writes at most.
    pub checkpoint_io_rate: ByteSize,
    /// Percent of the cores a checkpoint may use (at most one core); 0: no limit.
    pub checkpoint_cpu_pct: u32,
    /// What recovery does with damage that is not a torn log tail.
    pub recovery: RecoveryMode,
    /// Tier of the hash index.
    pub index: IndexPlacement,
    /// Tier of the records.
    pub data: DataPlacement,
    /// Persistent-memory file; `<data_dir>/strata.pmem` when unset.
    pub pmem_path: Option<PathBuf>,
    /// Size of the persistent-memory file when it is created.
    pub pmem_size: ByteSize,
    /// How the persistent-memory file is made durable.
    pub pmem_persist: PmemPersist,
    /// The SSD tier's device: a directory (one file in it) or a block
    /// device; `<data_dir>/ssd` when unset.
    pub ssd_path: Option<PathBuf>,
    /// Size of the SSD tier's file when it is created in a directory.
    pub ssd_size: ByteSize,
    /// Bytes per SSD write block.
    pub ssd_block_size: ByteSize,
    /// Direct (`O_DIRECT`) or buffered I/O on the SSD.
    pub ssd_io: SsdIo,
    /// Threads reading the SSD for requests.
    pub ssd_io_threads: usize,
    /// How the SSD reader threads read.
    pub ssd_io_engine: SsdIoEngine,
    /// Byte budget of the DRAM record cache in front of the SSD; unset:
    /// 64mb ([`DEFAULT_RECORD_CACHE`](crate::config::tiers::DEFAULT_RECORD_CACHE)).
    /// Refused beside `cache_size`.
    pub dram_cache_size: Option<ByteSize>,
    /// How often records appended to the SSD are made durable.
    pub ssd_flush_interval: HumanDuration,
    /// SSD blocks with less live data than this percentage are defragmented.
    pub ssd_defrag_threshold_pct: u8,
    /// How requests read values only the SSD has.
    pub ssd_reads: SsdReads,
    /// Default `index.store.tier` of new search indices.
    pub search_tier: SearchTier,
    /// DRAM budget of the block cache in front of flushed search segments;
    /// unset: 256mb ([`DEFAULT_SEARCH_CACHE`](crate::config::search::DEFAULT_SEARCH_CACHE)).
    /// Refused beside `cache_size`.
    pub search_cache_size: Option<ByteSize>,
    /// One DRAM cache for every engine: its byte budget, which the SSD
    /// tier's records and search's blocks share (`rules::caches`); unset:
    /// each has a cache of its own (`dram_cache_size`, `search_cache_size`).
    pub cache_size: Option<ByteSize>,
    /// Bytes of the shared cache below which the global eviction spares the
    /// SSD tier's records (`kv_records`); only with `cache_size`.
    pub kv_records_cache_floor: Option<ByteSize>,
    /// Bytes of the shared cache the SSD tier's records may hold at most;
    /// only with `cache_size`.
    pub kv_records_cache_ceiling: Option<ByteSize>,
    /// Bytes of the shared cache below which the global eviction spares
    /// search's blocks (`search_blocks`); only with `cache_size`.
    pub search_blocks_cache_floor: Option<ByteSize>,
    /// Bytes of the shared cache search's blocks may hold at most; only
    /// with `cache_size`.
    pub search_blocks_cache_ceiling: Option<ByteSize>,
    /// Nice value of the search indexing and merge threads (0..=19).
    pub search_indexing_nice: u8,
    /// Longest pause of a search merge while searches run (0: merges never
    /// pause); see `strata_search::MergeYield`.
    pub search_merge_pause: HumanDuration,
    /// Directory of `pmem` search indices' fresh segments;
    /// `<pmem file>.search` when unset.
    pub search_pmem_dir: Option<PathBuf>,
    /// RESP over TLS on this port (Redis's `tls-port`); none when unset.
    pub tls_port: Option<u16>,
    /// Whether the memcached port speaks TLS (memcached's `-Z`).
    pub memcache_tls: bool,
    /// Whether the HTTP port speaks TLS.
    pub http_tls: bool,
    /// The server's certificate chain (PEM) for every TLS port.
    pub tls_cert_file: Option<PathBuf>,
    /// Its private key (PEM).
    pub tls_key_file: Option<PathBuf>,
    /// CA certificates (PEM) client certificates must chain to.
    pub tls_ca_cert_file: Option<PathBuf>,
    /// Whether TLS clients must present a certificate; see
    /// [`ServerConfig::tls_client_auth`] for the default.
    pub tls_auth_clients: Option<TlsAuthClients>,
    /// Redis's protected mode, for every port.
    pub protected_mode: ProtectedModeSetting,
    /// Seconds a RESP connection may stay idle (Redis's `timeout`); 0: ever.
    pub timeout: u64,
    /// Seconds a memcached connection may stay idle; 0: ever.
    pub idle_timeout: u64,
    /// Time for a started memcached or RESP request to arrive.
    pub request_timeout: HumanDuration,
    /// Time for an HTTP request's headers to arrive.
    pub http_header_timeout: HumanDuration,
    /// Time for an HTTP request's body to arrive.
    pub http_body_timeout: HumanDuration,
    /// Whether the Prometheus metrics port runs.
    pub metrics_enabled: bool,
    /// The metrics port (0: any free port).
    pub metrics_port: u16,
    /// Whether the metrics port speaks TLS.
    pub metrics_tls: bool,
    /// Redis `slowlog-log-slower-than` at start, microseconds (-1: off).
    pub slowlog_log_slower_than: i64,
    /// Redis `slowlog-max-len` at start.
    pub slowlog_max_len: usize,
    /// Redis `notify-keyspace-events` at start (Redis's letters; empty:
    /// off).
    pub notify_keyspace_events: String,
    /// The commit the binary was built from, reported by `INFO`, `stats`
    /// and `GET /` (`build_hash`): set by the binary ([`crate::run_serve`]),
    /// not a setting of the file; `unknown` when not set.
    #[serde(skip)]
    pub build_commit: String,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            memcache_port: 11211,
            memcache_enabled: true,
            resp_port: 6379,
            resp_enabled: true,
            http_port: 9200,
            http_enabled: true,
            http_max_body: ByteSize::mib(100),
            http_security_dir: None,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            worker_mode: WorkerMode::default(),
            memory_limit: ByteSize::mib(1024),
            eviction: EvictionMode::On,
            max_connections: 10_000,
            max_item_size: ByteSize::mib(1),
            proto_max_bulk_len: MAX_BULK_LEN,
            requirepass: None,
            cluster_enabled: false,
            cluster_config_file: PathBuf::from("nodes.conf"),
            enable_debug_command: DebugCommand::default(),
            aclfile: None,
            memcache_auth_file: None,
            memcache_unauthenticated: false,
            data_dir: PathBuf::from("./strata-data"),
            log_level: "info".to_owned(),
            log_format: LogFormat::Text,
            shards: 64,
            persistence: PersistenceMode::Off,
            log_dir: None,
            snapshot_dir: None,
            sync_interval: HumanDuration(std::time::Duration::from_secs(1)),
            group_commit_delay: HumanDuration(
                strata_log::LogConfig::DEFAULT_GROUP_COMMIT_MAX_DELAY,
            ),
            log_device: LogDevice::Fdatasync,
            log_segment_size: ByteSize::mib(64),
            checkpoint_min_log_size: ByteSize::mib(256),
            checkpoint_log_ratio_pct: 100,
            checkpoint_io_rate: ByteSize::mib(256),
            checkpoint_cpu_pct: strata_persist::PersistConfig::DEFAULT_CPU_PCT,
            recovery: RecoveryMode::Strict,
            index: IndexPlacement::Dram,
            data: DataPlacement::Dram,
            pmem_path: None,
            pmem_size: ByteSize::mib(1024),
            pmem_persist: PmemPersist::Auto,
            ssd_path: None,
            ssd_size: ByteSize::mib(4096),
            ssd_block_size: ByteSize::mib(1),
            ssd_io: SsdIo::Direct,
            ssd_io_threads: 16,
            ssd_io_engine: SsdIoEngine::Uring,
            dram_cache_size: None,
            ssd_flush_interval: HumanDuration(std::time::Duration::from_millis(100)),
            ssd_defrag_threshold_pct: 50,
            ssd_reads: SsdReads::Deferred,
            search_tier: SearchTier::Dram,
            search_cache_size: None,
            cache_size: None,
            kv_records_cache_floor: None,
            kv_records_cache_ceiling: None,
            search_blocks_cache_floor: None,
            search_blocks_cache_ceiling: None,
            search_indexing_nice: IndexingPriority::DEFAULT.nice(),
            search_merge_pause: HumanDuration(MergeYield::DEFAULT.max_pause()),
            search_pmem_dir: None,
            tls_port: None,
            memcache_tls: false,
            http_tls: false,
            tls_cert_file: None,
            tls_key_file: None,
            tls_ca_cert_file: None,
            tls_auth_clients: None,
            protected_mode: ProtectedModeSetting::Yes,
            timeout: 0,
            idle_timeout: 0,
            request_timeout: HumanDuration(strata_service::DEFAULT_REQUEST_TIMEOUT),
            http_header_timeout: HumanDuration(strata_es::HttpLimits::default().header_timeout),
            http_body_timeout: HumanDuration(strata_es::HttpLimits::default().body_timeout),
            metrics_enabled: false,
            metrics_port: observability::DEFAULT_METRICS_PORT,
            metrics_tls: false,
            slowlog_log_slower_than: observability::DEFAULT_SLOWER_THAN_US,
            slowlog_max_len: observability::DEFAULT_MAX_LEN,
            notify_keyspace_events: String::new(),
            build_commit: strata_service::UNKNOWN_COMMIT.to_owned(),
        }
    }
}

impl ServerConfig {
    /// Reads a TOML config file (not yet validated).
    pub fn from_file(path: &Path) -> Result<Self, ServerError> {
        let text = std::fs::read_to_string(path).map_err(|source| ServerError::ReadConfig {
            path: path.to_owned(),
            source,
        })?;
        Self::from_toml(&text).map_err(|message| ServerError::ParseConfig {
            path: path.to_owned(),
            message,
        })
    }

    /// Parses TOML text (not yet validated); the error is a readable message
    /// naming the line and key.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|err| err.to_string().trim_end().to_owned())
    }

    /// Whether HTTP requests must authenticate (a file realm is set), for
    /// whatever decides what an unauthenticated port may expose.
    pub fn http_requires_authentication(&self) -> bool {
        self.http_security_dir.is_some()
    }

    /// memcached `verbosity` equivalent of the log level (0 unless debugging).
    pub fn verbosity(&self) -> u32 {
        match self.log_level.trim() {
            "trace" => 2,
            "debug" => 1,
            _ => 0,
        }
    }
}
