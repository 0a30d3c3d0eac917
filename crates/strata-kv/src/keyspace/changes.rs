//! [`Keyspace::observe_changes`] and [`Keyspace::report_changes`]: the
//! change observer's setting (see `changes`).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::core::Keyspace;
use crate::changes::ChangeObserver;

impl Keyspace {
    /// Sets the change observer (once; a second one is refused and
    /// returned). It hears nothing until [`report_changes`](Self::report_changes).
    pub fn observe_changes(
        &self,
        observer: Arc<dyn ChangeObserver>,
    ) -> Result<(), Arc<dyn ChangeObserver>> {
        self.ctx.changes.observer.set(observer)
    }

    /// Starts or stops reporting changes to the observer (a front end turns
    /// it on while some client needs them).
    pub fn report_changes(&self, on: bool) {
        self.ctx.changes.on.store(on, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use parking_lot::Mutex;

    use super::*;
    use crate::changes::ChangeObserver;
    use crate::{KeyspaceConfig, ManualClock, NewItem, Store};

    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl ChangeObserver for Log {
        fn changed(&self, key: &[u8]) {
            self.0
                .lock()
                .push(String::from_utf8_lossy(key).into_owned());
        }
        fn flushed(&self) {
            self.0.lock().push("*flush*".into());
        }
    }

    #[test]
    fn writes_deletes_expired_items_and_flushes_are_reported_while_on() {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let ks = Keyspace::new(KeyspaceConfig::default(), clock.clone());
        let log = Arc::new(Log::default());
        assert!(ks.observe_changes(log.clone()).is_ok());
        let item = |value: &'static [u8], expires_at| NewItem {
            value: value.into(),
            flags: 0,
            expires_at,
        };
        let mut store = ks.store();
        store.set(b"quiet", item(b"v", None)).unwrap();
        ks.report_changes(true);
        store.set(b"a", item(b"1", None)).unwrap();
        store.set(b"t", item(b"2", Some(1_000_500))).unwrap();
        store.delete(b"a").unwrap();
        // An expired item is reported when it is taken out (a write here).
        clock.advance_ms(1_000);
        store.delete(b"t").unwrap();
        ks.flush_after(0).unwrap();
        ks.report_changes(false);
        store.set(b"quiet", item(b"v", None)).unwrap();
        assert_eq!(*log.0.lock(), ["a", "t", "a", "t", "*flush*"]);
    }
}
