//! Giving back an element a push handed to a blocked `BLPOP`/`BRPOP`
//! (see [`crate::blocking`]) whose connection closed before the pop was
//! answered: the element goes back to its list, at the end the pop would
//! have taken it from, so it is not lost with the connection (where the
//! same pop run by the client itself would have left it in the list).

use std::sync::Arc;

use super::either::edit;
use super::End;
use crate::blocking::Served;
use crate::notify::{self, fire_created_in};
use crate::shared::Shared;

/// Gives `served` back once the keyspace's entry gate is open: at once
/// when it is, else from a task that waits for the long section (a
/// script) holding the keyspace to end, so no worker thread waits on a
/// shard lock. Outside a runtime (a test, a shutdown) it is done here.
pub fn give_back(shared: &Arc<Shared>, served: Served) {
    {
        let entry = shared.keyspace.enter();
        if entry.is_open() {
            return push_back(shared, &served);
        }
    }
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            let shared = Arc::clone(shared);
            drop(runtime.spawn(async move {
                loop {
                    shared.keyspace.gate_open().await;
                    let entry = shared.keyspace.enter();
                    if entry.is_open() {
                        break push_back(&shared, &served);
                    }
                }
            }));
        }
        Err(_) => push_back(shared, &served),
    }
}

/// Pushes the element back, announces the push and wakes the next client
/// blocked on the key. A key that became something else meanwhile keeps
/// its value and the element is dropped (logged).
fn push_back(shared: &Shared, served: &Served) {
    let (end, event) = match served.from_left {
        true => (End::Left, "lpush"),
        false => (End::Right, "rpush"),
    };
    let limit = shared.encodings.list_limit();
    let mut store = shared.keyspace.store();
    let pushed = edit(&mut store, &served.key, limit, |list, _| {
        list.push(end, &served.element)?;
        Ok(list.len())
    });
    match pushed {
        Ok(len) => {
            fire_created_in(shared, len == 1, notify::LIST, event, &served.key);
            shared.waiters.pushed(&served.key);
        }
        Err(err) => tracing::warn!(
            %err,
            "an element handed to a blocked pop whose connection closed could not go back to its list"
        ),
    }
}
