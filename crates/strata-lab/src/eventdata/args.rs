//! The `strata bench eventdata` command line: server, index settings, phases and their
//! knobs, with defaults and validation.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, ValueEnum};
use serde::{Deserialize, Serialize};

use super::timestamp;
use crate::LabError;

/// A phase of the benchmark, run in the order index, query, mixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Bulk indexing with concurrent clients as fast as the server takes it.
    Index,
    /// The Kibana dashboards over current and relative windows, no indexing.
    Query,
    /// Indexing at a target rate while one client runs the dashboards.
    Mixed,
}

/// `index.translog.durability` of the created index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Durability {
    /// Acknowledge an indexing request after its translog entry is synced.
    Request,
    /// Sync the translog in the background.
    Async,
}

impl Durability {
    /// The setting's value.
    pub fn name(self) -> &'static str {
        match self {
            Durability::Request => "request",
            Durability::Async => "async",
        }
    }
}

/// Arguments of `strata bench eventdata`.
#[derive(Debug, Clone, Args)]
#[non_exhaustive]
pub struct EventdataArgs {
    /// Base URL of the Elasticsearch-compatible server (http only).
    #[arg(long, default_value = "http://127.0.0.1:9200")]
    pub url: String,

    /// Index to create, fill and query.
    #[arg(long, default_value = "elasticlogs")]
    pub index: String,

    /// Phases to run, comma-separated: index, query, mixed.
    #[arg(long, value_delimiter = ',', default_value = "index,query,mixed")]
    pub phases: Vec<Phase>,

    /// Delete the index first if it exists.
    #[arg(long)]
    pub fresh: bool,

    /// `number_of_shards` of the created index.
    #[arg(long, default_value_t = 2)]
    pub shards: u32,

    /// `refresh_interval` of the created index (e.g. 1s, 500ms, -1).
    #[arg(long, default_value = "1s", allow_hyphen_values = true)]
    pub refresh_interval: String,

    /// `translog.durability` of the created index.
    #[arg(long, value_enum, default_value_t = Durability::Request)]
    pub durability: Durability,

    /// Concurrent bulk clients.
    #[arg(long, default_value_t = 4)]
    pub clients: usize,

    /// Documents per `_bulk` request.
    #[arg(long, default_value_t = 1000)]
    pub bulk_size: u64,

    /// Documents indexed by the index phase.
    #[arg(long, default_value_t = 100_000)]
    pub docs: u64,

    /// Events per second of simulated log time: sets the time span of the data (the
    /// default makes 5,000,000 documents span about 83 minutes).
    #[arg(long, default_value_t = 1000.0)]
    pub event_rate: f64,

    /// Simulated time of the first document: YYYY-MM-DD[THH:MM:SS[Z]] (UTC) or epoch ms.
    #[arg(long, default_value = "2026-01-01T00:00:00Z")]
    pub start: String,

    /// Seed of the document generator: the same seed gives the same documents.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Runs of each dashboard over each window in the query phase.
    #[arg(long, default_value_t = 20)]
    pub query_iterations: u32,

    /// `time_zone` of the dashboards' date histograms (the track uses Europe/London).
    #[arg(long, default_value = "Europe/London")]
    pub time_zone: String,

    /// Target indexing rate of the mixed phase, documents per second.
    #[arg(long, default_value_t = 5000.0)]
    pub mixed_rate: f64,

    /// Seconds the mixed phase lasts.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub mixed_duration: f64,

    /// Seconds before an unanswered request counts as failed.
    #[arg(long, value_name = "SECS", default_value_t = 120.0)]
    pub timeout: f64,

    /// Worker threads of the client runtime (keep low when the server shares the machine).
    #[arg(long, default_value_t = 2)]
    pub threads: usize,

    /// Write the result as JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,

    /// Do not show progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// Parses [`EventdataArgs`] outside a larger command line.
#[derive(Parser)]
#[command(name = "eventdata", no_binary_name = true)]
struct Standalone {
    #[command(flatten)]
    args: EventdataArgs,
}

impl EventdataArgs {
    /// Parses `eventdata` arguments (without a program name), e.g. `["--docs", "100"]`.
    pub fn try_parse_from<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        Standalone::try_parse_from(args).map(|s| s.args)
    }

    /// Whether `phase` is to run.
    pub fn runs(&self, phase: Phase) -> bool {
        self.phases.contains(&phase)
    }

    /// The simulated time of document 0, in epoch milliseconds.
    pub fn start_ms(&self) -> Result<i64, LabError> {
        timestamp::parse_start(&self.start).map_err(|e| LabError::Config(format!("--start: {e}")))
    }

