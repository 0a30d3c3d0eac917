//! What a front end needs from the server's persistence, without knowing
//! how it works: waiting for a change to be durable before replying (`sync`
//! mode), checkpoints on demand (`SAVE`, `BGSAVE`, `LASTSAVE`) and the
//! fields of Redis `INFO persistence` / memcached `stats`.

use std::future::Future;
use std::pin::Pin;

/// A future that resolves once a change is durable, or with the cause of
/// the failure that means it never will be.
pub type DurableFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'static>>;

/// Replies that must not be sent yet: `output[from..]` waits for `until`
/// (a `sync`-mode write's record becoming durable); `output[..from]` may go
/// now. If `until` fails, the held replies are never sent: the driver sends
/// `on_failure` (the protocol's error naming the cause) and closes the
/// connection, so no write is acknowledged that is not durable.
pub struct Hold {
    /// Output offset where held replies begin.
    pub from: usize,
    /// Resolves when the held replies may be sent.
    pub until: DurableFuture,
    /// Turns the failure's cause into the bytes sent before closing.
    pub on_failure: fn(&str) -> Vec<u8>,
}

impl std::fmt::Debug for Hold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hold")
            .field("from", &self.from)
            .finish_non_exhaustive()
    }
}

/// The server's persistence, as front ends see it.
pub trait Durability: Send + Sync + 'static {
    /// Persistence mode shown to clients: `off`, `async` or `sync`.
    fn mode(&self) -> &'static str;

    /// For a change whose journal record has LSN `lsn` (see
    /// `strata_kv::take_written_lsn`): `None` if its reply may be sent now
    /// (`async` mode), else a future to await before sending it (`sync`).
    fn wait(&self, lsn: u64) -> Option<DurableFuture>;

    /// A future resolving once the change with LSN `lsn` is durable, in
    /// either logging mode (Redis's `WAITAOF`); `None` when persistence is
    /// off. The default waits as [`wait`](Self::wait) does.
    fn durable(&self, lsn: u64) -> Option<DurableFuture> {
        self.wait(lsn)
    }

    /// Whether the change with LSN `lsn` is durable now (`WAITAOF`'s local
    /// count; 0, no change, is durable whenever there is a log). False with
    /// persistence off, and for a change that never will be (its append
    /// failed, or the log did).
    fn is_durable(&self, lsn: u64) -> bool;

    /// Writes a checkpoint now and returns when it is durable (Redis `SAVE`).
    fn save(&self) -> Result<(), String>;

    /// Starts a checkpoint in the background (Redis `BGSAVE`); an error if
    /// one is already running or persistence is off.
    fn background_save(&self) -> Result<(), String>;

    /// Redis `BGREWRITEAOF`: starts a checkpoint in the background, which
    /// is what rewriting the log is in Strata (a new snapshot, and the log
    /// before it dropped). Errors in Redis's words for an AOF rewrite.
    fn background_rewrite(&self) -> Result<(), String>;

    /// Unix seconds of the last completed checkpoint (or of the snapshot
    /// loaded at start; the start time when there is none).
    fn last_save_unix(&self) -> u64;

    /// `name: value` pairs describing persistence, Redis `INFO persistence`
    /// field names first, then Strata's own (prefixed `strata_`).
    fn info(&self) -> Vec<(&'static str, String)>;
}

/// What a session tracks during one `process` call: where the first reply
/// that must wait for durability starts, and the highest LSN to wait for.
#[derive(Debug, Default)]
pub struct HeldReplies {
    from: Option<usize>,
    lsn: u64,
}

impl HeldReplies {
    /// Notes that the reply starting at output offset `reply_start` belongs
    /// to a request whose changes went into the journal up to `lsn` (0: the
    /// request changed nothing).
    pub fn note(&mut self, reply_start: usize, lsn: u64) {
        if lsn != 0 {
            self.from.get_or_insert(reply_start);
            self.lsn = self.lsn.max(lsn);
        }
    }

    /// The hold for the replies noted since the last call, if `durability`
    /// says they must wait; resets the tracking either way.
    pub fn take_hold(
        &mut self,
        durability: Option<&dyn Durability>,
        on_failure: fn(&str) -> Vec<u8>,
    ) -> Option<Hold> {
        let from = self.from.take()?;
        let lsn = std::mem::take(&mut self.lsn);
        let until = durability?.wait(lsn)?;
        Some(Hold {
            from,
            until,
            on_failure,
        })
    }
}

/// The [`Durability::info`] fields of a server without persistence (also
/// what front ends report when the server gave them no [`Durability`]):
/// nothing is saved, so the last save is the start.
pub fn off_info(started_unix: u64) -> Vec<(&'static str, String)> {
    vec![
        ("loading", "0".into()),
        ("rdb_changes_since_last_save", "0".into()),
        ("rdb_bgsave_in_progress", "0".into()),
        ("rdb_last_save_time", started_unix.to_string()),
        ("rdb_last_bgsave_status", "ok".into()),
        ("rdb_saves", "0".into()),
        ("aof_enabled", "0".into()),
        ("aof_rewrite_in_progress", "0".into()),
        ("aof_last_write_status", "ok".into()),
        ("strata_persistence", "off".into()),
    ]
}

/// `cause` made safe for a one-line protocol reply.
pub fn one_line(cause: &str) -> String {
    cause.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log in `sync` mode (replies wait) or `async` mode (they do not).
    struct Log {
        sync: bool,
    }

    impl Durability for Log {
        fn mode(&self) -> &'static str {
            if self.sync {
                "sync"
            } else {
                "async"
            }
        }
        fn wait(&self, _lsn: u64) -> Option<DurableFuture> {
            self.sync
                .then(|| Box::pin(async { Ok(()) }) as DurableFuture)
        }
        fn is_durable(&self, _lsn: u64) -> bool {
            false
        }
        fn save(&self) -> Result<(), String> {
            Ok(())
        }
        fn background_save(&self) -> Result<(), String> {
            Ok(())
        }
        fn background_rewrite(&self) -> Result<(), String> {
            Ok(())
        }
        fn last_save_unix(&self) -> u64 {
            0
        }
        fn info(&self) -> Vec<(&'static str, String)> {
            Vec::new()
        }
    }

    fn failure(_: &str) -> Vec<u8> {
        Vec::new()
    }

    #[test]
    fn sync_writes_hold_their_replies_and_async_ones_do_not() {
        let (sync, async_): (&dyn Durability, &dyn Durability) =
            (&Log { sync: true }, &Log { sync: false });
        let mut held = HeldReplies::default();
        held.note(0, 7);
        assert!(
            held.take_hold(Some(async_), failure).is_none(),
            "async writes do not wait"
        );
        held.note(0, 0);
        held.note(5, 7);
        held.note(9, 8);
        let hold = held
            .take_hold(Some(sync), failure)
            .expect("a sync write's reply waits");
        assert_eq!(hold.from, 5, "from the first reply of a change");
        // The tracking does not outlive its call; nothing waits for LSN 0
        // or without persistence.
        assert!(held.take_hold(Some(sync), failure).is_none());
        held.note(0, 0);
        assert!(held.take_hold(Some(sync), failure).is_none());
        held.note(0, 7);
        assert!(held.take_hold(None, failure).is_none());
    }
}
