//! Progress bars, one per stage, on standard error (hidden with
//! `--quiet` or when standard error is not a terminal).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a bar tracking a counter is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// The bars of one job.
pub struct Progress {
    bars: MultiProgress,
}

/// What a stage's bar counts.
#[derive(Debug, Clone, Copy)]
pub enum Unit {
    /// Bytes, against a known total.
    Bytes(u64),
    /// Steps (iterations, queries), against a known total.
    Steps(u64),
    /// An open count of rows.
    Rows,
}

impl Progress {
    /// Bars on standard error, or none when `quiet`.
    pub fn new(quiet: bool) -> Progress {
        let target = match quiet {
            true => ProgressDrawTarget::hidden(),
            false => ProgressDrawTarget::stderr(),
        };
        Progress {
            bars: MultiProgress::with_draw_target(target),
        }
    }

    /// A bar for stage `name`.
    pub fn stage(&self, name: &str, unit: Unit) -> ProgressBar {
        let (bar, template) = match unit {
            Unit::Bytes(total) => (
                ProgressBar::new(total),
                "{prefix:>10} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {elapsed} {msg}",
            ),
            Unit::Steps(total) => (
                ProgressBar::new(total),
                "{prefix:>10} [{bar:30}] {pos}/{len} {elapsed} {msg}",
            ),
            Unit::Rows => (
                ProgressBar::no_length(),
                "{prefix:>10} {spinner} {human_pos} rows {elapsed} {msg}",
            ),
        };
        let style = ProgressStyle::with_template(template)
            .expect("the templates are valid")
            .progress_chars("=> ");
        let bar = self
            .bars
            .add(bar.with_style(style).with_prefix(name.to_owned()));
        bar.enable_steady_tick(TICK);
        bar
    }
}

/// Keeps `bar`'s position at `counter` until the bar finishes.
pub fn follow(bar: &ProgressBar, counter: Arc<AtomicU64>) {
    let bar = bar.clone();
    std::thread::Builder::new()
        .name("strata-progress".into())
        .spawn(move || {
            while !bar.is_finished() {
                bar.set_position(counter.load(Ordering::Relaxed));
                std::thread::sleep(TICK);
            }
        })
        .ok();
}
