//! Observability settings: the Prometheus metrics port (`metrics_enabled`,
//! `metrics_port`, `metrics_tls`; TLS and protected mode as the other
//! ports have them) and the Redis slow log's start values
//! (`slowlog_log_slower_than`, `slowlog_max_len`; both also `CONFIG SET`)
//! and keyspace notifications (`notify_keyspace_events`, also `CONFIG
//! SET`).

pub use strata_resp::slowlog::{DEFAULT_MAX_LEN, DEFAULT_SLOWER_THAN_US, MAX_LEN_LIMIT};

/// The metrics port's default: OpenTelemetry's Prometheus exporter's.
pub const DEFAULT_METRICS_PORT: u16 = 9464;

/// The `strata serve` flags of the observability settings.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ObservabilityArgs {
    /// Serve Prometheus metrics on --metrics-port (`GET /metrics`).
    #[arg(long)]
    pub metrics: bool,

    /// Port of the Prometheus metrics endpoint; 0 picks a free port
    /// [default: 9464].
    #[arg(long, value_name = "PORT")]
    pub metrics_port: Option<u16>,

    /// The metrics port speaks TLS (https).
    #[arg(long)]
    pub metrics_tls: bool,

    /// Redis slow log: log commands that ran at least this many
    /// microseconds; -1 off, 0 every command (also `CONFIG SET
    /// slowlog-log-slower-than`) [default: 10000].
    #[arg(long, value_name = "MICROS", allow_hyphen_values = true)]
    pub slowlog_log_slower_than: Option<i64>,

    /// Redis slow log: entries kept, at most 65536 (also `CONFIG SET
    /// slowlog-max-len`) [default: 128].
    #[arg(long, value_name = "N")]
    pub slowlog_max_len: Option<usize>,

    /// Redis keyspace notifications: the classes to publish, in Redis's
    /// letters (`KEA`, `Ex`, ...; also `CONFIG SET notify-keyspace-events`)
    /// [default: "", off].
    #[arg(long, value_name = "CLASSES")]
    pub notify_keyspace_events: Option<String>,
}
