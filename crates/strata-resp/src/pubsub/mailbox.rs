//! [`Mailbox`]: the messages published to one subscriber (and the lines
//! fed to one `MONITOR` connection) not yet taken by its connection, and
//! [`OutputLimit`], the bound on them.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use parking_lot::Mutex;
use strata_service::ClientInfo;
use tokio::sync::Notify;

use crate::writer::{ReplyWriter, RespVersion};

/// Redis's `client-output-buffer-limit` for one class of clients: hard
/// bytes, soft bytes and soft seconds (0 disables a limit).
#[derive(Debug)]
pub struct OutputLimit {
    hard: AtomicU64,
    soft: AtomicU64,
    soft_seconds: AtomicU64,
}

impl Default for OutputLimit {
    /// Redis's default for the `pubsub` class: `32mb 8mb 60`.
    fn default() -> Self {
        Self {
            hard: AtomicU64::new(32 << 20),
            soft: AtomicU64::new(8 << 20),
            soft_seconds: AtomicU64::new(60),
        }
    }
}

impl OutputLimit {
    /// `(hard, soft, soft_seconds)`.
    pub fn get(&self) -> (u64, u64, u64) {
        (
            self.hard.load(Ordering::Relaxed),
            self.soft.load(Ordering::Relaxed),
            self.soft_seconds.load(Ordering::Relaxed),
        )
    }

    /// Replaces the three values.
    pub fn set(&self, hard: u64, soft: u64, soft_seconds: u64) {
        self.hard.store(hard, Ordering::Relaxed);
        self.soft.store(soft, Ordering::Relaxed);
        self.soft_seconds.store(soft_seconds, Ordering::Relaxed);
    }
}

#[derive(Debug, Default)]
struct Pending {
    bytes: BytesMut,
    /// When the pending bytes last went over the soft limit (cleared when
    /// they fall under it).
    over_soft_since: Option<Instant>,
}

/// One connection's undelivered messages. Publishers append; the
/// connection's session takes them ([`take_into`](Self::take_into)) when
/// its driver wakes on [`notify`](Self::notify).
#[derive(Debug)]
pub struct Mailbox {
    client: Arc<ClientInfo>,
    version: AtomicU8,
    pending: Mutex<Pending>,
    /// Whether `pending` holds bytes: written under its lock, read without
    /// it by [`take_into`](Self::take_into), which runs for every batch of
    /// every connection and finds nothing but on subscribers.
    queued: AtomicBool,
    notify: Arc<Notify>,
    /// Set once the limit closed the connection; nothing is delivered after.
    overflowed: AtomicBool,
    /// Set by the delivery that overflowed, read once by the publisher.
    newly_overflowed: AtomicBool,
}

impl Mailbox {
    /// An empty mailbox for `client`, a RESP2 connection.
    pub fn new(client: Arc<ClientInfo>) -> Self {
        Self {
            client,
            version: AtomicU8::new(2),
            pending: Mutex::new(Pending::default()),
            queued: AtomicBool::new(false),
            notify: Arc::new(Notify::new()),
            overflowed: AtomicBool::new(false),
            newly_overflowed: AtomicBool::new(false),
        }
    }

    /// The subscriber's client id.
    pub fn id(&self) -> u64 {
        self.client.id
    }

    /// Signalled after every delivery (a permit is kept if nobody waits).
    pub fn notify(&self) -> &Arc<Notify> {
        &self.notify
    }

    /// Messages are encoded for `version` from now on.
    pub fn set_version(&self, version: RespVersion) {
        self.version
            .store(version.number() as u8, Ordering::Relaxed);
    }

    /// Bytes waiting (`CLIENT LIST`'s `omem`).
    pub fn pending_bytes(&self) -> usize {
        self.pending.lock().bytes.len()
    }

    /// Appends a message of `parts` (bulk strings in an array, a push in
    /// RESP3). False when it was not delivered: the subscriber passed the
    /// limit now or before and is being disconnected.
    pub(crate) fn deliver(&self, parts: &[&[u8]], limit: &OutputLimit) -> bool {
        let version = match self.version.load(Ordering::Relaxed) {
            3 => RespVersion::Resp3,
            _ => RespVersion::Resp2,
        };
        let size: usize = parts.iter().map(|p| p.len() + 24).sum::<usize>() + 8;
        self.append(size, limit, |bytes| {
            let mut out = ReplyWriter::new(bytes, version);
            out.push(parts.len());
            for part in parts {
                out.bulk(part);
            }
        })
    }

