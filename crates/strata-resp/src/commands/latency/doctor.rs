//! `LATENCY DOCTOR`: Redis's `createLatencyReport` over the events
//! Strata records (`command` and `fast-command`) and the one advice not
//! tied to an event (transparent huge pages in use by the process).
//! Redis's other events (`fork`, `aof-*`, `expire-cycle`, `eviction-*`,
//! ...) are never recorded here, so their comments and advices never
//! apply.

use std::fmt::Write as _;

use crate::latency::Series;

/// What the report is written from.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// Every event's samples.
    pub events: Vec<Series>,
    /// `latency-monitor-threshold`, ms.
    pub threshold_ms: u64,
    /// `slowlog-log-slower-than`, µs (negative: off).
    pub slowlog_us: i64,
    /// Whether the process has anonymous huge pages.
    pub huge_pages: bool,
    /// Unix seconds now.
    pub now: u64,
}

/// Redis's `latencyStats` of one event.
struct Analysis {
    samples: u64,
    avg: u64,
    mad: u64,
    period: u64,
}

fn analyze(series: &Series, now: u64) -> Analysis {
    let samples = series.samples.len() as u64;
    let sum: u64 = series.samples.iter().map(|s| u64::from(s.latency_ms)).sum();
    let avg = sum.checked_div(samples).unwrap_or(0);
    let oldest = series.samples.iter().map(|s| s.time).min().unwrap_or(now);
    let deviation: u64 = series
        .samples
        .iter()
        .map(|s| avg.abs_diff(u64::from(s.latency_ms)))
        .sum();
    Analysis {
        samples,
        avg,
        mad: deviation.checked_div(samples).unwrap_or(0),
        period: now.saturating_sub(oldest).max(1),
    }
}

