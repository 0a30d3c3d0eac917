//! [`SearchContexts`]: the open scroll and point-in-time contexts of a
//! node. Each holds a [`Snapshot`] (the pinned searchers of its indices)
//! and lives until it is cleared or its keep-alive passes without use.
//!
//! Memory is bounded as Elasticsearch bounds it: by the number of open
//! contexts, counted per pinned shard (`search.max_open_scroll_context`,
//! default 500, for scrolls; OpenSearch's `search.max_open_pit_context`,
//! default 300, for points in time, which Elasticsearch 8 leaves
//! unbounded), by `search.max_keep_alive` (24h), and by a reaper that
//! drops expired contexts every second and on every use of the registry.
//! A context keeps only its request and the sort values of the last hit
//! returned, never the hits.
//!
//! Ids are opaque base64 strings: a kind tag, this registry's random salt
//! (so an id from before a restart finds nothing) and a counter.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use base64::Engine as _;
use parking_lot::Mutex;
use serde_json::Value;
use strata_search::{SearchRequest, Snapshot};

use crate::error::{EsError, Result};
use crate::security::clock::{SecurityClock, SystemClock};

/// `search.max_open_scroll_context`'s default.
pub const DEFAULT_MAX_SCROLL: u64 = 500;
/// `search.max_open_pit_context`'s default (OpenSearch's).
pub const DEFAULT_MAX_PIT: u64 = 300;
/// `search.max_keep_alive`: the longest keep-alive a request may ask for.
pub const MAX_KEEP_ALIVE: Duration = Duration::from_secs(24 * 3600);

/// A context kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A scroll (`scroll=` on a search).
    Scroll,
    /// A point in time (`POST /<index>/_pit`).
    Pit,
}

impl Kind {
    fn tag(self) -> u8 {
        match self {
            Kind::Scroll => b's',
            Kind::Pit => b'p',
        }
    }
}

/// Where a scroll is: the request of its pages and the sort values of
/// the last hit returned.
#[derive(Debug)]
pub struct ScrollState {
    /// The request every page repeats (sort ending in `_shard_doc`,
    /// alias filter applied, pinned searchers set).
    pub request: SearchRequest,
    /// The last hit's sort values (`None` before the first page).
    pub after: Option<Vec<Value>>,
}

/// An open context.
#[derive(Debug)]
pub struct Context {
    /// The pinned searchers.
    pub snapshot: Arc<Snapshot>,
    /// A point in time's alias filter (scrolls keep it in their request).
    pub filter: Option<Value>,
    /// A scroll's position; `None` for a point in time.
    pub scroll: Option<Mutex<ScrollState>>,
}

struct Entry {
    context: Arc<Context>,
    kind: Kind,
    expires_ms: u64,
    shards: u64,
}

#[derive(Default)]
struct Open {
    entries: HashMap<u64, Entry>,
    next: u64,
}

impl Open {
    fn sweep(&mut self, now: u64) {
        self.entries.retain(|_, e| e.expires_ms > now);
    }

    fn shards(&self, kind: Kind) -> u64 {
        self.entries
            .values()
            .filter(|e| e.kind == kind)
            .map(|e| e.shards)
            .sum()
    }
}

/// The node's open contexts.
pub struct SearchContexts {
    open: Arc<Mutex<Open>>,
    clock: Arc<dyn SecurityClock>,
    salt: u64,
}

impl std::fmt::Debug for SearchContexts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchContexts")
            .field("open", &self.open.lock().entries.len())
            .finish()
    }
}

impl Default for SearchContexts {
    fn default() -> Self {
        SearchContexts::new(Arc::new(SystemClock), true)
    }
}

impl SearchContexts {
    /// A registry on `clock`; `reaper`: also drop expired contexts every
    /// second from a thread of its own (it ends with the registry).
    pub fn new(clock: Arc<dyn SecurityClock>, reaper: bool) -> SearchContexts {
        let open = Arc::new(Mutex::new(Open::default()));
        if reaper {
            let weak: Weak<Mutex<Open>> = Arc::downgrade(&open);
            let clock = Arc::clone(&clock);
            let _ = std::thread::Builder::new()
                .name("search-contexts-reaper".into())
                .spawn(move || loop {
                    std::thread::sleep(Duration::from_secs(1));
                    match weak.upgrade() {
                        Some(open) => open.lock().sweep(clock.now_millis()),
                        None => return,
                    }
                });
        }
        SearchContexts {
            open,
            clock,
            salt: rand::random(),
        }
    }

