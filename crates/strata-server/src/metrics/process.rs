//! The process at scrape time: what its memory allocator holds
//! (`strata_metrics::allocator`, registered by the executable), by state:
//! `allocated` (live allocations), `active` (their pages), `resident`
//! (the allocator's resident pages), `mapped` and `retained`. Nothing is
//! exported when no allocator probe is registered.

use std::fmt::Result;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::registry::Unit;

use super::encode::gauges;

/// Reads the allocator probe.
#[derive(Debug)]
pub(crate) struct ProcessCollector;

impl Collector for ProcessCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result {
        let Some(a) = strata_metrics::allocator_stats() else {
            return Ok(());
        };
        let rows = [
            ("allocated", a.allocated),
            ("active", a.active),
            ("resident", a.resident),
            ("mapped", a.mapped),
            ("retained", a.retained),
        ];
        gauges(
            &mut enc,
            "allocator",
            "Bytes the memory allocator holds, by state (as Redis's allocator_* INFO fields).",
            Some(Unit::Bytes),
            rows.map(|(state, bytes)| (vec![("state", state)], bytes as i64)),
        )
    }
}
