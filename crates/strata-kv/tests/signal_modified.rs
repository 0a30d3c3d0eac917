//! `Store::signal_modified`: a change that leaves the key as it was (a
//! push handed straight to a blocked client) breaks the key's watches and
//! writes nothing, through the shared store and inside an exclusive
//! section alike.

use std::sync::{Arc, Mutex};

use strata_kv::journal::{Journal, Refusal};
use strata_kv::{Keyspace, Store};

use crate::common;

use common::large::{clock, config};

/// A journal that counts its records.
#[derive(Default)]
struct Counter(Mutex<u64>);

impl Journal for Counter {
    fn check(&self) -> Result<(), Refusal> {
        Ok(())
    }

    fn append(&self, _body: &[u8]) -> Result<u64, String> {
        let mut n = self.0.lock().unwrap();
        *n += 1;
        Ok(*n)
    }
}

#[test]
fn a_signal_breaks_watches_and_writes_nothing() {
    let ks = Keyspace::new(config(2), clock());
    let journal = Arc::new(Counter::default());
    ks.attach_journal(journal.clone()).ok().unwrap();
    let watch = ks.watch(b"q");
    let other = ks.watch(b"r");
    assert!(ks.exclusive(|s| s.watch_intact(&watch)));
    ks.store().signal_modified(b"q");
    assert!(!ks.exclusive(|s| s.watch_intact(&watch)));
    assert!(ks.exclusive(|s| s.watch_intact(&other)), "another key");
    assert_eq!(ks.store().kind(b"q"), None);
    // Inside an exclusive section (EXEC) too.
    ks.exclusive(|s| s.signal_modified(b"r"));
    assert!(!ks.exclusive(|s| s.watch_intact(&other)));
    assert_eq!(*journal.0.lock().unwrap(), 0, "nothing journaled");
    assert_eq!(ks.stats().total_items, 0);
}