    /// Opens a context of `kind` for `keep_alive`, refused when `limit`
    /// (counted in pinned shards) would be passed.
    pub fn open(
        &self,
        kind: Kind,
        context: Context,
        keep_alive: Duration,
        limit: u64,
    ) -> Result<String> {
        let now = self.clock.now_millis();
        let shards = context.snapshot.shard_count().max(1) as u64;
        let mut open = self.open.lock();
        open.sweep(now);
        if open.shards(kind) + shards > limit {
            return Err(EsError::TooManyContexts(match kind {
                Kind::Scroll => format!(
                    "Trying to create too many scroll contexts. Must be less than or equal to: [{limit}]. This limit can be set by changing the [search.max_open_scroll_context] setting."
                ),
                Kind::Pit => format!(
                    "Trying to create too many Point In Time contexts. Must be less than or equal to: [{limit}]. This limit can be set by changing the [search.max_open_pit_context] setting."
                ),
            }));
        }
        open.next += 1;
        let id = open.next;
        open.entries.insert(
            id,
            Entry {
                context: Arc::new(context),
                kind,
                expires_ms: now.saturating_add(keep_alive.as_millis() as u64),
                shards,
            },
        );
        Ok(self.encode(kind, id))
    }

    /// The context of `id`, its keep-alive renewed (`keep_alive`: a new
    /// one, else kept as long as it had left).
    pub fn get(&self, kind: Kind, id: &str, keep_alive: Option<Duration>) -> Result<Arc<Context>> {
        let number = self.decode(kind, id)?;
        let now = self.clock.now_millis();
        let mut open = self.open.lock();
        open.sweep(now);
        match open.entries.get_mut(&number) {
            Some(e) if e.kind == kind => {
                if let Some(k) = keep_alive {
                    e.expires_ms = now.saturating_add(k.as_millis() as u64);
                }
                Ok(Arc::clone(&e.context))
            }
            _ => Err(missing(number)),
        }
    }

    /// Clears the contexts of `ids`; the number freed. Ids that do not
    /// parse are an error, unknown ones are skipped.
    pub fn clear(&self, kind: Kind, ids: &[String]) -> Result<usize> {
        let numbers: Vec<u64> = ids
            .iter()
            .map(|id| self.decode(kind, id))
            .collect::<Result<_>>()?;
        let mut open = self.open.lock();
        open.sweep(self.clock.now_millis());
        let mut freed = 0;
        for n in numbers {
            if open.entries.get(&n).is_some_and(|e| e.kind == kind) {
                open.entries.remove(&n);
                freed += 1;
            }
        }
        Ok(freed)
    }

    /// Clears every context of `kind`; the number freed.
    pub fn clear_all(&self, kind: Kind) -> usize {
        let mut open = self.open.lock();
        let before = open.entries.len();
        open.entries.retain(|_, e| e.kind != kind);
        before - open.entries.len()
    }

    /// Open contexts of `kind` (expired ones dropped first).
    pub fn count(&self, kind: Kind) -> usize {
        let mut open = self.open.lock();
        open.sweep(self.clock.now_millis());
        open.entries.values().filter(|e| e.kind == kind).count()
    }

    fn encode(&self, kind: Kind, id: u64) -> String {
        let mut raw = Vec::with_capacity(17);
        raw.push(kind.tag());
        raw.extend_from_slice(&self.salt.to_be_bytes());
        raw.extend_from_slice(&id.to_be_bytes());
        base64::engine::general_purpose::STANDARD.encode(raw)
    }

    fn decode(&self, kind: Kind, id: &str) -> Result<u64> {
        let bad = || match kind {
            Kind::Scroll => EsError::IllegalArgument("Cannot parse scroll id".into()),
            Kind::Pit => EsError::IllegalArgument(format!("invalid id: [{id}]")),
        };
        let raw = base64::engine::general_purpose::STANDARD
            .decode(id.trim())
            .map_err(|_| bad())?;
        if raw.len() != 17 || raw[0] != kind.tag() {
            return Err(bad());
        }
        let salt = u64::from_be_bytes(raw[1..9].try_into().map_err(|_| bad())?);
        let number = u64::from_be_bytes(raw[9..17].try_into().map_err(|_| bad())?);
        if salt != self.salt {
            // Another node (or this one before a restart): nothing here
            // (0 is never issued).
            return Ok(0);
        }
        Ok(number)
    }
}

