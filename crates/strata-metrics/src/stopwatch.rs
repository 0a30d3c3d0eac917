//! [`Stopwatch`]: times one command. It reads quanta's clock, which uses
//! the CPU's time-stamp counter when it is invariant (calibrated against
//! the OS clock once per process) and the OS monotonic clock otherwise:
//! on the VM this was measured on, two `std::time::Instant` reads cost
//! about 65 ns per command, most of what recording a call costs
//! (`examples/record_cost.rs`).

/// A started measurement.
#[derive(Debug, Clone, Copy)]
pub struct Stopwatch(quanta::Instant);

impl Stopwatch {
    /// Starts measuring now.
    pub fn start() -> Stopwatch {
        Stopwatch(quanta::Instant::now())
    }

    /// Nanoseconds since [`start`](Self::start) (saturating).
    pub fn elapsed_nanos(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_sleep() {
        let watch = Stopwatch::start();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let nanos = watch.elapsed_nanos();
        assert!((20_000_000..2_000_000_000).contains(&nanos), "{nanos}");
    }
}
