//! `strata serve` command-line options. Every option is optional: one given
//! here overrides the config file, which overrides the built-in default.

use std::net::IpAddr;
use std::path::PathBuf;

use super::modes::{DebugCommand, EvictionMode, LogFormat, WorkerMode};
use super::persistence::{HumanDuration, LogDevice, PersistenceMode, RecoveryMode};
use super::search::SearchTier;
use super::tiers::{DataPlacement, IndexPlacement, PmemPersist, SsdIo, SsdIoEngine, SsdReads};
use strata_units::ByteSize;

/// Options of `strata serve`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    /// Read settings from this TOML file (keys as in the option names with `_`
    /// instead of `-`, e.g. `memory_limit = "64mb"`, `memcache_enabled = false`);
    /// options given on the command line override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Address every front end listens on [default: 127.0.0.1].
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<IpAddr>,

    /// Port of the memcached text protocol front end; 0 picks a free port [default: 11211].
    #[arg(long, value_name = "PORT")]
    pub memcache_port: Option<u16>,

    /// Port of the Redis (RESP) front end; 0 picks a free port [default: 6379].
    #[arg(long, value_name = "PORT")]
    pub resp_port: Option<u16>,

    /// Port of the Elasticsearch-compatible HTTP front end; 0 picks a free
    /// port [default: 9200].
    #[arg(long, value_name = "PORT")]
    pub http_port: Option<u16>,

    /// Switch the HTTP (search) front end off.
    #[arg(long)]
    pub no_http: bool,

    /// Largest HTTP request body, e.g. `100mb`; larger requests get 413
    /// [default: 100mb].
    #[arg(long, value_name = "SIZE")]
    pub http_max_body: Option<ByteSize>,

    /// Directory of the HTTP file realm (`users`, `users_roles`,
    /// `roles.yml`, as Elasticsearch's); when set, every HTTP request must
    /// authenticate (basic auth or an API key) [default: none, security off].
    #[arg(long, value_name = "DIR")]
    pub http_security_dir: Option<PathBuf>,

    /// Switch the memcached front end off.
    #[arg(long)]
    pub no_memcache: bool,

    /// Switch the Redis (RESP) front end off.
    #[arg(long)]
    pub no_resp: bool,

    /// Worker threads serving connections [default: number of CPUs].
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// How key-value connections use the `--threads` workers: `adaptive`
    /// (as many as serve the most, measured while running: one while a
    /// second does not raise the served rate), `fixed` (all of them) or
    /// `shared` (tasks of one runtime whose workers steal work)
    /// [default: adaptive].
    #[arg(long, value_name = "MODE")]
    pub worker_mode: Option<WorkerMode>,

    /// Memory for items, e.g. `64mb`, `1gb` or a number of bytes; units are
    /// binary (k = kb = 1024) [default: 1gb].
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<ByteSize>,

    /// `on`: cache mode, least-recently-used items are evicted when memory is
    /// full; `off`: store mode, writes are refused with an out-of-memory error
    /// instead [default: on].
    #[arg(long, value_name = "MODE")]
    pub eviction: Option<EvictionMode>,

    /// Simultaneous connections allowed per front end; more are refused with
    /// the protocol's error [default: 10000].
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,

    /// Largest item (key + value) accepted, from 1kb to 128mb [default: 1mb].
    #[arg(long, value_name = "SIZE")]
    pub max_item_size: Option<ByteSize>,

    /// Redis `proto-max-bulk-len`: the largest bulk argument a RESP request
    /// may carry, from 1mb to 512mb (also `CONFIG SET`); values are stored
    /// only up to max-item-size [default: 512mb].
    #[arg(long, value_name = "SIZE")]
    pub proto_max_bulk_len: Option<ByteSize>,

    /// Password Redis clients must give with AUTH: the `default` user's
    /// password [default: none].
    #[arg(long, value_name = "PASSWORD")]
    pub requirepass: Option<String>,

    /// Redis Cluster mode on the RESP port: a one-node cluster owning every
    /// hash slot, for cluster-aware clients (`CROSSSLOT` for requests
    /// across slots) [default: off].
    #[arg(long)]
    pub cluster_enabled: bool,

    /// Cluster mode's node id and epoch, kept across restarts (Redis's
    /// nodes.conf); a relative path is under the data directory
    /// [default: nodes.conf].
    #[arg(long, value_name = "FILE")]
    pub cluster_config_file: Option<PathBuf>,

    /// Who may run Redis's DEBUG command on the RESP port: `no`, `yes` or
    /// `local` (loopback connections) [default: no].
    #[arg(long, value_name = "WHO")]
    pub enable_debug_command: Option<DebugCommand>,

    /// Redis ACL file (`user <name> <rules>` lines, Redis's format), loaded
    /// at start (a bad line refuses to start) and by ACL LOAD, written by
    /// ACL SAVE [default: none].
    #[arg(long, value_name = "FILE")]
    pub aclfile: Option<PathBuf>,

    /// memcached authentication file (`user:password` lines, as memcached's
    /// -Y): clients must log in with a `set` whose data is `<user>
    /// <password>` before anything else [default: none].
    #[arg(long, value_name = "FILE")]
    pub memcache_auth_file: Option<PathBuf>,

    /// Serve the memcached port without authentication although the Redis
    /// port requires it (requirepass or ACL users with passwords); without
    /// this such a configuration refuses to start.
    #[arg(long)]
    pub memcache_unauthenticated: bool,

    /// Directory for the server's files, created at start [default: ./strata-data].
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Log level or tracing filter (`error`, `warn`, `info`, `debug`, `trace`,
    /// or directives like `info,strata_resp=debug`); the `RUST_LOG`
    /// environment variable overrides it [default: info].
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,

    /// Log line format [default: text].
    #[arg(long, value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,

    /// Advanced: number of keyspace shards (locks), a power of two [default: 64].
    #[arg(long, value_name = "N")]
    pub shards: Option<usize>,

    /// `off`: a pure cache; `async`: changes logged and synced every
    /// --sync-interval (a crash loses at most that); `sync`: a write is
    /// acknowledged only once its log record is on disk [default: off].
    #[arg(long, value_name = "MODE")]
    pub persistence: Option<PersistenceMode>,

    /// Directory of the command log [default: <data-dir>/log].
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,

    /// Directory of the snapshots, may be on another device [default: <data-dir>/snapshots].
    #[arg(long, value_name = "DIR")]
    pub snapshot_dir: Option<PathBuf>,

    /// In async mode, longest time a write stays unsynced, e.g. `1s`,
    /// `100ms`; at least 10ms [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub sync_interval: Option<HumanDuration>,

    /// In sync mode, the longest a log sync is held so that more writers'
    /// records share it (group commit), e.g. `500us`, `1ms`; `0ms` starts
    /// every sync at once; at most 10ms [default: 500us].
    #[arg(long, value_name = "DURATION")]
    pub group_commit_delay: Option<HumanDuration>,

    /// How the log is made durable: `fdatasync`, or `direct` for
    /// O_DIRECT|O_DSYNC writes [default: fdatasync].
    #[arg(long, value_name = "DEVICE")]
    pub log_device: Option<LogDevice>,

    /// Size at which log segments are rotated, at least 64kb [default: 64mb].
    #[arg(long, value_name = "SIZE")]
    pub log_segment_size: Option<ByteSize>,

    /// A checkpoint starts once the log since the last one is at least this
    /// large ... [default: 256mb]
    #[arg(long, value_name = "SIZE")]
    pub checkpoint_min_log_size: Option<ByteSize>,

    /// ... and at least this percentage of the last snapshot's size [default: 100].
    #[arg(long, value_name = "PCT")]
    pub checkpoint_log_ratio_pct: Option<u64>,

    /// Bytes per second a checkpoint writes at most [default: 256mb].
    #[arg(long, value_name = "SIZE")]
    pub checkpoint_io_rate: Option<ByteSize>,

    /// Percent of the machine's cores a background checkpoint (BGSAVE, or
    /// started by the log's growth) may keep busy, at most one core; 0 for
    /// no limit. SAVE runs unpaced [default: 5].
    #[arg(long, value_name = "PCT")]
    pub checkpoint_cpu_pct: Option<u32>,

    /// `strict`: refuse to start on a damaged snapshot or log (other than a
    /// torn log tail), naming the file and offset; `last-good`: start from
    /// the last good point, dropping what follows the damage [default: strict].
    #[arg(long, value_name = "MODE")]
    pub recovery: Option<RecoveryMode>,

    /// Tier of the hash index: `dram`, or `pmem` to restart without
    /// rebuilding it (with data in pmem) [default: dram].
    #[arg(long, value_name = "TIER")]
    pub index: Option<IndexPlacement>,

    /// Tier of the records: `dram`, or `pmem` to keep them durable in the
    /// persistent-memory file [default: dram].
    #[arg(long, value_name = "TIER")]
    pub data: Option<DataPlacement>,

    /// Persistent-memory file, on a DAX filesystem for real persistent
    /// memory (tmpfs emulates it) [default: <data-dir>/strata.pmem].
    #[arg(long, value_name = "FILE")]
    pub pmem_path: Option<PathBuf>,

    /// Size of the persistent-memory file when it is created; an existing
    /// file keeps its size [default: 1gb].
    #[arg(long, value_name = "SIZE")]
    pub pmem_size: Option<ByteSize>,

    /// `auto`: real persistent memory when the file is on DAX, else
    /// emulated with msync (said at start-up and in stats); `dax`: refuse
    /// to start without DAX; `emulated`: always msync [default: auto].
    #[arg(long, value_name = "MODE")]
    pub pmem_persist: Option<PmemPersist>,

    /// The SSD tier's device (with `--data ssd`): a directory, where one
    /// file of `--ssd-size` is made, or a block device [default: <data-dir>/ssd].
    #[arg(long, value_name = "PATH")]
    pub ssd_path: Option<PathBuf>,

    /// Size of the SSD tier's file when it is created in a directory; an
    /// existing file must have this size [default: 4gb].
    #[arg(long, value_name = "SIZE")]
    pub ssd_size: Option<ByteSize>,

    /// Bytes per SSD write block, a power of two from 64kb to 8mb; must
    /// match the device's format [default: 1mb].
    #[arg(long, value_name = "SIZE")]
    pub ssd_block_size: Option<ByteSize>,

    /// `direct` (O_DIRECT: the engine, not the page cache, decides what
    /// stays in DRAM) or `buffered` for filesystems without O_DIRECT
    /// [default: direct].
    #[arg(long, value_name = "MODE")]
    pub ssd_io: Option<SsdIo>,

    /// Threads reading the SSD for requests (reads in flight at once) with
    /// the `threads` engine [default: 16].
    #[arg(long, value_name = "N")]
    pub ssd_io_threads: Option<usize>,

    /// How the SSD tier reads: `uring` (each serving thread reads its
    /// misses through its own io_uring ring, the rest through one thread
    /// keeping up to 8x `--ssd-io-threads`, at least 64, in flight;
    /// `threads` where the kernel refuses io_uring) or `threads` (one
    /// blocking read per thread at a time) [default: uring].
    #[arg(long, value_name = "ENGINE")]
    pub ssd_io_engine: Option<SsdIoEngine>,

    /// Byte budget of the DRAM record cache in front of the SSD (S3-FIFO,
    /// scan resistant) [default: 64mb].
    #[arg(long, value_name = "SIZE")]
    pub dram_cache_size: Option<ByteSize>,

    /// How often records written to the SSD are made durable: a power cut
    /// loses at most this window [default: 100ms].
    #[arg(long, value_name = "DURATION")]
    pub ssd_flush_interval: Option<HumanDuration>,

    /// SSD blocks with less live data than this percentage are
    /// defragmented (1-99) [default: 50].
    #[arg(long, value_name = "PCT")]
    pub ssd_defrag_threshold_pct: Option<u8>,

    /// How a request reads a value only the SSD has: `deferred` (it waits
    /// off the worker thread while an I/O thread reads; many reads in
    /// flight) or `inline` (the worker reads itself: no hand-off, but that
    /// thread waits for the device) [default: deferred].
    #[arg(long, value_name = "PATH")]
    pub ssd_reads: Option<SsdReads>,

    /// Default `index.store.tier` of new search indices: `dram`, `ssd`
    /// (flushed segments read through the --search-cache-size cache) or
    /// `pmem` (fresh segments durable at refresh in --search-pmem-dir)
    /// [default: dram].
    #[arg(long, value_name = "TIER")]
    pub search_tier: Option<SearchTier>,

    /// DRAM budget of the block cache in front of flushed search segments
    /// (`ssd` and `pmem` indices) [default: 256mb].
    #[arg(long, value_name = "SIZE")]
    pub search_cache_size: Option<ByteSize>,

    /// One DRAM cache for every engine, of this byte budget: the SSD
    /// tier's records and search's segment blocks share it (one eviction
    /// order, each counted on its own in INFO cache and _nodes/stats); not
    /// with --dram-cache-size or --search-cache-size [default: unset, each
    /// engine has a cache of its own].
    #[arg(long, value_name = "SIZE")]
    pub cache_size: Option<ByteSize>,

    /// With --cache-size: bytes of the SSD tier's records (kv_records)
    /// that the shared cache's eviction spares while another user holds
    /// more than its own floor [default: 0].
    #[arg(long, value_name = "SIZE")]
    pub kv_records_cache_floor: Option<ByteSize>,

    /// With --cache-size: bytes of the SSD tier's records the shared cache
    /// holds at most [default: the whole budget].
    #[arg(long, value_name = "SIZE")]
    pub kv_records_cache_ceiling: Option<ByteSize>,

    /// With --cache-size: bytes of search's blocks (search_blocks) that the
    /// shared cache's eviction spares while another user holds more than
    /// its own floor [default: 0].
    #[arg(long, value_name = "SIZE")]
    pub search_blocks_cache_floor: Option<ByteSize>,

    /// With --cache-size: bytes of search's blocks the shared cache holds
    /// at most [default: the whole budget].
    #[arg(long, value_name = "SIZE")]
    pub search_blocks_cache_ceiling: Option<ByteSize>,

    /// Nice value of the search engine's indexing and merge threads and of
    /// a flush's copying, so that searches preempt them on busy cores; 0
    /// runs them at the searches' priority, at most 19 [default: 10].
    #[arg(long, value_name = "NICE")]
    pub search_indexing_nice: Option<u8>,

    /// Longest pause of a search merge while searches run, so that merges
    /// do not slow searches on busy cores; a merge still runs 1 ms between
    /// pauses. `0ms` never pauses merges, at most 1s [default: 20ms].
    #[arg(long, value_name = "DURATION")]
    pub search_merge_pause: Option<HumanDuration>,

    /// Directory of the fresh segments of `pmem` search indices, on a DAX
    /// filesystem (tmpfs emulates it) [default: <pmem-path>.search].
    #[arg(long, value_name = "DIR")]
    pub search_pmem_dir: Option<PathBuf>,

    /// TLS, protected mode, idle and request timeouts.
    #[command(flatten)]
    pub transport: super::transport::TransportArgs,

    /// The metrics port and the slow log.
    #[command(flatten)]
    pub observability: super::observability::ObservabilityArgs,
}
