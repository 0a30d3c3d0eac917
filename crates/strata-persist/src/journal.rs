//! [`LogJournal`]: the engine's [`Journal`] on the command log.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata_kv::journal::KV_RECORD_KIND;
use strata_kv::{Journal, Refusal};
use strata_log::CommandLog;

/// Appends the keyspace's change records to a [`CommandLog`].
#[derive(Debug)]
pub struct LogJournal {
    log: Arc<CommandLog>,
    /// Cached "the log has failed", so the check on every write is one load.
    failed: AtomicBool,
}

impl LogJournal {
    /// A journal writing to `log`.
    pub fn new(log: Arc<CommandLog>) -> LogJournal {
        LogJournal {
            log,
            failed: AtomicBool::new(false),
        }
    }
}

/// Why `log` takes no more changes, as clients are told.
pub(crate) fn failure(log: &CommandLog) -> String {
    match log.poisoned() {
        Some(err) => format!("command log failed: {err}"),
        None => "command log closed".to_owned(),
    }
}

/// Why `log` cannot write now, as Redis words it after `MISCONF Errors
/// writing to the AOF file: ` (what the filesystem said).
pub(crate) fn stall_reason(cause: &strata_log::LogError) -> String {
    cause.os_reason().unwrap_or_else(|| cause.to_string())
}

impl Journal for LogJournal {
    fn check(&self) -> Result<(), Refusal> {
        if !self.failed.load(Ordering::Relaxed) {
            if self.log.poisoned().is_none() {
                return match self.log.write_stalled() {
                    None => Ok(()),
                    Some(cause) => Err(Refusal::Stalled(stall_reason(&cause))),
                };
            }
            self.failed.store(true, Ordering::Relaxed);
        }
        Err(Refusal::Failed(failure(&self.log)))
    }

    fn accepts(&self) -> bool {
        !self.failed.load(Ordering::Relaxed) && self.log.poisoned().is_none()
    }

    fn append(&self, body: &[u8]) -> Result<u64, String> {
        self.log.append(KV_RECORD_KIND, body).map_err(|err| {
            self.failed.store(true, Ordering::Relaxed);
            format!("command log failed: {err}")
        })
    }
}
