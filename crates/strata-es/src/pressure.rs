//! Indexing back pressure, as Elasticsearch's `indexing_pressure`: every
//! write request (`_bulk`, `_doc`, `_create`, `_update`, document deletes)
//! holds its body's bytes from the moment it is handed to the engine until
//! its reply may be sent (translog durability included). A request that
//! would take the bytes in flight past the limit is refused at once with
//! 429 `es_rejected_execution_exception`, so a client that outruns the
//! engine is told to back off instead of queueing without bound. A single
//! request larger than the whole limit is refused too, as in Elasticsearch.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::error::{EsError, Result};

/// The default limit: 10% of the host's memory (Elasticsearch uses 10% of
/// its heap), or 512 MiB when the host's memory is unknown.
pub fn default_limit() -> usize {
    crate::host::memory()
        .map(|(total, _)| (total / 10) as usize)
        .filter(|l| *l > 0)
        .unwrap_or(512 << 20)
}

#[derive(Debug, Default)]
struct Counters {
    current: AtomicUsize,
    limit: AtomicUsize,
    total_bytes: AtomicU64,
    total_ops: AtomicU64,
    rejections: AtomicU64,
}

/// The bytes of write requests in flight, against a limit.
#[derive(Debug, Clone)]
pub struct IndexingPressure {
    counters: Arc<Counters>,
}

/// Bytes held by one request; released when dropped.
#[derive(Debug)]
pub struct Permit {
    counters: Arc<Counters>,
    bytes: usize,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.counters
            .current
            .fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

impl IndexingPressure {
    /// A counter with `limit` bytes.
    pub fn new(limit: usize) -> IndexingPressure {
        let counters = Counters::default();
        counters.limit.store(limit, Ordering::Relaxed);
        IndexingPressure {
            counters: Arc::new(counters),
        }
    }

    /// Changes the limit (requests in flight keep their bytes).
    pub fn set_limit(&self, limit: usize) {
        self.counters.limit.store(limit, Ordering::Relaxed);
    }

    /// Bytes in flight now.
    pub fn current(&self) -> usize {
        self.counters.current.load(Ordering::Acquire)
    }

    /// Takes `bytes` for one request, or refuses it with 429 when that
    /// would pass the limit.
    pub fn acquire(&self, bytes: usize) -> Result<Permit> {
        let c = &self.counters;
        let limit = c.limit.load(Ordering::Relaxed);
        let mut current = c.current.load(Ordering::Acquire);
        loop {
            if current.saturating_add(bytes) > limit {
                c.rejections.fetch_add(1, Ordering::Relaxed);
                return Err(EsError::Rejected(format!(
                    "rejected execution of coordinating operation [coordinating_and_primary_bytes={current}, replica_bytes=0, all_bytes={current}, coordinating_operation_bytes={bytes}, max_coordinating_and_primary_bytes={limit}]"
                )));
            }
            match c.current.compare_exchange_weak(
                current,
                current + bytes,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(now) => current = now,
            }
        }
        c.total_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        c.total_ops.fetch_add(1, Ordering::Relaxed);
        Ok(Permit {
            counters: Arc::clone(&self.counters),
            bytes,
        })
    }

    /// The `indexing_pressure` object of `_nodes/stats`.
    pub fn stats(&self) -> Value {
        let c = &self.counters;
        let current = c.current.load(Ordering::Acquire);
        let total = c.total_bytes.load(Ordering::Relaxed);
        let rejections = c.rejections.load(Ordering::Relaxed);
        json!({"memory": {
            "current": {
                "combined_coordinating_and_primary_in_bytes": current,
                "coordinating_in_bytes": current,
                "primary_in_bytes": 0,
                "replica_in_bytes": 0,
                "all_in_bytes": current,
            },
            "total": {
                "combined_coordinating_and_primary_in_bytes": total,
                "coordinating_in_bytes": total,
                "primary_in_bytes": 0,
                "replica_in_bytes": 0,
                "all_in_bytes": total,
                "coordinating_ops": c.total_ops.load(Ordering::Relaxed),
                "coordinating_rejections": rejections,
                "primary_rejections": 0,
                "replica_rejections": 0,
            },
            "limit_in_bytes": c.limit.load(Ordering::Relaxed),
        }})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_bounded_and_released() {
        let p = IndexingPressure::new(100);
        let a = p.acquire(60).unwrap();
        let e = p.acquire(41).unwrap_err();
        assert_eq!(
            (e.status(), e.es_type()),
            (429, "es_rejected_execution_exception")
        );
        let b = p.acquire(40).unwrap();
        assert_eq!(p.current(), 100);
        drop(a);
        drop(b);
        assert_eq!(p.current(), 0);
        assert!(p.acquire(101).is_err());
        assert_eq!(p.stats()["memory"]["total"]["coordinating_rejections"], 2);
    }
}
