//! What a session waits on before the request at the front of its input
//! runs again: a blocked command's wake-up ([`wait_blocked`]) and the end
//! of another connection's script ([`wait_for_script`]).

use std::time::Duration;

use strata_kv::fetch::FetchWait;

use crate::blocking::BlockWait;
use crate::shared::Shared;

/// Resolves when the blocked request may run again: a push to its keys,
/// its deadline, `CLIENT UNBLOCK`, or (`WAITAOF`) the log durable through
/// its LSN. A durable wait that fails (the log did) leaves the others: the
/// request then waits out its timeout, as Redis's does on an AOF that
/// cannot sync, instead of running again at once and forever.
pub(super) fn wait_blocked(shared: &Shared, mut wait: BlockWait, client: u64) -> FetchWait {
    let durable = wait.durable.take().and_then(|lsn| {
        let durability = shared.info.durability.as_deref()?;
        durability.durable(lsn)
    });
    let blocked = shared.waiters.wait(wait, client);
    let Some(durable) = durable else {
        return blocked;
    };
    Box::pin(async move {
        tokio::pin!(blocked);
        tokio::select! {
            () = &mut blocked => {}
            synced = durable => if synced.is_err() {
                blocked.await;
            },
        }
    })
}

/// Resolves when the keyspace's entry gate opens (the running script
/// ended), or after at most 50 ms (then the gate is asked again: the
/// threshold may have passed).
pub(super) fn wait_for_script(shared: &Shared, left: Duration) -> FetchWait {
    // Scripts run with the gate closed (`Keyspace::exclusive_drained`), so
    // its opening is their end; waking every waiter at once lets requests
    // queued behind a short script run as soon as it ends.
    let opened = shared.keyspace.gate_open();
    let nap = left.min(Duration::from_millis(50));
    Box::pin(async move {
        tokio::select! {
            () = opened => {}
            () = tokio::time::sleep(nap) => {}
        }
    })
}
