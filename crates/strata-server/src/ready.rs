//! The "strata ready" line logged once every front end serves.

use crate::version::VERSION;

/// What "strata ready" reports.
pub(crate) struct Ready {
    pub pid: u32,
    pub threads: usize,
    pub memory_limit: String,
    pub eviction: &'static str,
    pub max_item_size: String,
    pub max_connections: usize,
    pub data_dir: String,
    pub persistence: &'static str,
}

impl Ready {
    pub fn log(&self) {
        tracing::info!(
            version = %VERSION,
            pid = self.pid,
            threads = self.threads,
            memory_limit = %self.memory_limit,
            eviction = %self.eviction,
            max_item_size = %self.max_item_size,
            max_connections = self.max_connections,
            data_dir = %self.data_dir,
            persistence = self.persistence,
            "strata ready"
        );
    }
}