/// The report.
pub fn report(inputs: &Inputs) -> String {
    if inputs.events.is_empty() && inputs.threshold_ms == 0 {
        return DISABLED.into();
    }
    let mut report = String::new();
    let (mut slowlog_enabled, mut slowlog_tuning, mut slowlog_inspect) = (false, false, false);
    let (mut scheduler, mut large_objects) = (false, false);
    let mut advices = 0;
    for (n, series) in inputs.events.iter().enumerate() {
        if n == 0 {
            report.push_str("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
        }
        let a = analyze(series, inputs.now);
        let _ = write!(
            report,
            "{}. {}: {} latency spikes (average {}ms, mean deviation {}ms, period {:.2} sec). Worst all time event {}ms.",
            n + 1,
            series.event,
            a.samples,
            a.avg,
            a.mad,
            a.period as f64 / a.samples.max(1) as f64,
            series.max_ms
        );
        if series.event.eq_ignore_ascii_case("command") {
            if inputs.slowlog_us < 0 {
                slowlog_enabled = true;
                advices += 1;
            } else if inputs.slowlog_us / 1000
                > i64::try_from(inputs.threshold_ms).unwrap_or(i64::MAX)
            {
                slowlog_tuning = true;
                advices += 1;
            }
            slowlog_inspect = true;
            large_objects = true;
            advices += 2;
        }
        if series.event.eq_ignore_ascii_case("fast-command") {
            scheduler = true;
            advices += 1;
        }
        report.push('\n');
    }
    if inputs.huge_pages {
        advices += 1;
    }
    if inputs.events.is_empty() && advices == 0 {
        report.push_str(NO_SPIKES);
        return report;
    }
    if advices == 0 {
        report.push_str(NO_FIX);
        return report;
    }
    report.push_str("\nI have a few advices for you:\n\n");
    let threshold_us = inputs.threshold_ms.saturating_mul(1000);
    if slowlog_enabled {
        let _ = writeln!(report, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than {threshold_us}'. If the Slow log is disabled Redis is not able to log slow commands execution for you.");
    }
    if slowlog_tuning {
        let _ = writeln!(report, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than {threshold_us}'.");
    }
    for (wanted, text) in [
        (slowlog_inspect, SLOWLOG_INSPECT),
        (scheduler, SCHEDULER),
        (large_objects, LARGE_OBJECTS),
        (inputs.huge_pages, HUGE_PAGES),
    ] {
        if wanted {
            report.push_str(text);
        }
    }
    report
}

/// Whether the process has anonymous transparent huge pages (Redis's
/// `THPGetAnonHugePagesSize() > 0`), from `/proc/self/smaps_rollup`.
pub fn has_huge_pages() -> bool {
    let Ok(text) = std::fs::read_to_string("/proc/self/smaps_rollup") else {
        return false;
    };
    text.lines()
        .filter_map(|l| l.strip_prefix("AnonHugePages:"))
        .filter_map(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .any(|kb| kb > 0)
}

const DISABLED: &str = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n";
const NO_SPIKES: &str = "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n";
const NO_FIX: &str = "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n";
const SLOWLOG_INSPECT: &str = "- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n";
const SCHEDULER: &str = "- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n  1) Lower the system load.\n  2) Use a computer / VM just for Redis if you are running other software in the same system.\n  3) Check if you have a \"noisy neighbour\" problem.\n  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n";
const LARGE_OBJECTS: &str = "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n";
const HUGE_PAGES: &str = "- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::latency::Sample;

    fn inputs(events: Vec<Series>, threshold_ms: u64) -> Inputs {
        Inputs {
            events,
            threshold_ms,
            slowlog_us: 10_000,
            huge_pages: false,
            now: 1000,
        }
    }

    fn command(latencies: &[(u64, u32)]) -> Series {
        Series {
            event: "command",
            samples: latencies
                .iter()
                .map(|&(time, latency_ms)| Sample { time, latency_ms })
                .collect(),
            max_ms: latencies.iter().map(|l| l.1).max().unwrap_or(0),
        }
    }

    #[test]
    fn off_quiet_and_disabled() {
        assert_eq!(report(&inputs(vec![], 0)), DISABLED);
        assert_eq!(report(&inputs(vec![], 5)), NO_SPIKES);
        let mut thp = inputs(vec![], 5);
        thp.huge_pages = true;
        assert_eq!(
            report(&thp),
            format!("\nI have a few advices for you:\n\n{HUGE_PAGES}")
        );
    }

    /// redis-server 7.0.15's report after one 12 ms `EVAL` with the
    /// threshold at 1 ms and the slow log at its default.
    #[test]
    fn a_command_spike_as_redis_reports_it() {
        let got = report(&inputs(vec![command(&[(1000, 12)])], 1));
        let want = "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n\
1. command: 1 latency spikes (average 12ms, mean deviation 0ms, period 1.00 sec). Worst all time event 12ms.\n\
\nI have a few advices for you:\n\n\
- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than 1000'.\n"
            .to_string()
            + SLOWLOG_INSPECT
            + LARGE_OBJECTS;
        assert_eq!(got, want);
    }

    /// redis-server 7.0.15's line for nine spikes of 2 to 30 ms over 16 s.
    #[test]
    fn nine_spikes_as_redis_sums_them_up() {
        let t = 1_796_156_172;
        let nine = command(&[
            (t, 3),
            (t + 1, 7),
            (t + 2, 15),
            (t + 3, 2),
            (t + 4, 11),
            (t + 5, 30),
            (t + 7, 4),
            (t + 8, 12),
            (t + 9, 5),
        ]);
        let mut at = inputs(vec![nine], 1);
        at.now = t + 16;
        let got = report(&at);
        assert!(got.contains("\n\n1. command: 9 latency spikes (average 9ms, mean deviation 6ms, period 1.78 sec). Worst all time event 30ms.\n\nI have"), "{got}");
    }

    #[test]
    fn averages_deviation_and_period() {
        let series = command(&[(900, 10), (950, 20), (990, 30)]);
        let a = analyze(&series, 1000);
        assert_eq!((a.samples, a.avg, a.mad, a.period), (3, 20, 6, 100));
        let mut off = inputs(vec![series], 5);
        off.slowlog_us = -1;
        let got = report(&off);
        assert!(got.contains("1. command: 3 latency spikes (average 20ms, mean deviation 6ms, period 33.33 sec). Worst all time event 30ms.\n"), "{got}");
        assert!(got.contains("'CONFIG SET slowlog-log-slower-than 5000'. If the Slow log"));
        let fast = Series {
            event: "fast-command",
            ..command(&[(999, 3)])
        };
        let got = report(&inputs(vec![fast], 1));
        assert!(
            got.ends_with(&format!("I have a few advices for you:\n\n{SCHEDULER}")),
            "{got}"
        );
    }
}
