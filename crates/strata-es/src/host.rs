//! Facts about the host for `_nodes/stats` and `_cat/nodes`, read from
//! `/proc` (Linux). Elsewhere, or if a file cannot be read, they are
//! absent and the replies leave the fields out rather than invent them.

/// 1, 5 and 15 minute load averages.
pub fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    Some([fields.next()??, fields.next()??, fields.next()??])
}

/// Physical memory: (total, available) bytes.
pub fn memory() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    };
    Some((field("MemTotal:")?, field("MemAvailable:")?))
}

/// Resident memory of this process in bytes.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Peak resident memory of this process in bytes (`VmHWM`).
pub fn peak_resident_bytes() -> Option<u64> {
    status_field("VmHWM:").map(|kib| kib * 1024)
}

/// Threads of this process.
pub fn threads() -> Option<u64> {
    status_field("Threads:")
}

/// The first number of a `/proc/self/status` line.
fn status_field(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Processors available to the process, read once (as Elasticsearch reads
/// `node.processors` at start): the standard library reads the cgroup's
/// CPU quota files on every call.
pub fn processors() -> usize {
    static PROCESSORS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Milliseconds since the Unix epoch.
pub fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
