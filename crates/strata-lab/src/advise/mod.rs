//! `strata advise`: a placement and persistence mode for the KV store and a
//! tier for search indices, for a described workload, from the lab's results
//! on this machine (`results.json` of `strata lab kv-placement`,
//! `durable-cache` and `search-tiers` under `--results DIR`). It prints the
//! measured figures behind the choice and what each alternative costs, and
//! says which questions the results do not cover instead of guessing.
//!
//! # Layout
//! - [`workload`]: the workload and its policies (durability, restart weight).
//! - [`evidence`]: reading the results, choosing the covering run, mixes.
//! - [`choice`]: options, figures and the choice among them (shared).
//! - [`kv`] and [`search`]: the two recommenders.
//! - `answer`: both recommendations for a workload ([`Recommendation`]).
//! - `render`: the text printed.

mod answer;
pub mod choice;
pub mod evidence;
pub mod kv;
mod render;
pub mod search;
pub mod workload;

use std::path::PathBuf;

use clap::Args;

use crate::LabError;
pub use answer::{recommend, Recommendation};
pub use choice::Advice;
pub use evidence::Evidence;
use workload::{parse_size, Durability, RestartWeight, Skew, Workload};

/// `strata advise`'s options: the workload and where the results are.
#[derive(Debug, Clone, Args)]
pub struct AdviseArgs {
    /// Directory holding `strata lab` run directories (each with results.json).
    #[arg(long, value_name = "DIR", default_value = "lab-results")]
    pub results: PathBuf,

    /// Share of requests that are reads, in percent.
    #[arg(long, value_name = "PERCENT", default_value_t = 50.0)]
    pub reads: f64,

    /// Bytes per value.
    #[arg(long, value_name = "BYTES")]
    pub value_size: u64,

    /// Number of keys (or give --data-size).
    #[arg(
        long,
        conflicts_with = "data_size",
        required_unless_present = "data_size"
    )]
    pub keys: Option<u64>,

    /// Keys and values together, e.g. 64gb (keys = size / (value size + 16)).
    #[arg(long, value_name = "SIZE")]
    pub data_size: Option<String>,

    /// How keys are chosen.
    #[arg(long, value_enum, default_value_t = Skew::Uniform)]
    pub skew: Skew,

    /// DRAM the store may use, e.g. 8gb.
    #[arg(long, value_name = "SIZE")]
    pub dram_budget: String,

    /// Persistent memory available, e.g. 64gb [default: none].
    #[arg(long, value_name = "SIZE", default_value = "0")]
    pub pmem_budget: String,

    /// What a crash may lose: none (a cache), bounded (the last moments of
    /// writes), every-write (nothing acknowledged).
    #[arg(long, value_enum, default_value_t = Durability::None)]
    pub durability: Durability,

    /// Restart time after a crash decides (throughput breaks ties).
    #[arg(long)]
    pub restart_matters: bool,

    /// Size of the search indices, to recommend a search tier.
    #[arg(long, value_name = "SIZE")]
    pub search_index_size: Option<String>,
}

impl AdviseArgs {
    /// The workload described.
    pub fn workload(&self) -> Result<Workload, LabError> {
        if !(0.0..=100.0).contains(&self.reads) {
            return Err(LabError::Config(format!(
                "--reads {}: a percentage from 0 to 100",
                self.reads
            )));
        }
        if self.value_size == 0 {
            return Err(LabError::Config("--value-size must be at least 1".into()));
        }
        let keys = match (self.keys, &self.data_size) {
            (Some(k), _) => k,
            (None, Some(size)) => parse_size(size)? / (self.value_size + workload::KEY_BYTES),
            (None, None) => return Err(LabError::Config("give --keys or --data-size".into())),
        };
        Ok(Workload {
            read_fraction: self.reads / 100.0,
            value_size: self.value_size,
            keys,
            skew: self.skew,
            dram_budget: parse_size(&self.dram_budget)?,
            pmem_budget: parse_size(&self.pmem_budget)?,
            durability: self.durability,
            restart: if self.restart_matters {
                RestartWeight::Decides
            } else {
                RestartWeight::Irrelevant
            },
            search_index_bytes: self
                .search_index_size
                .as_deref()
                .map(parse_size)
                .transpose()?,
        })
    }
}

/// `strata advise`: reads the results, prints the recommendation.
pub fn run_advise(args: &AdviseArgs) -> Result<(), LabError> {
    let workload = args.workload()?;
    let evidence = Evidence::load(&args.results)?;
    let rec = recommend(workload, &evidence);
    print!("{}", render::render(&rec));
    Ok(())
}

pub use render::render;

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: AdviseArgs,
    }

    fn parse(argv: &[&str]) -> Result<Workload, String> {
        let cli = Cli::try_parse_from(std::iter::once("advise").chain(argv.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.args.workload().map_err(|e| e.to_string())
    }

    #[test]
    fn the_workload_from_the_options() {
        let w = parse(&[
            "--value-size=100",
            "--data-size=1160mb",
            "--dram-budget=1gb",
            "--reads=90",
            "--durability=every-write",
            "--restart-matters",
        ])
        .unwrap();
        assert_eq!(w.keys, 10 << 20);
        assert_eq!(w.read_fraction, 0.9);
        assert_eq!(w.pmem_budget, 0);
        assert_eq!(w.durability, Durability::EveryWrite);
        assert_eq!(w.restart, RestartWeight::Decides);
        assert!(parse(&["--value-size=100", "--dram-budget=1gb"]).is_err());
        assert!(parse(&[
            "--value-size=100",
            "--keys=1",
            "--data-size=1gb",
            "--dram-budget=1gb"
        ])
        .is_err());
        let bad = parse(&[
            "--value-size=100",
            "--keys=1",
            "--dram-budget=1gb",
            "--reads=150",
        ]);
        assert!(bad.unwrap_err().contains("percentage"));
        assert!(parse(&["--value-size=100", "--keys=1", "--dram-budget=lots"]).is_err());
    }
}