    /// The per-request timeout.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout)
    }

    /// The base URL without a trailing slash, after checking it is a plain `http://` URL
    /// with a host.
    pub fn base_url(&self) -> Result<String, LabError> {
        let fail = |why: &str| Err(LabError::Config(format!("--url {:?}: {why}", self.url)));
        let Ok(uri) = self.url.parse::<hyper::Uri>() else {
            return fail("not a URL");
        };
        if uri.scheme_str() != Some("http") {
            return fail("only http:// URLs are supported (no TLS)");
        }
        if uri.host().is_none_or(str::is_empty) {
            return fail("no host");
        }
        if uri.query().is_some() {
            return fail("must not have a query string");
        }
        Ok(self.url.trim_end_matches('/').to_owned())
    }

    /// Checks that the arguments describe a possible run.
    pub fn validate(&self) -> Result<(), LabError> {
        let fail = |msg: String| Err(LabError::Config(msg));
        let positive = |x: f64| x.is_finite() && x > 0.0 && x < 1e12;
        self.base_url()?;
        self.start_ms()?;
        if self.phases.is_empty() {
            return fail("--phases names none".into());
        }
        if let Some(why) = invalid_index_name(&self.index) {
            return fail(format!("--index {:?}: {why}", self.index));
        }
        if self.shards == 0 || self.clients == 0 || self.bulk_size == 0 || self.threads == 0 {
            return fail(
                "--shards, --clients, --bulk-size and --threads must be at least 1".into(),
            );
        }
        if self.runs(Phase::Index) && self.docs == 0 {
            return fail("--docs must be at least 1".into());
        }
        if self.query_iterations == 0 {
            return fail("--query-iterations must be at least 1".into());
        }
        for (name, value) in [
            ("--event-rate", self.event_rate),
            ("--mixed-rate", self.mixed_rate),
            ("--mixed-duration", self.mixed_duration),
            ("--timeout", self.timeout),
        ] {
            if !positive(value) {
                return fail(format!("{name} must be a positive number, not {value}"));
            }
        }
        if !valid_interval(&self.refresh_interval) {
            return fail(format!(
                "--refresh-interval {:?}: expected a time like 1s, 500ms, 2m, or -1",
                self.refresh_interval
            ));
        }
        if self.time_zone.is_empty() || self.time_zone.contains(char::is_whitespace) {
            return fail(format!(
                "--time-zone {:?} is not a zone name",
                self.time_zone
            ));
        }
        Ok(())
    }
}

/// Why `name` cannot be an Elasticsearch index name, if it cannot.
fn invalid_index_name(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 255 {
        return Some("must have 1 to 255 bytes");
    }
    if name.starts_with(['-', '_', '+']) || name == "." || name == ".." {
        return Some("must not start with -, _ or +, nor be . or ..");
    }
    if name.chars().any(|c| c.is_uppercase()) {
        return Some("must be lowercase");
    }
    if name
        .chars()
        .any(|c| c.is_whitespace() || "\\/*?\"<>|,#:%&".contains(c))
    {
        return Some("must not contain whitespace nor any of \\/*?\"<>|,#:%&");
    }
    None
}

/// Whether `text` is an Elasticsearch time value (`-1`, `0` or a number with a unit).
fn valid_interval(text: &str) -> bool {
    if text == "-1" || text == "0" {
        return true;
    }
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && ["nanos", "micros", "ms", "s", "m", "h", "d"].contains(&unit)
}

impl Default for EventdataArgs {
    /// The command-line defaults.
    fn default() -> Self {
        Self::try_parse_from(std::iter::empty::<OsString>()).expect("defaults parse")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_issue() {
        let args = EventdataArgs::default();
        args.validate().unwrap();
        assert_eq!(args.base_url().unwrap(), "http://127.0.0.1:9200");
        assert_eq!(args.phases, [Phase::Index, Phase::Query, Phase::Mixed]);
        assert_eq!((args.shards, args.clients, args.bulk_size), (2, 4, 1000));
        assert_eq!((args.docs, args.query_iterations), (100_000, 20));
        assert_eq!(
            (args.refresh_interval.as_str(), args.durability),
            ("1s", Durability::Request)
        );
        assert_eq!((args.mixed_rate, args.mixed_duration), (5000.0, 60.0));
        assert_eq!(args.start_ms().unwrap(), 1_767_225_600_000);
    }

    #[test]
    fn rejects_impossible_runs_with_a_message() {
        let invalid = |argv: &[&str]| {
            let args = EventdataArgs::try_parse_from(argv).unwrap();
            match args.validate() {
                Err(LabError::Config(msg)) => msg,
                other => panic!("{argv:?} validated: {other:?}"),
            }
        };
        assert!(invalid(&["--url", "https://localhost:9200"]).contains("http://"));
        assert!(invalid(&["--url", "not a url"]).contains("--url"));
        assert!(invalid(&["--index", "Logs"]).contains("lowercase"));
        assert!(invalid(&["--index", "a/b"]).contains("--index"));
        assert!(invalid(&["--clients", "0"]).contains("--clients"));
        assert!(invalid(&["--docs", "0"]).contains("--docs"));
        assert!(invalid(&["--event-rate", "0"]).contains("--event-rate"));
        assert!(invalid(&["--mixed-rate", "NaN"]).contains("--mixed-rate"));
        assert!(invalid(&["--refresh-interval", "soon"]).contains("--refresh-interval"));
        assert!(invalid(&["--start", "tomorrow"]).contains("--start"));
        assert!(EventdataArgs::try_parse_from(["--phases", "index,nope"]).is_err());
        assert!(EventdataArgs::try_parse_from(["--durability", "never"]).is_err());
        // Only the query phase: --docs 0 is fine.
        let query = EventdataArgs::try_parse_from(["--phases", "query", "--docs", "0"]).unwrap();
        query.validate().unwrap();
        let off = EventdataArgs::try_parse_from(["--refresh-interval", "-1"]).unwrap();
        off.validate().unwrap();
        let slash = EventdataArgs::try_parse_from(["--url", "http://es:9200/"]).unwrap();
        assert_eq!(slash.base_url().unwrap(), "http://es:9200");
    }
}
