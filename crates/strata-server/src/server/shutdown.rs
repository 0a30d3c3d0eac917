//! [`Server::shutdown`]: the start sequence in reverse. Accept loops stop,
//! open connections get a bounded grace period to finish (polled), the
//! search indices are flushed, maintenance stops, then what was
//! acknowledged is made durable: the SSD tier synced, the persistent arena
//! marked clean (only when every connection closed), the command log
//! synced. [`Server::shutdown_requested`] is a client's `SHUTDOWN` to wait
//! for.

use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_service::{Clients, ShutdownKind};

use super::Server;
use crate::blocking::blocking;

/// How often shutdown checks whether the last connections have closed.
const DRAIN_POLL: Duration = Duration::from_millis(10);

impl Server {
    /// Resolves when a client asks the server to stop (`SHUTDOWN`), with
    /// how it should.
    pub fn shutdown_requested(
        &self,
    ) -> impl std::future::Future<Output = ShutdownKind> + Send + 'static {
        self.info.shutdown.requested()
    }

    /// Stops accepting, closes connections (waiting at most `grace` for them
    /// to flush and close), then stops background maintenance.
    pub async fn shutdown(mut self, grace: Duration) {
        self.shutdown.cancel();
        if let Some(metrics) = self.metrics.take() {
            metrics.stop().await;
        }
        for front_end in &mut self.front_ends {
            if let Err(err) = (&mut front_end.accept_loop).await {
                tracing::warn!(protocol = %front_end.name, %err, "accept loop ended abnormally");
            }
        }
        let deadline = Instant::now() + grace;
        let drained = loop {
            let open = self.open_connections();
            if open == 0 {
                break true;
            }
            if Instant::now() >= deadline {
                tracing::warn!(
                    open,
                    "connections still open after the grace period; dropping them"
                );
                break false;
            }
            tokio::time::sleep(DRAIN_POLL).await;
        };
        if let Some(http) = self.http.take() {
            http.stop(deadline.saturating_duration_since(Instant::now()))
                .await;
        }
        if let Some(maintenance) = self.maintenance.take() {
            maintenance.stop();
        }
        if let Some(workers) = self.workers.take() {
            // Connections drained (or were given up on): nothing is left
            // that must finish, and no task can write after this.
            workers.stop();
        }
        if self.keyspace.ssd().is_some() {
            // Whatever the drain left, make what was acknowledged durable.
            let keyspace = self.keyspace.clone();
            blocking(move || keyspace.sync_ssd());
            tracing::info!("SSD tier flushed");
        }
        if let Some(tier) = self.keyspace.tier().filter(|_| drained) {
            // Nothing writes any more: say so in the persistent arena.
            match tier.arena().mark_clean_shutdown() {
                Ok(()) => tracing::info!("persistent memory marked clean"),
                Err(err) => tracing::error!(error = %err, "could not mark persistent memory clean"),
            }
        }
        if let Some(persistence) = self.durability.persistence() {
            match blocking(|| persistence.close()) {
                Ok(()) => tracing::info!("command log synced"),
                Err(err) => tracing::error!(error = %err, "could not sync the command log"),
            }
        }
    }

    /// Connections open on the key-value front ends (RESP's two ports
    /// share one registry: counted once).
    fn open_connections(&self) -> usize {
        let mut registries: Vec<&Arc<Clients>> = Vec::new();
        for front_end in &self.front_ends {
            if !registries
                .iter()
                .any(|r| Arc::ptr_eq(r, &front_end.clients))
            {
                registries.push(&front_end.clients);
            }
        }
        registries.iter().map(|r| r.current()).sum()
    }
}
