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
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_ssd::{BlockLoc, SsdStore};

/// Deferred attempts of one request before its last attempt reads while
/// blocking (values fetched for it can be evicted from the record cache
/// by other requests before the retry; this bounds the ping-pong).
const MAX_DEFERRALS: u32 = 3;

/// What a front end awaits before running a deferred request again.
pub type FetchWait = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A value read for a retried request: the SSD entry at `loc`.
#[derive(Debug, Clone)]
pub struct Fetched {
    loc: BlockLoc,
    payload: Bytes,
}

/// The reads a deferred request waits for.
pub struct Fetch {
    store: SsdStore,
    /// Each entry, its payload length and its cache hint (the key's hash).
    locs: Vec<(BlockLoc, usize, u64)>,
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
            .map(|&(loc, len, hint)| {
                let read = self.store.fetch_async(loc, Some(len), hint);
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
    missing: Vec<(BlockLoc, usize, u64)>,
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

/// Whether the current attempt already deferred a read: its reply will be
/// discarded, so front-end counters (memcached `get_hits`) should not
/// count what it found.
pub fn deferred() -> bool {
    SCOPE.with(|s| !s.borrow().missing.is_empty())
}

/// What a session does after an attempt ([`Retry::finish`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The reply stands.
    Done,
    /// Discard the reply, keep the request in the input, await
    /// [`Retry::wait`], and run it again.
    Again,
    /// Replace the reply with the protocol's server error naming this.
    Failed(String),
}

/// A session's side of deferred reads: the values fetched for the request
/// at the front of its input, and the fetch it waits for.
#[derive(Debug, Default)]
pub struct Retry {
    fetched: Arc<Mutex<Vec<Fetched>>>,
    deferrals: u32,
    pending: Option<Fetch>,
}

impl Retry {
    /// Starts an attempt of the request at the front of the input.
    pub fn begin(&mut self) -> Attempt {
        let fetched = std::mem::take(&mut *self.fetched.lock());
        Attempt::begin(fetched, self.deferrals < MAX_DEFERRALS)
    }

    /// Ends the attempt and says what to do with its reply.
    pub fn finish(&mut self, attempt: Attempt) -> Verdict {
        let outcome = attempt.finish();
        if let Some(fetch) = outcome.fetch {
            self.deferrals += 1;
            self.pending = Some(fetch);
            return Verdict::Again;
        }
        self.deferrals = 0;
        match outcome.error {
            Some(cause) => Verdict::Failed(cause),
            None => Verdict::Done,
        }
    }

    /// The reads to await before the deferred request runs again.
    pub fn wait(&mut self) -> Option<FetchWait> {
        let fetch = self.pending.take()?;
        let slot = self.fetched.clone();
        Some(Box::pin(async move {
            let values = fetch.run().await;
            *slot.lock() = values;
        }))
    }
}

/// The current request changed the keyspace: from now on it must not be
/// re-run, so missing values are read while blocking.
pub(crate) fn note_mutation() {
    SCOPE.with(|s| s.borrow_mut().mutated = true);
}

/// How a request gets a value only the device has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadPath {
    /// Deferred: the request is parked, the read runs on the SSD tier's
    /// I/O threads (many in flight), and the request runs again. Right
    /// for devices whose latency is long against a request's CPU time.
    #[default]
    Deferred,
    /// Inline: the worker thread reads while holding the shard's read
    /// lock, blocking other connections on that thread for one device
    /// read; no thread hand-off. Only for devices with very short reads.
    Inline,
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

/// The payload of the SSD entry at `loc` (`len` bytes, cached under
/// `hint`): fetched for this attempt, in DRAM (record cache or open block),
/// or read from the device when this thread may block.
/// `path` says whether a read that must go to the device may be deferred at
/// all.
pub(crate) fn resolve(
    store: &SsdStore,
    loc: BlockLoc,
    len: usize,
    hint: u64,
    path: ReadPath,
) -> Resolved {
    let defer = SCOPE.with(|s| {
        let s = s.borrow();
        let found = s.fetched.iter().find(|f| f.loc == loc);
        match found {
            Some(f) => Err(f.payload.clone()),
            None => Ok(path == ReadPath::Deferred && s.deferring && !s.mutated && s.blocking == 0),
        }
    });
    let defer = match defer {
        Err(payload) => return Resolved::Found(payload),
        Ok(defer) => defer,
    };
    if defer {
        match store.read_resident(loc, hint) {
            Some(Ok(payload)) => return Resolved::Found(payload),
            Some(Err(e)) => return failed(e.to_string()),
            None => {}
        }
        SCOPE.with(|s| {
            let mut s = s.borrow_mut();
            if !s.missing.iter().any(|&(l, _, _)| l == loc) {
                s.missing.push((loc, len, hint));
            }
            if s.store.is_none() {
                s.store = Some(store.clone());
            }
        });
        return Resolved::Deferred;
    }
    match store.read_hinted(loc, Some(len), hint) {
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
