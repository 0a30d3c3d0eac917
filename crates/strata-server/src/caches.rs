//! The node's cache ledger (`strata_metrics::CacheLedger`): the server
//! registers the KV record cache of the SSD tier here; the search node
//! registers its block cache (`SearchStorage::report_to`). `INFO cache`
//! and `_nodes/stats` `strata_cache` render the same report.

use std::sync::Arc;

use strata_kv::Keyspace;
use strata_metrics::{CacheLedger, CacheUsage};

/// Registers the SSD tier's record cache of `keyspace` as `kv_records`
/// (absent from reports without an SSD tier).
pub(crate) fn register_records(ledger: &CacheLedger, keyspace: &Arc<Keyspace>) {
    let keyspace = Arc::clone(keyspace);
    ledger.register("kv_records", move || {
        Some(CacheUsage::from(keyspace.ssd()?.store().stats().cache))
    });
}
