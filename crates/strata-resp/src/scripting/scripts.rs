//! [`Scripts`]: the script cache and the running script (what `SCRIPT
//! KILL` and the busy gate consult), with the limits and the script
//! access mode; no Lua here.

use parking_lot::Mutex;
use sha1::{Digest, Sha1};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most bytes a script's Lua allocations may reach.
pub const SCRIPT_MEMORY_LIMIT: usize = 64 << 20;

/// Most scripts cached (`SCRIPT LOAD` and `EVAL` bodies); past it `EVAL`
/// still runs scripts but caches no new ones, and `SCRIPT LOAD` fails.
pub const MAX_CACHED_SCRIPTS: usize = 10_000;

/// Redis's default `busy-reply-threshold` (`lua-time-limit`), ms.
pub const DEFAULT_BUSY_THRESHOLD_MS: u64 = 5_000;

/// Whether a script may write (`EVAL`) or not (`EVAL_RO`, `EVALSHA_RO`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Any command the script library allows.
    ReadWrite,
    /// Commands without the `write` flag only.
    ReadOnly,
}

/// The script running now, as other connections see it.
#[derive(Debug)]
struct Running {
    client: u64,
    started: Instant,
    kill: Arc<AtomicBool>,
    wrote: Arc<AtomicBool>,
    /// A function's name and the command that called it (`FCALL`); `None`
    /// for an `EVAL` script.
    function: Option<(String, Vec<Vec<u8>>)>,
}

/// The function running now (`FUNCTION STATS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningFunction {
    /// The function's name.
    pub name: String,
    /// The `FCALL` that runs it.
    pub command: Vec<Vec<u8>>,
    /// Milliseconds since it started.
    pub duration_ms: u64,
}

/// What another connection's command must do while a script runs.
#[derive(Debug)]
pub enum Gate {
    /// No script runs (or it is this connection's): go ahead.
    Run,
    /// A script has run past the threshold: answer `BUSY`.
    Busy,
    /// A script runs, under the threshold for this long still: wait for
    /// it to end (without blocking a worker thread), then try again.
    Wait(Duration),
}

/// The script cache and the running script.
#[derive(Debug)]
pub struct Scripts {
    cache: Mutex<HashMap<String, Arc<[u8]>>>,
    running: Mutex<Option<Running>>,
    /// `running` is `Some` (written under its lock): the gate every
    /// request passes reads this instead of taking the lock.
    any_running: AtomicBool,
    busy_threshold_ms: AtomicU64,
    /// `SCRIPT FLUSH`es so far.
    flushes: AtomicU64,
    /// Scripts stopped by `SCRIPT KILL`.
    pub killed: AtomicU64,
}

impl Default for Scripts {
    fn default() -> Self {
        Self {
            cache: Mutex::new(HashMap::new()),
            running: Mutex::new(None),
            any_running: AtomicBool::new(false),
            busy_threshold_ms: AtomicU64::new(DEFAULT_BUSY_THRESHOLD_MS),
            flushes: AtomicU64::new(0),
            killed: AtomicU64::new(0),
        }
    }
}

/// Lower-case hex SHA1 of `body` (script ids, `redis.sha1hex`).
pub fn sha1_hex(body: &[u8]) -> String {
    crate::acl::passwords::hex_string(&Sha1::digest(body))
}

/// Why `SCRIPT KILL` (or `FUNCTION KILL`) did nothing.
#[derive(Debug, PartialEq, Eq)]
pub enum KillRefused {
    /// No script runs.
    NotBusy,
    /// The script wrote already: stopping it would break atomicity.
    Unkillable,
    /// `SCRIPT KILL` of a function, or `FUNCTION KILL` of a script.
    OtherKind,
}

/// Which kill command asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillKind {
    /// `SCRIPT KILL`: stops `EVAL` scripts.
    Script,
    /// `FUNCTION KILL`: stops functions.
    Function,
}

impl Scripts {
    /// `busy-reply-threshold` in ms.
    pub fn busy_threshold_ms(&self) -> u64 {
        self.busy_threshold_ms.load(Ordering::Relaxed)
    }

    /// `CONFIG SET busy-reply-threshold`.
    pub fn set_busy_threshold_ms(&self, ms: u64) {
        self.busy_threshold_ms.store(ms, Ordering::Relaxed);
    }

    /// The body cached under `sha` (any case).
    pub fn get(&self, sha: &[u8]) -> Option<Arc<[u8]>> {
        let sha = std::str::from_utf8(sha).ok()?.to_ascii_lowercase();
        self.cache.lock().get(&sha).cloned()
    }

