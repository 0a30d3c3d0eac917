//! Fail-stop: once a durable structure fails for good (the command log
//! poisoned by a failed sync or write, the SSD tier by a failed write or
//! sync, the persistent-memory arena by a failed `msync`), the keyspace in memory holds changes that can never become
//! durable, some of them already reported to their clients as failed.
//! Serving them until some later restart and then losing them would be
//! the surprise, so `strata serve` stops at once (exit code 1) and the
//! restart serves exactly what was durable. A full disk is not such a
//! failure: the log retries its writes and only refuses new changes.
//! Search indices that cannot be opened at start stop the server too (as
//! they refused the start before the port answered during recovery).

use std::sync::Arc;
use std::time::Duration;

use strata_es::NodeState;
use strata_kv::Keyspace;

use crate::durability::ServerDurability;

/// How often the structures are looked at.
const POLL: Duration = Duration::from_millis(20);

/// What failed, if anything has.
pub(crate) fn failure(
    keyspace: &Keyspace,
    durability: &ServerDurability,
    search: Option<&NodeState>,
) -> Option<String> {
    if let Some(cause) = durability.persistence().and_then(|p| p.log().poisoned()) {
        return Some(format!("the command log failed: {cause}"));
    }
    if let Some(cause) = search.and_then(NodeState::failure) {
        return Some(format!("cannot open the search indices: {cause}"));
    }
    if let Some(cause) = search
        .and_then(NodeState::node)
        .and_then(|node| node.catalog.translog_failure())
    {
        return Some(cause);
    }
    if let Some(cause) = keyspace.tier().and_then(|tier| tier.arena().failure()) {
        return Some(format!("persistent memory failed: {cause}"));
    }
    let ssd = keyspace.ssd()?;
    let cause = ssd.store().poisoned()?;
    Some(format!("the SSD tier failed: {cause}"))
}

/// Resolves with the cause once a durable structure has failed.
pub(crate) async fn failed(
    keyspace: Arc<Keyspace>,
    durability: Arc<ServerDurability>,
    search: Option<Arc<NodeState>>,
) -> String {
    loop {
        if let Some(cause) = failure(&keyspace, &durability, search.as_deref()) {
            return cause;
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_device::{Directory, FaultyDirectory, MemDirectory};
    use strata_kv::{KeyspaceConfig, ManualClock, NewItem, Store};
    use strata_persist::{Durability, PersistConfig, Persistence};

    fn item(v: &[u8]) -> NewItem<'_> {
        NewItem {
            value: v.into(),
            flags: 0,
            expires_at: None,
        }
    }

    #[test]
    fn a_failed_log_sync_is_a_failure_and_a_full_disk_is_not() {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let ks = Keyspace::new(KeyspaceConfig::default(), clock);
        let log_dir = FaultyDirectory::new(Arc::new(MemDirectory::new()) as Arc<dyn Directory>);
        let faults = log_dir.faults();
        let config = PersistConfig::new(Durability::Sync, "/unused");
        let snapshots = Arc::new(MemDirectory::new());
        let p = Persistence::open_in(ks.clone(), Arc::new(log_dir), snapshots, config).unwrap();
        let durability = ServerDurability::new(Some(p), 0);
        assert_eq!(failure(&ks, &durability, None), None);
        // A full disk stalls the log: no failure, writes resume later.
        faults.set_capacity(0);
        ks.store().set(b"k", item(b"v")).unwrap();
        let log = durability.persistence().unwrap().log().clone();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while log.write_stalled().is_none() {
            assert!(std::time::Instant::now() < deadline, "no stall");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(failure(&ks, &durability, None), None);
        // A failed sync poisons it: the server must stop.
        faults.fail_syncs_after(0);
        faults.set_capacity(u64::MAX - 1);
        let lsn = strata_kv::take_written_lsn();
        assert!(log.wait_durable(lsn).is_err());
        let cause = failure(&ks, &durability, None).expect("a failure");
        assert!(cause.starts_with("the command log failed"), "{cause}");
    }

    #[test]
    fn a_failed_persist_to_persistent_memory_is_a_failure() {
        use strata_kv::{DataTier, IndexTier, Placement};
        use strata_pmem::PersistentArena;
        let arena = PersistentArena::simulated(8192 + 256 * (64 << 10), 64 << 10, 0x5EED).unwrap();
        let placement = Placement {
            index: IndexTier::Pmem,
            data: DataTier::Pmem,
        };
        let clock = Arc::new(ManualClock::new(1_700_000_000_000));
        let config = KeyspaceConfig {
            shards: 4,
            ..KeyspaceConfig::default()
        };
        let (ks, _) =
            Keyspace::open_placed(config, clock, placement, Some(Arc::new(arena))).unwrap();
        let durability = ServerDurability::new(None, 0);
        ks.store().set(b"k", item(b"v")).unwrap();
        assert_eq!(failure(&ks, &durability, None), None);
        ks.tier()
            .unwrap()
            .arena()
            .simulation()
            .unwrap()
            .cut_power_after(0);
        let _ = ks.store().set(b"k2", item(b"lost"));
        let cause = failure(&ks, &durability, None).expect("a failure");
        assert!(cause.starts_with("persistent memory failed"), "{cause}");
    }
}
