//! CPU time per request: the user + system CPU a process spent over the measured phase,
//! read from `/proc/<pid>/stat` (clock ticks, converted to microseconds), divided by the
//! requests measured in that phase.
//!
//! The server's figure is the one the targets compare (Redis, memcached and Strata
//! under the same load); the client's own figure is reported beside it so a run that was
//! limited by the load generator shows as such. `/proc/<pid>/stat` counts every thread of the
//! process, live or exited. The clock tick is 10 ms on most kernels, so runs of a few seconds
//! at tens of thousands of requests per second resolve well below a microsecond per request.

use serde::{Deserialize, Serialize};

use crate::LabError;

/// One reading of a process's cumulative CPU time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuSample {
    /// User-mode time, in clock ticks.
    pub user_ticks: u64,
    /// Kernel-mode time, in clock ticks.
    pub system_ticks: u64,
}

impl CpuSample {
    /// Reads `/proc/<pid>/stat`.
    pub fn of_pid(pid: u32) -> Result<Self, LabError> {
        let path = format!("/proc/{pid}/stat");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            LabError::Config(format!(
                "cannot read {path} (is --server-pid {pid} a running local process?): {e}"
            ))
        })?;
        parse_stat(&text).ok_or_else(|| LabError::Check(format!("unexpected format of {path}")))
    }

    /// Reads this process's own `/proc/self/stat`.
    pub fn of_self() -> Result<Self, LabError> {
        Self::of_pid(std::process::id())
    }
}

/// Parses `utime` and `stime` (fields 14 and 15) of a `/proc/<pid>/stat` line. The command
/// name (field 2) is in parentheses and may itself hold spaces or parentheses, so fields are
/// counted from the last `)`.
pub fn parse_stat(text: &str) -> Option<CpuSample> {
    let after_name = &text[text.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11); // fields 3..=13
    let user_ticks = fields.next()?.parse().ok()?;
    let system_ticks = fields.next()?.parse().ok()?;
    Some(CpuSample {
        user_ticks,
        system_ticks,
    })
}

/// CPU a process used over the measured phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CpuUsage {
    /// The process measured (the server's `--server-pid`, or the client itself).
    pub pid: u32,
    /// User-mode CPU seconds over the measured phase.
    pub user_secs: f64,
    /// Kernel-mode CPU seconds over the measured phase.
    pub system_secs: f64,
    /// `(user + system)` in microseconds divided by the requests measured.
    pub us_per_request: f64,
    /// CPU seconds per second of measurement (1.0 = one core busy all along).
    pub cores_busy: f64,
}

impl CpuUsage {
    /// The usage between `start` and `end` for `requests` served in `elapsed_secs`.
    pub fn between(
        pid: u32,
        start: CpuSample,
        end: CpuSample,
        requests: u64,
        elapsed_secs: f64,
    ) -> Self {
        let per_sec = clock_ticks_per_second() as f64;
        let user_secs = end.user_ticks.saturating_sub(start.user_ticks) as f64 / per_sec;
        let system_secs = end.system_ticks.saturating_sub(start.system_ticks) as f64 / per_sec;
        let total = user_secs + system_secs;
        Self {
            pid,
            user_secs,
            system_secs,
            us_per_request: total * 1e6 / requests.max(1) as f64,
            cores_busy: total / elapsed_secs.max(1e-9),
        }
    }
}

/// The CPU readings of one run's measured phase: the server's (when its pid is known) and
/// the client's own, taken when measuring starts and again when it ends.
#[derive(Debug)]
pub(crate) struct PhaseCpu {
    server_pid: Option<u32>,
    start: tokio::task::JoinHandle<Result<(Option<CpuSample>, CpuSample), LabError>>,
}

