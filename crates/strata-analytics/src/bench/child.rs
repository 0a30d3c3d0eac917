//! The child processes of the experiment: running one bounded in time, its
//! error output, and the kernel's side of a confined run (the cgroup's
//! limit, the page cache).

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::error::AnalyticsError;

/// Runs `command` with its error output in `errors` until it exits
/// (`Some(status)`) or `limit` passes (`None`: it was killed; a job that
/// swaps can run for hours).
pub(super) fn run_bounded(
    command: &mut Command,
    errors: &Path,
    limit: Duration,
) -> Result<Option<ExitStatus>, AnalyticsError> {
    let stderr = std::fs::File::create(errors)
        .map_err(|e| AnalyticsError::io(format!("creating {}", errors.display()), e))?;
    let mut child = command
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(|e| AnalyticsError::io("running a job", e))?;
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| AnalyticsError::io("waiting for a job", e))?
        {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            // The kernel-confined child is `sh` exec'ed into the job: the
            // same process.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The first paragraph of a child's error output (clap adds a help hint
/// after a blank line).
pub(super) fn first_paragraph(text: &str) -> String {
    text.trim()
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Sets the memory limit of `cgroup` (v2 `memory.max`, else v1
/// `memory.limit_in_bytes`).
pub(super) fn set_cgroup_limit(cgroup: &Path, bytes: u64) -> Result<(), AnalyticsError> {
    let v2 = cgroup.join("memory.max");
    let file = if v2.exists() {
        v2
    } else {
        cgroup.join("memory.limit_in_bytes")
    };
    std::fs::write(&file, bytes.to_string())
        .map_err(|e| AnalyticsError::io(format!("setting {}", file.display()), e))
}

/// Drops clean page-cache pages (root only).
pub(super) fn drop_caches() -> Result<(), AnalyticsError> {
    std::fs::write("/proc/sys/vm/drop_caches", "1")
        .map_err(|e| AnalyticsError::io("--drop-caches: writing /proc/sys/vm/drop_caches", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_past_its_limit_is_stopped_and_one_within_it_reports_its_status() {
        let dir = tempfile::tempdir().unwrap();
        let errors = dir.path().join("err");
        let started = Instant::now();
        let mut slow = Command::new("sleep");
        slow.arg("30");
        assert!(run_bounded(&mut slow, &errors, Duration::from_millis(300))
            .unwrap()
            .is_none());
        assert!(started.elapsed() < Duration::from_secs(10));
        let mut failing = Command::new("sh");
        failing.args(["-c", "echo 'bad budget' >&2; echo hint >&2; exit 2"]);
        let status = run_bounded(&mut failing, &errors, Duration::from_secs(30))
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(2));
        let text = std::fs::read_to_string(&errors).unwrap();
        assert_eq!(first_paragraph(&text), "bad budget hint");
    }
}
