//! This process's own figures from `/proc` (resident memory, CPU time)
//! and the kernel's name, as `INFO` and `MEMORY` report them.

/// `Linux <release> <machine>`, like `uname -srm`.
pub fn os_name() -> String {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let os = if cfg!(target_os = "linux") {
        "Linux"
    } else {
        std::env::consts::OS
    };
    format!("{os} {} {}", release.trim(), std::env::consts::ARCH)
}

/// Resident set size of this process, from `/proc/self/status`.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// User and system CPU seconds of this process, from `/proc/self/stat`
/// (clock ticks at the Linux USER_HZ of 100 per second).
pub fn cpu_seconds() -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let user: f64 = fields.get(11)?.parse().ok()?;
    let sys: f64 = fields.get(12)?.parse().ok()?;
    Some((user / 100.0, sys / 100.0))
}
