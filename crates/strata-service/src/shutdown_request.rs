//! [`ShutdownRequest`]: a client asking the server to stop (Redis's
//! `SHUTDOWN`). The front end files the request; `strata serve` waits for
//! it beside SIGINT and SIGTERM and stops the server as the request says.
//! A leaf.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// How the server is to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShutdownKind {
    /// As on SIGTERM: stop accepting, let connections close, make what was
    /// acknowledged durable.
    Graceful,
    /// Exit at once, as a kill would, with nothing flushed beyond what the
    /// durability mode already made durable (`SHUTDOWN NOSAVE` while a
    /// script that cannot be killed holds the keyspace: a graceful stop
    /// would wait for it forever).
    Abandon,
}

/// A shared, one-way request to stop; cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct ShutdownRequest {
    filed: CancellationToken,
    /// 0: graceful, 1: abandon (the strongest request filed wins).
    kind: Arc<AtomicU8>,
}

impl ShutdownRequest {
    /// Files a request to stop as `kind`.
    pub fn request(&self, kind: ShutdownKind) {
        if kind == ShutdownKind::Abandon {
            self.kind.store(1, Ordering::SeqCst);
        }
        self.filed.cancel();
    }

    /// Whether a request has been filed.
    pub fn is_requested(&self) -> bool {
        self.filed.is_cancelled()
    }

    /// Resolves once a request is filed, with how to stop.
    pub fn requested(&self) -> impl std::future::Future<Output = ShutdownKind> + Send + 'static {
        let (filed, kind) = (self.filed.clone(), self.kind.clone());
        async move {
            filed.cancelled().await;
            match kind.load(Ordering::SeqCst) {
                0 => ShutdownKind::Graceful,
                _ => ShutdownKind::Abandon,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_resolves_the_wait_and_abandon_wins() {
        let request = ShutdownRequest::default();
        assert!(!request.is_requested());
        let waiting = tokio::spawn(request.requested());
        request.clone().request(ShutdownKind::Graceful);
        assert_eq!(waiting.await.unwrap(), ShutdownKind::Graceful);
        request.request(ShutdownKind::Abandon);
        request.request(ShutdownKind::Graceful);
        assert_eq!(request.requested().await, ShutdownKind::Abandon);
        assert!(request.is_requested());
    }
}