    /// Appends what `write` writes in the connection's encoding (about
    /// `size` bytes): a message of another shape than `deliver`'s (client
    /// tracking's invalidations). False when not delivered, as for
    /// [`deliver`](Self::deliver).
    pub(crate) fn deliver_with(
        &self,
        size: usize,
        limit: &OutputLimit,
        write: impl FnOnce(&mut ReplyWriter<'_>),
    ) -> bool {
        let version = match self.version.load(Ordering::Relaxed) {
            3 => RespVersion::Resp3,
            _ => RespVersion::Resp2,
        };
        self.append(size, limit, |bytes| {
            write(&mut ReplyWriter::new(bytes, version))
        })
    }

    /// The encoding messages are written in.
    pub fn version(&self) -> RespVersion {
        match self.version.load(Ordering::Relaxed) {
            3 => RespVersion::Resp3,
            _ => RespVersion::Resp2,
        }
    }

    /// Appends `parts` as they are (a `MONITOR` line, the same in RESP2
    /// and RESP3), `size` bytes in all. Parts too large for the hard
    /// limit need not be built: with `size` over it, `parts` is not read
    /// and the client is disconnected. False when not delivered, as for
    /// [`deliver`](Self::deliver).
    pub(crate) fn deliver_raw(&self, size: usize, parts: &[&[u8]], limit: &OutputLimit) -> bool {
        self.append(size, limit, |bytes| {
            for part in parts {
                bytes.extend_from_slice(part);
            }
        })
    }

    /// Appends what `write` writes (about `size` bytes) unless that takes
    /// the waiting bytes over the hard limit, or keeps them over the soft
    /// limit past its seconds: then the client is disconnected instead.
    fn append(&self, size: usize, limit: &OutputLimit, write: impl FnOnce(&mut BytesMut)) -> bool {
        if self.overflowed.load(Ordering::Relaxed) {
            return false;
        }
        let (hard, soft, soft_seconds) = limit.get();
        let mut pending = self.pending.lock();
        let after = (pending.bytes.len() + size) as u64;
        let over_soft = soft > 0 && after > soft;
        let soft_expired = over_soft
            && pending
                .over_soft_since
                .is_some_and(|at| at.elapsed() >= Duration::from_secs(soft_seconds));
        if (hard > 0 && after > hard) || soft_expired {
            drop(pending);
            self.overflow();
            return false;
        }
        match (over_soft, pending.over_soft_since) {
            (true, None) => pending.over_soft_since = Some(Instant::now()),
            (false, Some(_)) => pending.over_soft_since = None,
            _ => {}
        }
        write(&mut pending.bytes);
        self.queued.store(true, Ordering::Release);
        self.client.buffers.note_queued(pending.bytes.len() as u64);
        drop(pending);
        self.notify.notify_one();
        true
    }

    /// Moves the waiting messages to `output`.
    pub fn take_into(&self, output: &mut BytesMut) {
        // A delivery that this misses (made after the load) is taken by
        // the next call, as one made after the lock would be.
        if !self.queued.load(Ordering::Acquire) {
            return;
        }
        let mut pending = self.pending.lock();
        self.queued.store(false, Ordering::Relaxed);
        if pending.bytes.is_empty() {
            return;
        }
        output.extend_from_slice(&pending.bytes);
        pending.bytes = BytesMut::new();
        pending.over_soft_since = None;
        self.client.buffers.note_queued(0);
    }

    fn overflow(&self) {
        if !self.overflowed.swap(true, Ordering::Relaxed) {
            self.newly_overflowed.store(true, Ordering::Relaxed);
            tracing::info!(
                client = self.client.id,
                addr = %self.client.addr,
                "closing a subscriber or monitor over the pubsub output buffer limit"
            );
            // What was queued is dropped with the connection, as Redis
            // drops an overflowing client's output.
            let mut pending = self.pending.lock();
            pending.bytes = BytesMut::new();
            self.queued.store(false, Ordering::Relaxed);
            drop(pending);
            self.client.buffers.note_queued(0);
            self.client.close();
        }
    }

    /// True once, right after the delivery that disconnected the subscriber.
    pub(crate) fn just_closed(&self) -> bool {
        self.newly_overflowed.swap(false, Ordering::Relaxed)
    }
}
