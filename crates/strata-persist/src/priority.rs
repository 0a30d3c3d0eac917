//! The CPU priority of background checkpoints.
//!
//! A checkpoint competes for the cores with the requests it must not slow
//! down; the I/O rate limit bounds its writes but not its CPU (scanning,
//! encoding, checksumming). At [`CheckpointPriority::Background`] the thread
//! that writes a background checkpoint lowers its own scheduling priority
//! (Linux nice value, which is per thread) by [`BACKGROUND_NICE`], so that
//! under a saturating load the scheduler gives it a small share of a core
//! and it finishes later instead of taking throughput; on idle cores it runs
//! at full speed. `SAVE` runs on the caller's thread and is not lowered.

use std::fmt;

/// Nice increment of a background checkpoint thread: against one busy
/// thread at nice 0 on the same core it gets about a tenth of the core
/// (CFS weights 110 against 1024).
pub const BACKGROUND_NICE: i32 = 10;

/// Highest nice value Linux accepts.
const MAX_NICE: i32 = 19;

/// How a background checkpoint thread is scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckpointPriority {
    /// The same priority as the threads serving requests.
    Normal,
    /// Lowered by [`BACKGROUND_NICE`]; the default.
    #[default]
    Background,
}

impl CheckpointPriority {
    /// Applies this priority to the calling thread, which must be one that
    /// only writes checkpoints (the change lasts for the thread's life).
    /// Failure is reported, not fatal: the checkpoint runs either way.
    pub fn apply_to_current_thread(self) -> std::io::Result<()> {
        match self {
            CheckpointPriority::Normal => Ok(()),
            CheckpointPriority::Background => lower_current_thread(BACKGROUND_NICE),
        }
    }

    /// The name used in configuration and `INFO`.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointPriority::Normal => "normal",
            CheckpointPriority::Background => "background",
        }
    }
}

impl fmt::Display for CheckpointPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Raises the calling thread's nice value by `by` (capped at 19). On Linux
/// `setpriority(PRIO_PROCESS, 0)` names the calling thread, not the process.
#[cfg(target_os = "linux")]
fn lower_current_thread(by: i32) -> std::io::Result<()> {
    use rustix::process::{getpriority_process, setpriority_process};
    let current = getpriority_process(None)?;
    setpriority_process(None, (current + by).min(MAX_NICE))?;
    Ok(())
}

/// Elsewhere the nice value is per process, so lowering it would slow the
/// whole server: leave it alone.
#[cfg(not(target_os = "linux"))]
fn lower_current_thread(_by: i32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rustix::process::getpriority_process;

    #[test]
    fn background_lowers_only_the_calling_thread() {
        let before = getpriority_process(None).unwrap();
        let lowered = std::thread::spawn(|| {
            CheckpointPriority::Background
                .apply_to_current_thread()
                .unwrap();
            getpriority_process(None).unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (before + BACKGROUND_NICE).min(MAX_NICE));
        assert_eq!(
            getpriority_process(None).unwrap(),
            before,
            "other threads keep theirs"
        );
    }

    #[test]
    fn normal_leaves_the_thread_alone() {
        let seen = std::thread::spawn(|| {
            let before = getpriority_process(None).unwrap();
            CheckpointPriority::Normal
                .apply_to_current_thread()
                .unwrap();
            (before, getpriority_process(None).unwrap())
        })
        .join()
        .unwrap();
        assert_eq!(seen.0, seen.1);
    }
}
