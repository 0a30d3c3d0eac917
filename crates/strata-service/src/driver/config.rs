//! [`DriverConfig`]: what a listener's connections are allowed (input,
//! idle and request bounds) and where they run.

use std::sync::Arc;
use std::time::Duration;

use crate::timeouts::{IdleTimeout, DEFAULT_REQUEST_TIMEOUT};
use crate::workers::WorkerPool;

/// Per-listener limits.
#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// Largest amount of unprocessed input a connection may buffer; beyond it
    /// the connection is closed. Protocols set it above their largest legal
    /// request (maximum item size plus framing).
    pub max_input: usize,
    /// How long a connection may send nothing (none by default).
    pub idle_timeout: IdleTimeout,
    /// How long a started request may take to arrive, and a batch of
    /// replies to be taken (also the TLS handshake's bound on TLS ports).
    pub request_timeout: Duration,
    /// Where connections run: on the pool's workers, or (`None`) as tasks
    /// of the runtime that accepts them.
    pub workers: Option<Arc<WorkerPool>>,
}

impl DriverConfig {
    /// Limits with `max_input`, no idle limit and the default request bound.
    pub fn new(max_input: usize) -> Self {
        Self {
            max_input,
            idle_timeout: IdleTimeout::default(),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            workers: None,
        }
    }
}
