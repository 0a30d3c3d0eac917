//! The CPU budget of a background checkpoint: a share of the machine's
//! cores (`SAVE`, which its caller waits for, runs unpaced).
//!
//! The I/O rate limit (`checkpoint_io_rate`) bounds what a checkpoint writes,
//! but its cost on a busy server is mostly CPU: scanning, copying, encoding
//! and checksumming items, and the kernel's work for the writes. So the
//! checkpoint also keeps its own thread's CPU time within a share of the
//! machine (`checkpoint_cpu_pct` of all cores, at most the one core a
//! single thread can use): after each scan step it sleeps until its CPU time
//! is within the share of the wall time since it started. The thread keeps
//! its normal scheduling priority, so it is never preempted for long while
//! it holds a shard's read lock (a lowered priority was tried: it doubled
//! p99 during checkpoints for that reason).

use std::time::{Duration, Instant};

/// Longest single sleep, so the budget stays smooth.
const MAX_SLEEP: Duration = Duration::from_millis(50);

/// Where the budget reads time and sleeps; the real one is [`ThreadMeter`].
pub(crate) trait Meter {
    /// CPU time used by the calling thread so far.
    fn cpu(&self) -> Duration;
    /// Wall time since some fixed point.
    fn wall(&self) -> Duration;
    fn sleep(&self, duration: Duration);
}

/// The calling thread's CPU clock and the monotonic clock.
pub(crate) struct ThreadMeter {
    origin: Instant,
}

impl ThreadMeter {
    pub fn new() -> ThreadMeter {
        ThreadMeter {
            origin: Instant::now(),
        }
    }
}

impl Meter for ThreadMeter {
    fn cpu(&self) -> Duration {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(
            u64::try_from(t.tv_sec).unwrap_or(0),
            u32::try_from(t.tv_nsec).unwrap_or(0),
        )
    }

    fn wall(&self) -> Duration {
        self.origin.elapsed()
    }

    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// Keeps one thread's CPU time within `share` cores of wall time.
pub(crate) struct CpuBudget<M: Meter = ThreadMeter> {
    share: f64,
    meter: M,
    cpu_start: Duration,
    wall_start: Duration,
}

impl CpuBudget<ThreadMeter> {
    /// A budget of `pct` percent of `cores` cores for the calling thread,
    /// or `None` when `pct` is 0 (no limit) or the share reaches a whole
    /// core (a single thread cannot use more).
    pub fn for_current_thread(pct: u32, cores: usize) -> Option<CpuBudget<ThreadMeter>> {
        CpuBudget::with_meter(pct, cores, ThreadMeter::new())
    }
}

impl<M: Meter> CpuBudget<M> {
    pub(crate) fn with_meter(pct: u32, cores: usize, meter: M) -> Option<CpuBudget<M>> {
        let share = f64::from(pct) / 100.0 * cores.max(1) as f64;
        if pct == 0 || share >= 1.0 {
            return None;
        }
        Some(CpuBudget {
            share,
            cpu_start: meter.cpu(),
            wall_start: meter.wall(),
            meter,
        })
    }

    /// Cores' worth of CPU the thread may use.
    pub fn share(&self) -> f64 {
        self.share
    }

    /// Sleeps while the thread is ahead of its budget (at most
    /// [`MAX_SLEEP`] per call; the next call sleeps the rest).
    pub fn pace(&mut self) {
        let used = self.meter.cpu().saturating_sub(self.cpu_start);
        let elapsed = self.meter.wall().saturating_sub(self.wall_start);
        let due = used.div_f64(self.share);
        if due > elapsed {
            self.meter.sleep((due - elapsed).min(MAX_SLEEP));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// CPU time moves when the test says; wall time moves with it and
    /// with every sleep.
    #[derive(Default)]
    struct ManualMeter {
        cpu: Cell<Duration>,
        wall: Cell<Duration>,
        slept: Cell<Duration>,
    }

    impl ManualMeter {
        fn work(&self, d: Duration) {
            self.cpu.set(self.cpu.get() + d);
            self.wall.set(self.wall.get() + d);
        }
    }

    impl Meter for &ManualMeter {
        fn cpu(&self) -> Duration {
            self.cpu.get()
        }
        fn wall(&self) -> Duration {
            self.wall.get()
        }
        fn sleep(&self, d: Duration) {
            self.slept.set(self.slept.get() + d);
            self.wall.set(self.wall.get() + d);
        }
    }

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn no_limit_at_zero_or_at_a_whole_core() {
        let meter = ManualMeter::default();
        assert!(CpuBudget::with_meter(0, 2, &meter).is_none());
        assert!(CpuBudget::with_meter(50, 2, &meter).is_none());
        assert!(CpuBudget::with_meter(100, 1, &meter).is_none());
        let budget = CpuBudget::with_meter(5, 2, &meter).expect("a tenth of a core");
        assert!((budget.share() - 0.1).abs() < 1e-9);
    }

    #[test]
    fn a_busy_thread_is_held_to_its_share() {
        let meter = ManualMeter::default();
        let mut budget = CpuBudget::with_meter(5, 2, &meter).unwrap(); // 0.1 core
        for _ in 0..1000 {
            meter.work(MS);
            budget.pace();
        }
        // 1 s of CPU at a tenth of a core takes 10 s of wall time.
        let wall = meter.wall.get().as_secs_f64();
        assert!((9.9..=10.1).contains(&wall), "wall {wall}");
        assert!(meter.slept.get() >= Duration::from_millis(8_900));
    }

    #[test]
    fn a_thread_within_its_share_never_sleeps() {
        let meter = ManualMeter::default();
        let mut budget = CpuBudget::with_meter(10, 4, &meter).unwrap(); // 0.4 core
        for _ in 0..100 {
            meter.work(MS);
            meter.wall.set(meter.wall.get() + 2 * MS); // waiting on I/O
            budget.pace();
        }
        assert_eq!(meter.slept.get(), Duration::ZERO);
    }

    #[test]
    fn one_long_step_is_repaid_in_bounded_sleeps() {
        let meter = ManualMeter::default();
        let mut budget = CpuBudget::with_meter(5, 2, &meter).unwrap();
        meter.work(Duration::from_millis(100)); // owes 900 ms
        budget.pace();
        assert_eq!(meter.slept.get(), MAX_SLEEP);
    }

    #[test]
    fn the_thread_clock_counts_work_not_sleep() {
        let meter = ThreadMeter::new();
        let before = meter.cpu();
        std::thread::sleep(Duration::from_millis(30));
        assert!(meter.cpu() - before < Duration::from_millis(10));
        // Spin until the thread clock shows 20 ms of work (however busy the
        // machine), bounded by a generous wall-clock limit.
        let start = meter.cpu();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut x = 0u64;
        while meter.cpu() - start < Duration::from_millis(20) {
            assert!(
                Instant::now() < deadline,
                "the thread clock does not advance"
            );
            x = x.wrapping_add(std::hint::black_box(1));
        }
        std::hint::black_box(x);
    }
}
