//! The `strata bench kv` command line: every knob of a run, with defaults and validation.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser};

use super::keys::{KeyPattern, KeySpace};
use super::mix::Ratio;
use super::protocol::Protocol;
use super::workload::Workload;
use crate::LabError;

/// Duration of a run when neither `--requests` nor `--duration` is given.
pub const DEFAULT_DURATION_SECS: f64 = 10.0;

/// Arguments of `strata bench kv`.
///
/// Construct from the command line, or from code with [`KvArgs::try_parse_from`] and then
/// adjust the public fields; [`KvArgs::validate`] checks the combination.
#[derive(Debug, Clone, Args)]
#[non_exhaustive]
pub struct KvArgs {
    /// Wire protocol to speak.
    #[arg(long, value_enum, default_value_t = Protocol::Resp)]
    pub protocol: Protocol,

    /// Server host name or address.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,

    /// Server port [default: 6379 for resp, 11211 for memcache].
    #[arg(long, conflicts_with = "spawn")]
    pub port: Option<u16>,

    /// Number of client connections, each one task.
    #[arg(long, default_value_t = 50)]
    pub connections: usize,

    /// Requests written per batch on each connection before reading their replies.
    #[arg(long, default_value_t = 1)]
    pub pipeline: usize,

    /// Worker threads of the client runtime (keep low when the server shares the machine).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,

    /// Set:get ratio, e.g. 1:10; 1:0 only sets, 0:1 only gets.
    #[arg(long, default_value_t = Ratio::default(), value_name = "SETS:GETS")]
    pub ratio: Ratio,

    /// Data type exercised (RESP only for all but string): see `workload`.
    #[arg(long, value_enum, default_value_t = Workload::String)]
    pub workload: Workload,

    /// Fields per hash (hset-hget) or members per sorted set (zadd-zrange) that the
    /// operations cycle through.
    #[arg(long, default_value_t = 10)]
    pub fields: u64,

    /// Members read by each ZRANGE of the zadd-zrange workload (ZRANGE key 0 RANGE-1).
    #[arg(long, default_value_t = 10)]
    pub range: u64,

    /// Queue workload: consumer connections doing BLPOP [default: --connections]
    /// (--connections is the number of producers).
    #[arg(long)]
    pub consumers: Option<usize>,

    /// Queue workload: lists the producers push onto (keys {prefix}queue:0 ..); each BLPOP
    /// names all of them.
    #[arg(long, default_value_t = 4)]
    pub queues: usize,

    /// Queue workload: BLPOP timeout in seconds; after the producers stop, a consumer leaves
    /// once a BLPOP times out.
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    pub pop_timeout: f64,

    /// How keys are chosen within [--key-min, --key-max).
    #[arg(long, value_enum, default_value_t = KeyPattern::Uniform)]
    pub key_pattern: KeyPattern,

    /// Exponent of the zipfian key pattern (key --key-min + k - 1 has weight k^-exponent).
    #[arg(long, default_value_t = 0.99)]
    pub zipf_exponent: f64,

    /// Standard deviation of the gaussian key pattern [default: key range / 6].
    #[arg(long)]
    pub key_stddev: Option<f64>,

    /// Smallest key number (inclusive).
    #[arg(long, default_value_t = 0)]
    pub key_min: u64,

    /// Key number bound (exclusive): keys are --key-min .. --key-max - 1.
    #[arg(long, default_value_t = 1_000_000)]
    pub key_max: u64,

    /// Key prefix; keys are {prefix}{number}.
    #[arg(long, default_value = "key:")]
    pub key_prefix: String,

    /// Size of each stored value in bytes (values are a fixed, deterministic pattern).
    #[arg(long, default_value_t = 50)]
    pub value_size: usize,

    /// Stop after this many measured requests in total (with --duration: whichever is first).
    #[arg(long)]
    pub requests: Option<u64>,

    /// Stop after this many measured seconds [default: 10 unless --requests is given].
    #[arg(long, value_name = "SECS")]
    pub duration: Option<f64>,

    /// Seconds of load before measuring starts; their results are discarded.
    #[arg(long, value_name = "SECS", default_value_t = 0.0)]
    pub warmup: f64,

    /// Seed for the per-connection random generators [default: random].
    #[arg(long)]
    pub seed: Option<u64>,

    /// Write the result as JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,

    /// Do not show the progress bar.
    #[arg(long)]
    pub quiet: bool,

    /// Also record per-second throughput and latency (JSON array and a table).
    #[arg(long)]
    pub timeline: bool,

    /// Password sent with AUTH on every RESP connection before the run.
    #[arg(
        long,
        value_name = "PASSWORD",
        env = "STRATA_BENCH_AUTH",
        hide_env_values = true
    )]
    pub auth: Option<String>,

    /// Remove all keys (FLUSHALL / flush_all) before the run.
    #[arg(long)]
    pub flush: bool,

    /// Process id of the server under test (on this machine): its user + system CPU time over
    /// the measured phase, from /proc/PID/stat, is reported per request. With --spawn the
    /// child's pid is used.
    #[arg(long, value_name = "PID", conflicts_with = "spawn")]
    pub server_pid: Option<u32>,

    /// Start a Strata server as a child process on free 127.0.0.1 ports for the run and stop it
    /// after (--host and --port are then not used).
    #[arg(long)]
    pub spawn: bool,

    /// Server executable for --spawn [default: this executable].
    #[arg(long, value_name = "PATH", requires = "spawn")]
    pub server_binary: Option<PathBuf>,

    /// Extra argument passed to the spawned `serve` command (repeat for several).
    #[arg(
        long = "server-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        requires = "spawn"
    )]
    pub server_args: Vec<String>,
}

