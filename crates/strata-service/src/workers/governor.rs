//! [`Governor`]: how many of the pool's workers serve connections, chosen
//! by measuring rather than fixed.
//!
//! Why: on a machine whose cores the clients share, a second worker can
//! serve fewer requests than one (it competes with the clients for the
//! cores and adds wake-ups), while under a load that keeps one worker
//! busy it can serve many more (issue 35 measured 0.89-0.97x at pipeline
//! 1 and 1.27-1.41x at pipeline 16 with two workers against one). No
//! fixed count wins both, so the governor tries and keeps what serves
//! more.
//!
//! The policy, on samples taken every [`SAMPLE_EVERY`]:
//! - With `k` workers active and each of them busy at least
//!   [`SATURATED`] of the last [`WINDOW`], it tries `k + 1`: the
//!   connections spread over them, and after [`SETTLE`] the served rate
//!   over [`PROBE`] is compared with the rate before. More by at least
//!   [`GAIN`] keeps `k + 1`; otherwise it goes back to `k` and waits
//!   before trying again, twice as long each time a try fails (from
//!   [`FIRST_BACKOFF`] to [`MAX_BACKOFF`]).
//! - With `k > 1` active, it tries `k - 1` when the workers together are
//!   busy less than what `k - 1` could give ([`SATURATED`] each: one
//!   fewer suffices), and otherwise after [`HOLD`] (doubling to
//!   [`MAX_HOLD`] while it fails): one fewer is kept if it serves at
//!   least [`KEEP`] of the rate before, since it costs less CPU (and
//!   then `k` is not tried again before the backoff: it was just
//!   measured).
//! - When the rate moves by more than [`LOAD_CHANGE`] from the rate at
//!   the last decision, the load is another one: the waits end a window
//!   later (so a try starts from the new load's rate), and a try may
//!   start either way (a pipelined bulk load
//!   followed by single requests finds one worker again at once).
//!
//! The rate is measured in input bytes consumed, which for a steady mix
//! of requests is proportional to requests served.

use std::time::Duration;

/// How often the pool is sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);
/// The span rates and busy fractions are averaged over.
pub const WINDOW: Duration = Duration::from_millis(1000);
/// Busy fraction of each active worker above which one more may help.
pub const SATURATED: f64 = 0.75;
/// Time for connections to move after a change before measuring.
pub const SETTLE: Duration = Duration::from_millis(300);
/// How long a tried worker count is measured.
pub const PROBE: Duration = Duration::from_millis(1000);
/// Gain one more worker must bring to be kept.
pub const GAIN: f64 = 1.05;
/// Share of the rate one fewer worker must keep to be kept.
pub const KEEP: f64 = 0.97;
/// Wait after the first failed try of one more worker.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(30);
/// Longest wait between tries of one more.
pub const MAX_BACKOFF: Duration = Duration::from_secs(120);
/// Time at `k > 1` workers before one fewer is tried.
pub const HOLD: Duration = Duration::from_secs(30);
/// Longest wait between tries of one fewer.
pub const MAX_HOLD: Duration = Duration::from_secs(120);
/// A change of the rate (as a ratio either way) that ends the waits.
pub const LOAD_CHANGE: f64 = 1.25;

/// What the pool measured since it started: cumulative figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// Time since the pool started.
    pub at: Duration,
    /// Input bytes consumed by all workers.
    pub served: u64,
    /// CPU time of each worker's threads.
    pub busy: Vec<Duration>,
}

/// A try of another worker count in progress.
#[derive(Debug, Clone, Copy)]
struct Probe {
    from: usize,
    to: usize,
    /// The rate at `from` before the try.
    before: f64,
    started: Duration,
}

/// The adaptive worker count.
#[derive(Debug)]
pub struct Governor {
    max: usize,
    active: usize,
    history: Vec<Sample>,
    probe: Option<Probe>,
    /// No try of one more before this time.
    up_after: Duration,
    up_backoff: Duration,
    /// The rate when the last try ended, and when a window clean of the
    /// try (its revert settled, a whole window after) is first had.
    decided_at_rate: Option<(f64, Duration)>,
    /// No try of one fewer before this time.
    down_after: Duration,
    down_hold: Duration,
}

