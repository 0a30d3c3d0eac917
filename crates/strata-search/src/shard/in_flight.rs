//! [`InFlight`]: a bound on the documents handed to a shard's tantivy
//! writer that its indexing thread has not taken yet.
//!
//! tantivy's writer queues up to 10,000 operations per writer
//! (`PIPELINE_MAX_SIZE_IN_DOCS`), and with one indexing thread per shard
//! the queue fills whenever the bulk handlers build documents faster than
//! the thread indexes them: eventdata's queued documents were 65 MiB of
//! the index phase's peak (`docs/benchmarks.md`, *Where peak RSS goes*).
//! Each document goes to the writer as a [`QueuedDoc`] holding a
//! [`Permit`]; the indexing thread gives the permit back when it takes
//! the document (`into_tantivy_document`), or the queue does when it
//! drops it (a rollback). A writer that waits for a permit waits a bounded
//! time: past [`MAX_WAIT`] it goes on, so a stalled indexing thread leaves
//! tantivy's own bound, never a hang.

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use tantivy::schema::document::Document;
use tantivy::TantivyDocument;

/// Documents a shard's writer may hold untaken: a few bulk requests'
/// share of documents, a fifth of tantivy's queue.
pub(super) const MAX_QUEUED: usize = 2_000;

/// The longest a writer waits for a permit before going on anyway.
const MAX_WAIT: Duration = Duration::from_secs(1);

/// See the module docs.
#[derive(Debug, Clone)]
pub(super) struct InFlight {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    limit: usize,
    queued: Mutex<usize>,
    taken: Condvar,
}

impl InFlight {
    /// A bound of `limit` documents.
    pub(super) fn new(limit: usize) -> InFlight {
        InFlight {
            inner: Arc::new(Inner {
                limit,
                queued: Mutex::new(0),
                taken: Condvar::new(),
            }),
        }
    }

    /// Documents queued and not taken now.
    #[cfg(test)]
    pub(super) fn queued(&self) -> usize {
        *self.inner.queued.lock()
    }

    /// `doc` with a permit, waiting (at most [`MAX_WAIT`]) while the
    /// bound is reached.
    pub(super) fn queue(&self, doc: TantivyDocument) -> QueuedDoc {
        let deadline = Instant::now() + MAX_WAIT;
        let mut queued = self.inner.queued.lock();
        while *queued >= self.inner.limit {
            if self
                .inner
                .taken
                .wait_until(&mut queued, deadline)
                .timed_out()
            {
                break;
            }
        }
        *queued += 1;
        QueuedDoc {
            doc,
            _permit: Permit {
                inner: self.inner.clone(),
            },
        }
    }
}

/// One queued document's place under the bound, given back when dropped.
#[derive(Debug)]
pub(super) struct Permit {
    inner: Arc<Inner>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut queued = self.inner.queued.lock();
        *queued = queued.saturating_sub(1);
        if *queued < self.inner.limit {
            self.inner.taken.notify_one();
        }
    }
}

/// A document on its way to the indexing thread (see the module docs).
#[derive(Debug)]
pub(super) struct QueuedDoc {
    doc: TantivyDocument,
    _permit: Permit,
}

impl Document for QueuedDoc {
    type Value<'a> = <TantivyDocument as Document>::Value<'a>;
    type FieldsValuesIter<'a> = <TantivyDocument as Document>::FieldsValuesIter<'a>;

    fn iter_fields_and_values(&self) -> Self::FieldsValuesIter<'_> {
        self.doc.iter_fields_and_values()
    }

    /// The indexing thread takes the document: the permit goes back now.
    fn into_tantivy_document(self) -> TantivyDocument {
        self.doc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permits_come_back_when_taken_or_dropped() {
        let bound = InFlight::new(2);
        let a = bound.queue(TantivyDocument::new());
        let b = bound.queue(TantivyDocument::new());
        assert_eq!(bound.queued(), 2);
        let _doc = a.into_tantivy_document();
        assert_eq!(bound.queued(), 1);
        drop(b);
        assert_eq!(bound.queued(), 0);
    }

    #[test]
    fn a_full_bound_waits_for_a_taker() {
        let bound = InFlight::new(1);
        let first = bound.queue(TantivyDocument::new());
        let taker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            first.into_tantivy_document()
        });
        let started = Instant::now();
        let _second = bound.queue(TantivyDocument::new());
        assert!(started.elapsed() >= Duration::from_millis(40));
        assert!(started.elapsed() < MAX_WAIT);
        taker.join().unwrap();
        assert_eq!(bound.queued(), 1);
    }
}
