//! [`JobRun`]: what one job carries from start to report: its engine,
//! progress bars, the RSS sampler and the stages' measurements.

use std::time::Instant;

use indicatif::ProgressBar;
use serde::Serialize;

use super::progress::{Progress, Unit};
use crate::budget::rss::{self, RssSampler};
use crate::engine::JobEngine;
use crate::tier::TierCounters;

/// One stage's measurements.
#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    /// The stage.
    pub name: String,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Bytes operators spilled to the SSD tier.
    pub spilled_bytes: u64,
    /// Bytes of spill files read back.
    pub spill_read_bytes: u64,
    /// Bytes of the cached table written to the SSD.
    pub cache_written_bytes: u64,
    /// Bytes of the cached table read back from the SSD.
    pub cache_read_bytes: u64,
    /// Peak resident memory sampled during the stage.
    pub peak_rss: u64,
}

/// Counters at a stage's start.
#[derive(Clone, Copy)]
struct Marks {
    spilled: u64,
    spill_read: u64,
    cache_written: u64,
    cache_read: u64,
}

impl Marks {
    fn of(c: &TierCounters) -> Marks {
        Marks {
            spilled: TierCounters::get(&c.spilled),
            spill_read: TierCounters::get(&c.spill_read),
            cache_written: TierCounters::get(&c.cache_written),
            cache_read: TierCounters::get(&c.cache_read),
        }
    }
}

/// A job in progress.
pub struct JobRun {
    /// The engine.
    pub engine: JobEngine,
    progress: Progress,
    sampler: RssSampler,
    started: Instant,
    stages: Vec<StageReport>,
    current: Option<(String, Instant, Marks, ProgressBar)>,
}

impl JobRun {
    /// Starts measuring a job on `engine`.
    pub fn new(engine: JobEngine, quiet: bool) -> JobRun {
        JobRun {
            engine,
            progress: Progress::new(quiet),
            sampler: RssSampler::start(),
            started: Instant::now(),
            stages: Vec::new(),
            current: None,
        }
    }

    /// Ends the current stage (if any) and starts `name`; returns its bar.
    pub fn stage(&mut self, name: &str, unit: Unit) -> ProgressBar {
        self.end_stage();
        let index = self.stages.len() + 1;
        self.sampler.enter_stage(index);
        let bar = self.progress.stage(name, unit);
        let marks = Marks::of(self.engine.area.counters());
        self.current = Some((name.to_owned(), Instant::now(), marks, bar.clone()));
        bar
    }

    /// Ends the current stage.
    pub fn end_stage(&mut self) {
        let Some((name, started, marks, bar)) = self.current.take() else {
            return;
        };
        bar.finish();
        let now = Marks::of(self.engine.area.counters());
        let index = self.stages.len() + 1;
        self.stages.push(StageReport {
            name,
            seconds: started.elapsed().as_secs_f64(),
            spilled_bytes: now.spilled - marks.spilled,
            spill_read_bytes: now.spill_read - marks.spill_read,
            cache_written_bytes: now.cache_written - marks.cache_written,
            cache_read_bytes: now.cache_read - marks.cache_read,
            peak_rss: self.sampler.stage_peak(index),
        });
    }

    /// Ends the job: its stages, total seconds, sampled and kernel peaks.
    pub fn finish(mut self) -> (JobEngine, Vec<StageReport>, f64, u64, u64) {
        self.end_stage();
        let seconds = self.started.elapsed().as_secs_f64();
        let sampled = self.sampler.peak();
        let JobRun { engine, stages, .. } = self;
        (engine, stages, seconds, sampled, rss::peak_rss())
    }
}
