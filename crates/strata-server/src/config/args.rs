//! `strata serve` command-line options. Every option is optional: one given
//! here overrides the config file, which overrides the built-in default.

use std::net::IpAddr;
use std::path::PathBuf;

use super::modes::{EvictionMode, LogFormat};
use super::size::ByteSize;
use super::ServerConfig;

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

    /// Switch the memcached front end off.
    #[arg(long)]
    pub no_memcache: bool,

    /// Switch the Redis (RESP) front end off.
    #[arg(long)]
    pub no_resp: bool,

    /// Worker threads serving connections [default: number of CPUs].
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

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

    /// Password Redis clients must give with AUTH [default: none].
    #[arg(long, value_name = "PASSWORD")]
    pub requirepass: Option<String>,

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
}

impl ServeArgs {
    /// Overwrites the settings of `config` that were given on the command line.
    pub fn apply_to(&self, config: &mut ServerConfig) {
        fn set<T: Clone>(slot: &mut T, value: &Option<T>) {
            if let Some(v) = value {
                *slot = v.clone();
            }
        }
        set(&mut config.bind, &self.bind);
        set(&mut config.memcache_port, &self.memcache_port);
        set(&mut config.resp_port, &self.resp_port);
        if self.no_memcache {
            config.memcache_enabled = false;
        }
        if self.no_resp {
            config.resp_enabled = false;
        }
        set(&mut config.threads, &self.threads);
        set(&mut config.memory_limit, &self.memory_limit);
        set(&mut config.eviction, &self.eviction);
        set(&mut config.max_connections, &self.max_connections);
        set(&mut config.max_item_size, &self.max_item_size);
        if let Some(password) = &self.requirepass {
            config.requirepass = Some(password.clone());
        }
        set(&mut config.data_dir, &self.data_dir);
        set(&mut config.log_level, &self.log_level);
        set(&mut config.log_format, &self.log_format);
        set(&mut config.shards, &self.shards);
    }
}
