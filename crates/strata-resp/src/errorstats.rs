//! Error replies counted by their code (the first word: `ERR`,
//! `WRONGTYPE`, `NOSCRIPT`, ...), for `INFO errorstats`. As in Redis, at
//! most [`MAX_CODES`] distinct codes are tracked; later new codes are
//! counted only in `total_error_replies`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use parking_lot::Mutex;

/// Most distinct error codes tracked (Redis's `ERRORSTATS_LIMIT`).
pub const MAX_CODES: usize = 128;

/// Counts per error code.
#[derive(Debug, Default)]
pub struct ErrorStats {
    counts: Mutex<BTreeMap<String, u64>>,
}

impl ErrorStats {
    /// Counts one error reply whose line (without `-`) is `text`.
    pub fn record(&self, text: &[u8]) {
        let code = text.split(|&c| c == b' ').next().unwrap_or_default();
        let code = String::from_utf8_lossy(&code[..code.len().min(64)]);
        let mut counts = self.counts.lock();
        if let Some(count) = counts.get_mut(code.as_ref()) {
            *count += 1;
        } else if counts.len() < MAX_CODES {
            counts.insert(code.into_owned(), 1);
        }
    }

    /// `CONFIG RESETSTAT`.
    pub fn reset(&self) {
        self.counts.lock().clear();
    }

    /// The `errorstat_<CODE>:count=<n>` lines.
    pub fn render(&self, text: &mut String) {
        for (code, count) in self.counts.lock().iter() {
            let _ = write!(text, "errorstat_{code}:count={count}\r\n");
        }
    }
}
