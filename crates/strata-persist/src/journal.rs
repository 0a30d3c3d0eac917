//! [`LogJournal`]: the engine's [`Journal`] on the command log.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata_kv::journal::KV_RECORD_KIND;
use strata_kv::Journal;
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

impl Journal for LogJournal {
    fn check(&self) -> Result<(), String> {
        if !self.failed.load(Ordering::Relaxed) {
            if self.log.poisoned().is_none() {
                return Ok(());
            }
            self.failed.store(true, Ordering::Relaxed);
        }
        Err(failure(&self.log))
    }

    fn append(&self, body: &[u8]) -> Result<u64, String> {
        self.log.append(KV_RECORD_KIND, body).map_err(|err| {
            self.failed.store(true, Ordering::Relaxed);
            format!("command log failed: {err}")
        })
    }
}