/// Parses [`KvArgs`] outside a larger command line.
#[derive(Parser)]
#[command(name = "kv", no_binary_name = true)]
struct Standalone {
    #[command(flatten)]
    args: KvArgs,
}

impl KvArgs {
    /// Parses `kv` arguments (without a program name), e.g. `["--requests", "100"]`.
    pub fn try_parse_from<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        Standalone::try_parse_from(args).map(|s| s.args)
    }

    /// The port to connect to when not spawning a server.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or_else(|| self.protocol.default_port())
    }

    /// How long measuring lasts at most: `--duration`, else 10 s unless `--requests` bounds
    /// the run, else unbounded (`None`).
    pub fn measure_duration(&self) -> Option<Duration> {
        match (self.duration, self.requests) {
            (Some(secs), _) => Some(Duration::from_secs_f64(secs)),
            (None, Some(_)) => None,
            (None, None) => Some(Duration::from_secs_f64(DEFAULT_DURATION_SECS)),
        }
    }

    /// Builds the run's key space.
    pub fn key_space(&self) -> Result<KeySpace, LabError> {
        KeySpace::new(
            self.key_pattern,
            self.key_min,
            self.key_max,
            self.zipf_exponent,
            self.key_stddev,
        )
        .map_err(LabError::Config)
    }

    /// Checks that the arguments describe a possible run.
    pub fn validate(&self) -> Result<(), LabError> {
        let fail = |msg: &str| Err(LabError::Config(msg.to_owned()));
        let positive_secs = |s: f64| s.is_finite() && s > 0.0 && s < 1e9;
        if self.connections == 0 || self.pipeline == 0 || self.threads == 0 {
            return fail("--connections, --pipeline and --threads must be at least 1");
        }
        if !self.workload.supports(self.protocol) {
            return Err(LabError::Config(format!(
                "--workload {} needs --protocol resp: memcached has no hashes, lists, sorted sets or blocking pops",
                self.workload.name()
            )));
        }
        if self.fields == 0 || self.range == 0 || self.queues == 0 || self.consumers == Some(0) {
            return fail("--fields, --range, --queues and --consumers must be at least 1");
        }
        if !positive_secs(self.pop_timeout) {
            return fail("--pop-timeout must be a positive number of seconds");
        }
        if self
            .server_pid
            .is_some_and(|pid| !std::path::Path::new(&format!("/proc/{pid}/stat")).exists())
        {
            return fail(
                "--server-pid names no running process on this machine (no /proc/PID/stat)",
            );
        }
        if self.requests == Some(0) {
            return fail("--requests must be at least 1");
        }
        if self.duration.is_some_and(|d| !positive_secs(d)) {
            return fail("--duration must be a positive number of seconds");
        }
        if self.warmup != 0.0 && !positive_secs(self.warmup) {
            return fail("--warmup must be a non-negative number of seconds");
        }
        if self.auth.is_some() && self.protocol == Protocol::Memcache {
            return fail("--auth is only supported with --protocol resp");
        }
        if self
            .key_prefix
            .bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return fail("--key-prefix must not contain whitespace or control characters");
        }
        self.key_space().map(drop)
    }
}

impl Default for KvArgs {
    /// The command-line defaults.
    fn default() -> Self {
        Self::try_parse_from(std::iter::empty::<OsString>()).expect("defaults parse")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_documentation() {
        let args = KvArgs::default();
        assert_eq!(
            (args.protocol, args.port(), args.connections, args.pipeline),
            (Protocol::Resp, 6379, 50, 1)
        );
        assert_eq!((args.threads, args.ratio.to_string().as_str()), (1, "1:10"));
        assert_eq!(
            (args.key_min, args.key_max, args.key_prefix.as_str()),
            (0, 1_000_000, "key:")
        );
        assert_eq!(args.measure_duration(), Some(Duration::from_secs(10)));
        args.validate().unwrap();
        let mc = KvArgs::try_parse_from(["--protocol", "memcache", "--requests", "5"]).unwrap();
        assert_eq!((mc.port(), mc.measure_duration()), (11211, None));
    }

    #[test]
    fn rejects_impossible_runs() {
        let invalid = |argv: &[&str]| KvArgs::try_parse_from(argv).unwrap().validate().is_err();
        assert!(invalid(&["--connections", "0"]));
        assert!(invalid(&["--key-min", "10", "--key-max", "10"]));
        assert!(invalid(&["--duration", "0"]));
        assert!(invalid(&["--protocol", "memcache", "--auth", "pw"]));
        assert!(invalid(&["--key-prefix", "a b"]));
        assert!(invalid(&[
            "--protocol",
            "memcache",
            "--workload",
            "hset-hget"
        ]));
        assert!(invalid(&["--protocol", "memcache", "--workload", "queue"]));
        assert!(invalid(&["--workload", "queue", "--queues", "0"]));
        assert!(invalid(&["--workload", "queue", "--pop-timeout", "0"]));
        assert!(invalid(&["--server-pid", "4294967295"]));
        assert!(KvArgs::try_parse_from(["--ratio", "0:0"]).is_err());
        assert!(KvArgs::try_parse_from(["--server-arg", "x"]).is_err());
        assert!(KvArgs::try_parse_from(["--spawn", "--port", "1"]).is_err());
        let spawn =
            KvArgs::try_parse_from(["--spawn", "--server-arg", "--threads", "--server-arg", "2"])
                .unwrap();
        assert_eq!(spawn.server_args, ["--threads", "2"]);
    }
}
