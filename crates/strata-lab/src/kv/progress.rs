//! The live progress bar of a run, drawn on stderr.
//!
//! It is only drawn when stderr is a terminal and `--quiet` is not given, so piping or
//! redirecting the output never mixes bar frames into results. It reads the shared counters
//! four times a second and never touches the connection tasks' own statistics.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::task::JoinHandle;

use super::args::KvArgs;
use super::control::Control;

const TICK: Duration = Duration::from_millis(250);

/// A running progress display; call [`Progress::finish`] when the run ends.
pub(crate) struct Progress {
    bar: ProgressBar,
    ticker: Option<JoinHandle<()>>,
}

/// What the bar's position counts.
#[derive(Clone, Copy)]
enum Measure {
    /// Measured requests, out of `--requests`.
    Requests,
    /// Milliseconds since the start, out of warm-up plus duration.
    Time,
}

impl Progress {
    /// Starts the display for a run that began at `started`.
    pub(crate) fn start(args: &KvArgs, control: Arc<Control>, started: Instant) -> Self {
        let target = ProgressDrawTarget::stderr_with_hz(4);
        if args.quiet || target.is_hidden() {
            return Self {
                bar: ProgressBar::hidden(),
                ticker: None,
            };
        }
        let (measure, len) = match (args.requests, args.measure_duration()) {
            (Some(requests), None) => (Measure::Requests, requests),
            (_, duration) => {
                let total = Duration::from_secs_f64(args.warmup) + duration.unwrap_or_default();
                (
                    Measure::Time,
                    u64::try_from(total.as_millis()).unwrap_or(u64::MAX),
                )
            }
        };
        let bar = ProgressBar::with_draw_target(Some(len), target);
        let style =
            ProgressStyle::with_template("{spinner} {elapsed:>4} [{wide_bar}] {percent:>3}% {msg}")
                .expect("static template is valid");
        bar.set_style(style);
        let ticker = tokio::spawn(tick(bar.clone(), measure, control, started));
        Self {
            bar,
            ticker: Some(ticker),
        }
    }

    /// Stops updating and erases the bar.
    pub(crate) fn finish(self) {
        if let Some(ticker) = self.ticker {
            ticker.abort();
        }
        self.bar.finish_and_clear();
    }
}

async fn tick(bar: ProgressBar, measure: Measure, control: Arc<Control>, started: Instant) {
    let mut interval = tokio::time::interval(TICK);
    let (mut last_count, mut last_time) = (0, Instant::now());
    loop {
        interval.tick().await;
        let now = Instant::now();
        let count = control.measured.load(Ordering::Relaxed);
        if now < control.measure_start {
            bar.set_message("warming up");
        } else {
            let rate = (count - last_count) as f64 / (now - last_time).as_secs_f64().max(1e-3);
            bar.set_message(format!("{count} requests, {rate:.0} ops/s"));
        }
        (last_count, last_time) = (count, now);
        bar.set_position(match measure {
            Measure::Requests => count,
            Measure::Time => u64::try_from((now - started).as_millis()).unwrap_or(u64::MAX),
        });
    }
}
