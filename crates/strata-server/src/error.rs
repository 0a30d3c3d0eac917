//! [`ServerError`]: why the server could not start or keep running.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;

/// Why `strata serve` stopped with a failure. Configuration errors (exit code
/// 2) are reported before anything starts; the others (exit code 1) happen
/// while starting the runtime, the listeners or the data directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The `--config` file could not be read.
    #[error("cannot read config file {}: {source}", path.display())]
    ReadConfig {
        /// The file named with `--config`.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The `--config` file is not valid TOML or has an unknown or ill-typed key.
    #[error("invalid config file {}: {message}", path.display())]
    ParseConfig {
        /// The file named with `--config`.
        path: PathBuf,
        /// The parser's message, naming the line and key.
        message: String,
    },
    /// A setting is out of bounds or contradicts another one.
    #[error("invalid value for {option}: {message}")]
    InvalidOption {
        /// The setting (TOML key name; the flag is the same with `--` and `-`).
        option: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The ACL file (`aclfile`) could not be read or has bad lines (each
    /// named).
    #[error("cannot load aclfile: {0}")]
    AclFile(String),
    /// The memcached authentication file could not be read or has a bad
    /// line.
    #[error("{0}")]
    MemcacheAuthFile(#[source] strata_memcache::auth_file::AuthFileError),
    /// Logging could not be set up.
    #[error("cannot set up logging: {0}")]
    Logging(String),
    /// The data directory could not be created.
    #[error("cannot create data directory {}: {source}", path.display())]
    DataDir {
        /// The configured directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Cluster mode's config file (`cluster_config_file`) could not be
    /// read, is corrupted, or could not be written.
    #[error("cannot start cluster mode: {0}")]
    ClusterConfig(String),
    /// The keyspace's maintenance thread could not be started.
    #[error("cannot start the maintenance thread: {0}")]
    Maintenance(#[source] io::Error),
    /// The tokio runtime could not be built.
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] io::Error),
    /// A front end could not listen on its address.
    #[error("cannot listen on {addr} for the {protocol} front end: {source}")]
    Bind {
        /// `memcache`, `resp`, `resp-tls` or `http`.
        protocol: &'static str,
        /// The address asked for.
        addr: SocketAddr,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The persistent-memory file could not be opened, is damaged, or holds
    /// a keyspace placed differently.
    #[error("cannot open the keyspace's memory tiers: {0}")]
    Tier(String),
    /// Recovery failed or the persistence directories could not be opened.
    #[error("cannot recover: {0}")]
    Persistence(#[source] strata_persist::PersistError),
    /// The search indices under `<data_dir>/search` could not be opened or
    /// recovered.
    #[error("cannot open the search indices: {0}")]
    Search(#[source] strata_search::SearchError),
    /// The HTTP security realm (`http_security_dir`) or the API keys could
    /// not be read.
    #[error("cannot start HTTP security: {0}")]
    Security(String),

    /// The TLS certificate, key or CA file (`tls_cert_file`,
    /// `tls_key_file`, `tls_ca_cert_file`) cannot be used.
    #[error("cannot set up TLS: {0}")]
    Tls(#[source] strata_net::TlsError),

    /// A durable structure failed for good while serving; the server
    /// stopped at once so that no change that cannot be made durable stays
    /// visible (see `fail_stop`). Restart it to serve what is durable.
    #[error("stopped: {0}; no change that cannot be made durable is served (restart to serve the durable state)")]
    FailStop(String),
    /// Installing the signal handlers failed.
    #[error("cannot install signal handlers: {0}")]
    Signals(#[source] io::Error),
}

impl ServerError {
    /// The process exit code for this error: 2 for bad configuration (as for
    /// a bad command-line flag), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::ReadConfig { .. }
            | Self::ParseConfig { .. }
            | Self::InvalidOption { .. }
            | Self::Security(_)
            | Self::AclFile(_)
            | Self::MemcacheAuthFile(_) => 2,
            _ => 1,
        }
    }
}