    /// Caches `body` and returns its sha; `None` when the cache is full.
    pub fn insert(&self, body: &[u8]) -> (String, bool) {
        let sha = sha1_hex(body);
        let mut cache = self.cache.lock();
        if cache.contains_key(&sha) {
            return (sha, true);
        }
        if cache.len() >= MAX_CACHED_SCRIPTS {
            return (sha, false);
        }
        cache.insert(sha.clone(), body.into());
        (sha, true)
    }

    /// Whether `sha` is cached.
    pub fn exists(&self, sha: &[u8]) -> bool {
        self.get(sha).is_some()
    }

    /// `SCRIPT FLUSH`; each interpreter drops its compiled scripts when it
    /// next runs one ([`generation`](Self::generation)).
    pub fn flush(&self) {
        self.cache.lock().clear();
        self.flushes.fetch_add(1, Ordering::Relaxed);
    }

    /// How many times the cache was flushed: an interpreter holding
    /// compiled scripts of an older generation drops them.
    pub fn generation(&self) -> u64 {
        self.flushes.load(Ordering::Relaxed)
    }

    /// Scripts cached and their bytes (`INFO memory`'s
    /// `number_of_cached_scripts`, `used_memory_scripts`).
    pub fn cached(&self) -> (usize, usize) {
        let cache = self.cache.lock();
        (cache.len(), cache.values().map(|b| b.len() + 40).sum())
    }

    /// Whether `client`'s next command may run now.
    pub fn gate(&self, client: u64) -> Gate {
        // No script runs: the common case, without the lock. A script that
        // starts right after this check closed the keyspace's entry gate
        // first, which the session checks too (`session.rs`).
        if !self.any_running.load(Ordering::Acquire) {
            return Gate::Run;
        }
        let running = self.running.lock();
        let Some(run) = running.as_ref().filter(|r| r.client != client) else {
            return Gate::Run;
        };
        let threshold = Duration::from_millis(self.busy_threshold_ms());
        match threshold.checked_sub(run.started.elapsed()) {
            Some(left) if !left.is_zero() => Gate::Wait(left),
            _ => Gate::Busy,
        }
    }

    /// `SCRIPT KILL` or `FUNCTION KILL` (Redis's checks, in its order).
    pub fn kill(&self, kind: KillKind) -> Result<(), KillRefused> {
        let running = self.running.lock();
        let run = running.as_ref().ok_or(KillRefused::NotBusy)?;
        if run.wrote.load(Ordering::Relaxed) {
            return Err(KillRefused::Unkillable);
        }
        if run.function.is_some() != (kind == KillKind::Function) {
            return Err(KillRefused::OtherKind);
        }
        run.kill.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// What runs now: `None` when nothing does, `Some(None)` for a script,
    /// `Some(Some(..))` for a function.
    pub fn running(&self) -> Option<Option<RunningFunction>> {
        let running = self.running.lock();
        let run = running.as_ref()?;
        Some(
            run.function
                .as_ref()
                .map(|(name, command)| RunningFunction {
                    name: name.clone(),
                    command: command.clone(),
                    duration_ms: run.started.elapsed().as_millis() as u64,
                }),
        )
    }

    /// Marks a script of `client` running until the guard drops.
    pub(crate) fn begin(&self, client: u64) -> RunGuard<'_> {
        self.begin_run(client, None)
    }

    /// Marks function `name`, called by `argv`, running until the guard
    /// drops.
    pub(crate) fn begin_function(&self, client: u64, name: &str, argv: &[&[u8]]) -> RunGuard<'_> {
        let command = argv.iter().map(|a| a.to_vec()).collect();
        self.begin_run(client, Some((name.to_string(), command)))
    }

    fn begin_run(&self, client: u64, function: Option<(String, Vec<Vec<u8>>)>) -> RunGuard<'_> {
        let kill = Arc::new(AtomicBool::new(false));
        let wrote = Arc::new(AtomicBool::new(false));
        let mut running = self.running.lock();
        *running = Some(Running {
            client,
            started: Instant::now(),
            kill: kill.clone(),
            wrote: wrote.clone(),
            function,
        });
        self.any_running.store(true, Ordering::Release);
        drop(running);
        RunGuard {
            scripts: self,
            kill,
            wrote,
        }
    }
}

/// A running script's flags; ends the run when dropped (also on panic).
pub(crate) struct RunGuard<'a> {
    scripts: &'a Scripts,
    pub kill: Arc<AtomicBool>,
    pub wrote: Arc<AtomicBool>,
}

impl Drop for RunGuard<'_> {
    fn drop(&mut self) {
        let mut running = self.scripts.running.lock();
        *running = None;
        self.scripts.any_running.store(false, Ordering::Release);
        drop(running);
        if self.kill.load(Ordering::Relaxed) {
            self.scripts.killed.fetch_add(1, Ordering::Relaxed);
        }
    }
}
