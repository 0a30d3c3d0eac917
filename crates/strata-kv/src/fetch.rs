//! Values that are not in DRAM (`data = ssd`), and how a front end gets
//! them without blocking its worker thread or holding a shard lock across
//! device I/O.
//!
//! An operation that needs a value the SSD tier does not hold in DRAM
//! (record cache or open write block) does one of two things:
//! - **defer** (inside a front end's [`Attempt`], before the request has
//!   changed anything): it records the value's location, changes nothing,
//!   and fails (`KvError::NotResident`, or a read that finds nothing). The
//!   front end discards the request's reply, leaves the request in its
//!   input, awaits [`Fetch::run`] (reads served by the SSD tier's I/O
//!   threads) and runs the request again with the fetched values;
//! - **block** (everywhere else: multi-key operations, `EXEC`, scans,
//!   maintenance, or a request that already changed something): it reads
//!   the device under the lock. These paths are rare on a hot key-value
//!   workload, and they must not be re-run.
//!
//! State is per thread: a session's `process` runs on one thread without
//! awaiting, so the attempt's scope is exactly one request.

use std::cell::RefCell;
use std::future::Future;

use bytes::Bytes;
use strata_ssd::{BlockLoc, SsdStore};

/// A value read for a retried request: the SSD entry at `loc`.
#[derive(Debug, Clone)]
pub struct Fetched {
    loc: BlockLoc,
    payload: Bytes,
}

/// The reads a deferred request waits for.
pub struct Fetch {
    store: SsdStore,
    locs: Vec<BlockLoc>,
}

impl std::fmt::Debug for Fetch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetch").field("locs", &self.locs).finish()
    }
}

impl Fetch {
    /// Reads every missing value through the SSD tier's I/O threads, all
    /// in flight at once. A failed read is left out: the retry then reads
    /// it while blocking, and reports the error to the client.
    pub fn run(self) -> impl Future<Output = Vec<Fetched>> + Send + 'static {
        let reads: Vec<_> = self
            .locs
            .iter()
            .map(|&loc| {
                let read = self.store.fetch_async(loc);
                async move { read.await.ok().map(|payload| Fetched { loc, payload }) }
            })
            .collect();
        async move {
            futures_util::future::join_all(reads)
                .await
                .into_iter()
                .flatten()
                .collect()
        }
    }

    /// How many values it reads.
    pub fn len(&self) -> usize {
        self.locs.len()
    }

    /// True when it reads nothing.
    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }
}

/// How a request attempt ended, as far as values are concerned.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Values the request needs that were not in DRAM: discard its reply,
    /// run the fetch, and attempt it again.
    pub fetch: Option<Fetch>,
    /// A value could not be read (device error or damage): the request's
    /// reply must be replaced by the protocol's server error naming this.
    pub error: Option<String>,
}

#[derive(Default)]
struct Scope {
    /// Inside an attempt that may defer.
    deferring: bool,
    /// The attempt changed the keyspace: no more deferring.
    mutated: bool,
    /// Nesting depth of [`Blocking`] guards.
    blocking: u32,
    store: Option<SsdStore>,
    missing: Vec<BlockLoc>,
    fetched: Vec<Fetched>,
    error: Option<String>,
}

thread_local! {
    static SCOPE: RefCell<Scope> = RefCell::default();
}

/// One attempt of one request by a front end: begin before executing it,
/// [`finish`](Attempt::finish) after. `may_defer` is false on a last
/// attempt (it then reads while blocking, so it always completes).
#[derive(Debug)]
pub struct Attempt(());

impl Attempt {
    /// Starts an attempt with the values fetched for it (empty on a first
    /// attempt).
    pub fn begin(fetched: Vec<Fetched>, may_defer: bool) -> Attempt {
        SCOPE.with(|s| {
            let mut s = s.borrow_mut();
            s.deferring = may_defer;
            s.mutated = false;
            s.missing.clear();
            s.fetched = fetched;
            s.error = None;
        });
        Attempt(())
    }

    /// Ends the attempt: what the request still needs.
    pub fn finish(self) -> Outcome {
        SCOPE.with(|s| {
            let mut s = s.borrow_mut();
            s.deferring = false;
            s.fetched.clear();
            let missing = std::mem::take(&mut s.missing);
            let store = s.store.take();
            let error = s.error.take();
            let fetch = match (store, missing.is_empty()) {
                (Some(store), false) if error.is_none() => Some(Fetch {
                    store,
                    locs: missing,
                }),
                _ => None,
            };
            Outcome { fetch, error }
        })
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        SCOPE.with(|s| s.borrow_mut().deferring = false);
    }
}

/// While alive, this thread reads missing values while blocking (for
/// operations that cannot be re-run: multi-key ones, `EXEC`, scans).
pub(crate) struct Blocking(());

impl Blocking {
    pub(crate) fn enter() -> Blocking {
        SCOPE.with(|s| s.borrow_mut().blocking += 1);
        Blocking(())
    }
}

impl Drop for Blocking {
    fn drop(&mut self) {
        SCOPE.with(|s| s.borrow_mut().blocking -= 1);
    }
}

/// The current request changed the keyspace: from now on it must not be
/// re-run, so missing values are read while blocking.
pub(crate) fn note_mutation() {
    SCOPE.with(|s| s.borrow_mut().mutated = true);
}

/// What [`resolve`] found.
pub(crate) enum Resolved {
    /// The entry's payload.
    Found(Bytes),
    /// Not in DRAM; the attempt recorded it and must be re-run.
    Deferred,
    /// Reading failed; recorded for the attempt's reply, described here.
    Failed(String),
}

/// The payload of the SSD entry at `loc`: fetched for this attempt, in
/// DRAM (record cache or open block), or read from the device when this
/// thread may block.
pub(crate) fn resolve(store: &SsdStore, loc: BlockLoc) -> Resolved {
    let defer = SCOPE.with(|s| {
        let s = s.borrow();
        let found = s.fetched.iter().find(|f| f.loc == loc);
        match found {
            Some(f) => Err(f.payload.clone()),
            None => Ok(s.deferring && !s.mutated && s.blocking == 0),
        }
    });
    let defer = match defer {
        Err(payload) => return Resolved::Found(payload),
        Ok(defer) => defer,
    };
    if defer {
        match store.read_resident(loc) {
            Some(Ok(payload)) => return Resolved::Found(payload),
            Some(Err(e)) => return failed(e.to_string()),
            None => {}
        }
        SCOPE.with(|s| {
            let mut s = s.borrow_mut();
            if !s.missing.contains(&loc) {
                s.missing.push(loc);
            }
            if s.store.is_none() {
                s.store = Some(store.clone());
            }
        });
        return Resolved::Deferred;
    }
    match store.read(loc) {
        Ok(payload) => Resolved::Found(payload),
        Err(e) => failed(e.to_string()),
    }
}

/// Records a read failure for the current attempt.
pub(crate) fn failed(reason: String) -> Resolved {
    tracing::error!(%reason, "reading a value from the SSD tier failed");
    SCOPE.with(|s| {
        let mut s = s.borrow_mut();
        if s.error.is_none() {
            s.error = Some(reason.clone());
        }
    });
    Resolved::Failed(reason)
}