fn missing(number: u64) -> EsError {
    EsError::SearchContextMissing(format!("No search context found for id [{number}]"))
}

/// A keep-alive (`scroll=1m`, `keep_alive=5m`): Elasticsearch's time
/// units, positive, at most `search.max_keep_alive`.
pub fn parse_keep_alive(key: &str, raw: &str) -> Result<Duration> {
    let d = strata_search::parse_time_value(raw).ok_or_else(|| {
        EsError::Parse(format!(
            "failed to parse setting [{key}] with value [{raw}] as a time value: unit is missing or unrecognized"
        ))
    })?;
    if d > MAX_KEEP_ALIVE {
        return Err(EsError::IllegalArgument(format!(
            "Keep alive for request ({raw}) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting."
        )));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::clock::ManualClock;

    fn context() -> Context {
        Context {
            snapshot: Arc::new(Snapshot::take(&[])),
            filter: None,
            scroll: None,
        }
    }

    #[test]
    fn contexts_expire_after_their_keep_alive_and_renew_on_use() {
        let clock = Arc::new(ManualClock::new(1_000));
        let contexts = SearchContexts::new(clock.clone(), false);
        let id = contexts
            .open(Kind::Pit, context(), Duration::from_secs(60), 10)
            .unwrap();
        clock.advance(59_000);
        contexts
            .get(Kind::Pit, &id, Some(Duration::from_secs(60)))
            .unwrap();
        clock.advance(59_000);
        assert!(contexts.get(Kind::Pit, &id, None).is_ok());
        clock.advance(1_001);
        let e = contexts.get(Kind::Pit, &id, None).unwrap_err();
        assert_eq!(e.status(), 404);
        assert_eq!(e.es_type(), "search_context_missing_exception");
        assert_eq!(contexts.count(Kind::Pit), 0);
    }

    #[test]
    fn the_limit_counts_open_contexts_and_frees_with_clear() {
        let clock = Arc::new(ManualClock::new(0));
        let contexts = SearchContexts::new(clock.clone(), false);
        let ids: Vec<String> = (0..3)
            .map(|_| {
                contexts
                    .open(Kind::Scroll, context(), Duration::from_secs(1), 3)
                    .unwrap()
            })
            .collect();
        let e = contexts
            .open(Kind::Scroll, context(), Duration::from_secs(1), 3)
            .unwrap_err();
        assert_eq!(e.status(), 429);
        assert!(e.reason().contains("Must be less than or equal to: [3]"));
        // Another kind has its own count.
        contexts
            .open(Kind::Pit, context(), Duration::from_secs(1), 3)
            .unwrap();
        assert_eq!(contexts.clear(Kind::Scroll, &ids[..1]).unwrap(), 1);
        assert_eq!(contexts.clear(Kind::Scroll, &ids[..1]).unwrap(), 0);
        contexts
            .open(Kind::Scroll, context(), Duration::from_secs(1), 3)
            .unwrap();
        // Expiry frees them all.
        clock.advance(1_000);
        assert_eq!(contexts.count(Kind::Scroll), 0);
        assert_eq!(contexts.count(Kind::Pit), 0);
    }

    #[test]
    fn ids_of_another_kind_or_garbage_are_refused() {
        let contexts = SearchContexts::new(Arc::new(ManualClock::new(0)), false);
        let id = contexts
            .open(Kind::Pit, context(), Duration::from_secs(1), 3)
            .unwrap();
        assert_eq!(
            contexts.get(Kind::Scroll, &id, None).unwrap_err().status(),
            400
        );
        assert_eq!(
            contexts
                .get(Kind::Scroll, "%%%", None)
                .unwrap_err()
                .status(),
            400
        );
        let other = SearchContexts::new(Arc::new(ManualClock::new(0)), false);
        assert_eq!(other.get(Kind::Pit, &id, None).unwrap_err().status(), 404);
    }

    #[test]
    fn keep_alive_values() {
        assert_eq!(
            parse_keep_alive("scroll", "1m").unwrap(),
            Duration::from_secs(60)
        );
        assert_eq!(
            parse_keep_alive("scroll", "250ms").unwrap(),
            Duration::from_millis(250)
        );
        assert_eq!(parse_keep_alive("scroll", "1x").unwrap_err().status(), 400);
        assert_eq!(parse_keep_alive("scroll", "2d").unwrap_err().status(), 400);
    }
}