impl Governor {
    /// A governor over `max` workers (at least one), starting with one.
    pub fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            active: 1,
            history: Vec::new(),
            probe: None,
            up_after: Duration::ZERO,
            up_backoff: FIRST_BACKOFF,
            decided_at_rate: None,
            down_after: HOLD,
            down_hold: HOLD,
        }
    }

    /// Workers that serve connections now.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Takes a sample and returns the number of workers to use from now.
    pub fn observe(&mut self, sample: Sample) -> usize {
        let now = sample.at;
        self.history.push(sample);
        // Keep just over a window (and a probe's span) of history.
        let keep_from = now.saturating_sub(WINDOW.max(PROBE) + SAMPLE_EVERY * 2);
        let first_kept = self.history.iter().position(|s| s.at >= keep_from);
        if let Some(first) = first_kept.filter(|&i| i > 0) {
            self.history.drain(..first - 1);
        }
        match self.probe {
            Some(probe) => self.judge(probe, now),
            None => self.consider(now),
        }
        self.active
    }

    /// Ends a probe whose measuring span is over.
    fn judge(&mut self, probe: Probe, now: Duration) {
        if now < probe.started + SETTLE + PROBE {
            return;
        }
        let Some(after) = self.rate_since(probe.started + SETTLE) else {
            return;
        };
        self.probe = None;
        let up = probe.to > probe.from;
        let kept = if up {
            after >= probe.before * GAIN
        } else {
            after >= probe.before * KEEP
        };
        let rate = if kept { after } else { probe.before };
        self.decided_at_rate = Some((rate, now + SETTLE + WINDOW));
        if !kept {
            self.active = probe.from;
        }
        match (up, kept) {
            (true, true) => {
                self.up_backoff = FIRST_BACKOFF;
                self.down_hold = HOLD;
                self.down_after = now + HOLD;
            }
            (true, false) => {
                self.up_after = now + self.up_backoff;
                self.up_backoff = (self.up_backoff * 2).min(MAX_BACKOFF);
            }
            (false, true) => {
                self.down_hold = HOLD;
                self.down_after = now + HOLD;
                // `from` workers were just measured to serve less: not
                // tried again before the backoff.
                self.up_after = now + self.up_backoff;
                self.up_backoff = (self.up_backoff * 2).min(MAX_BACKOFF);
            }
            (false, false) => {
                self.down_after = now + self.down_hold;
                self.down_hold = (self.down_hold * 2).min(MAX_HOLD);
            }
        }
    }

    /// Starts a probe when the last window says one may help.
    fn consider(&mut self, now: Duration) {
        let Some((rate, busy)) = self.window() else {
            return;
        };
        if let Some((decided, _)) = self.decided_at_rate.filter(|&(_, from)| now >= from) {
            let change = if decided > 0.0 {
                rate / decided
            } else {
                f64::INFINITY
            };
            if !(1.0 / LOAD_CHANGE..=LOAD_CHANGE).contains(&change) {
                // Tries wait a window, so the rate they start from is the
                // new load's alone.
                self.up_after = now + WINDOW;
                self.up_backoff = FIRST_BACKOFF;
                self.down_after = now + WINDOW;
                self.down_hold = HOLD;
                self.decided_at_rate = None;
            }
        }
        let k = self.active;
        let saturated = busy.iter().take(k).all(|&b| b >= SATURATED);
        if k < self.max && saturated && now >= self.up_after {
            self.start(k + 1, rate, now);
            return;
        }
        let total: f64 = busy.iter().sum();
        let fewer_suffice = total < SATURATED * (k - 1) as f64;
        if k > 1 && (fewer_suffice || now >= self.down_after) {
            self.start(k - 1, rate, now);
        }
    }

    fn start(&mut self, to: usize, before: f64, now: Duration) {
        self.probe = Some(Probe {
            from: self.active,
            to,
            before,
            started: now,
        });
        self.active = to;
    }

    /// Rate and each worker's busy fraction over the last window, once
    /// the history covers one.
    fn window(&self) -> Option<(f64, Vec<f64>)> {
        let last = self.history.last()?;
        let first = self
            .history
            .iter()
            .rev()
            .find(|s| last.at.saturating_sub(s.at) >= WINDOW)?;
        let span = (last.at - first.at).as_secs_f64();
        let rate = last.served.saturating_sub(first.served) as f64 / span;
        let busy = last
            .busy
            .iter()
            .zip(first.busy.iter().chain(std::iter::repeat(&Duration::ZERO)))
            .map(|(b, a)| b.saturating_sub(*a).as_secs_f64() / span)
            .collect();
        Some((rate, busy))
    }

    /// Served rate from the first sample at or after `from` to the last.
    fn rate_since(&self, from: Duration) -> Option<f64> {
        let last = self.history.last()?;
        let first = self.history.iter().find(|s| s.at >= from)?;
        let span = last.at.checked_sub(first.at)?.as_secs_f64();
        (span > 0.0).then(|| last.served.saturating_sub(first.served) as f64 / span)
    }
}