impl PhaseCpu {
    /// Takes the starting readings at `at` (the end of warm-up), on a task of its own.
    pub(crate) fn begin_at(server_pid: Option<u32>, at: std::time::Instant) -> Self {
        let start = tokio::spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            let server = server_pid.map(CpuSample::of_pid).transpose()?;
            Ok((server, CpuSample::of_self()?))
        });
        Self { server_pid, start }
    }

    /// Takes the closing readings: the usage of the server (if its pid is known) and of the
    /// client over `requests` measured in `elapsed_secs`.
    pub(crate) async fn end(
        self,
        requests: u64,
        elapsed_secs: f64,
    ) -> Result<(Option<CpuUsage>, CpuUsage), LabError> {
        Ok(self.end_samples().await?.usage(requests, elapsed_secs))
    }

    /// Takes the closing readings now, for a caller that learns its request count later.
    pub(crate) async fn end_samples(self) -> Result<EndedPhase, LabError> {
        let (server_start, client_start) = self.start.await.map_err(LabError::Task)??;
        let client_end = CpuSample::of_self()?;
        let server = match (self.server_pid, server_start) {
            (Some(pid), Some(start)) => Some((pid, start, CpuSample::of_pid(pid)?)),
            _ => None,
        };
        Ok(EndedPhase {
            server,
            client: (client_start, client_end),
        })
    }
}

/// The readings at both ends of a measured phase.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EndedPhase {
    server: Option<(u32, CpuSample, CpuSample)>,
    client: (CpuSample, CpuSample),
}

impl EndedPhase {
    /// The server's (if known) and the client's usage for `requests` in `elapsed_secs`.
    pub(crate) fn usage(&self, requests: u64, elapsed_secs: f64) -> (Option<CpuUsage>, CpuUsage) {
        let server = self
            .server
            .map(|(pid, start, end)| CpuUsage::between(pid, start, end, requests, elapsed_secs));
        let (start, end) = self.client;
        let client = CpuUsage::between(std::process::id(), start, end, requests, elapsed_secs);
        (server, client)
    }
}

/// The kernel's clock tick rate, `sysconf(_SC_CLK_TCK)`: the `AT_CLKTCK` entry of the
/// auxiliary vector the kernel gave this process (`/proc/self/auxv`, pairs of native-endian
/// words), else Linux's `USER_HZ` of 100.
fn clock_ticks_per_second() -> u64 {
    const AT_CLKTCK: u64 = 17;
    const USER_HZ: u64 = 100;
    let Ok(auxv) = std::fs::read("/proc/self/auxv") else {
        return USER_HZ;
    };
    let word = std::mem::size_of::<usize>();
    let read = |bytes: &[u8]| {
        let mut buf = [0u8; 8];
        buf[..word].copy_from_slice(bytes);
        if cfg!(target_endian = "big") {
            u64::from_be_bytes(buf) >> (8 * (8 - word))
        } else {
            u64::from_le_bytes(buf)
        }
    };
    auxv.chunks_exact(2 * word)
        .map(|pair| (read(&pair[..word]), read(&pair[word..])))
        .find(|&(key, _)| key == AT_CLKTCK)
        .map_or(USER_HZ, |(_, ticks)| ticks.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_after_the_command_name() {
        let line = "4242 (redis-server (x) 1) S 1 4242 4242 0 -1 4194560 2 0 0 0 1234 567 0 0 20 0 5 0 1 2 3";
        assert_eq!(
            parse_stat(line),
            Some(CpuSample {
                user_ticks: 1234,
                system_ticks: 567
            })
        );
        assert_eq!(parse_stat("1 (x) S 1 2"), None);
        assert_eq!(parse_stat("no parenthesis"), None);
    }

    #[test]
    fn reads_own_process_and_converts_ticks() {
        let total = |s: CpuSample| s.user_ticks + s.system_ticks;
        let start = total(CpuSample::of_self().unwrap());
        let began = std::time::Instant::now();
        let mut spin = 0u64;
        // Spin until a tick is charged to this process (bounded: a tick is 10 ms of CPU).
        while total(CpuSample::of_self().unwrap()) == start && began.elapsed().as_secs() < 10 {
            for _ in 0..100_000 {
                spin = std::hint::black_box(spin.wrapping_add(1));
            }
        }
        assert!(total(CpuSample::of_self().unwrap()) > start);
        let ticks = clock_ticks_per_second();
        let one_sec = CpuSample {
            user_ticks: ticks,
            system_ticks: ticks,
        };
        let zero = CpuSample {
            user_ticks: 0,
            system_ticks: 0,
        };
        let usage = CpuUsage::between(1, zero, one_sec, 1_000_000, 4.0);
        assert_eq!((usage.user_secs, usage.system_secs), (1.0, 1.0));
        assert!((usage.us_per_request - 2.0).abs() < 1e-9);
        assert!((usage.cores_busy - 0.5).abs() < 1e-9);
        assert!(CpuSample::of_pid(u32::MAX).is_err());
    }
}
