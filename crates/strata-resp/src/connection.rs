//! The state of one RESP connection: protocol version, authentication and
//! its ACL user, the `MULTI` queue and the watched keys, plus the slice of
//! it other connections may read (`CLIENT LIST`, `ACL DELUSER`).
//!
//! Bounds: a transaction queues at most [`MAX_QUEUE_BYTES`] of commands and
//! a connection watches at most [`MAX_WATCHED_KEYS`] keys; past either the
//! command is refused (and the transaction aborted), so a client cannot grow
//! server memory without limit.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use strata_service::ClientInfo;

use crate::acl::User;
use crate::args::OwnedArgs;
use crate::command::CommandSpec;
use crate::pubsub::{Mailbox, Subscriptions};
pub use crate::watched::WatchedKeys;
use crate::writer::RespVersion;

/// Most bytes of commands one `MULTI` may queue.
pub const MAX_QUEUE_BYTES: usize = 64 * 1024 * 1024;
/// Most distinct keys one connection may watch.
pub const MAX_WATCHED_KEYS: usize = 100_000;

/// What `REPLCONF` set on a connection for its `SYNC` (`commands/
/// replconf.rs`, `commands/sync.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SnapshotRequest {
    /// `rdb-only 1`: the connection wants the snapshot, then to close.
    pub rdb_only: bool,
    /// `rdb-filter-only`: no keys in the snapshot.
    pub exclude_data: bool,
    /// `rdb-filter-only` without `functions`: no function libraries.
    pub exclude_functions: bool,
}

/// A command waiting for `EXEC`.
#[derive(Debug)]
pub struct Queued {
    /// Its table row.
    pub spec: &'static CommandSpec,
    /// Its arguments, copied out of the input.
    pub args: OwnedArgs,
}

/// An open `MULTI` block.
#[derive(Debug, Default)]
pub struct Transaction {
    /// Commands in arrival order.
    pub queue: Vec<Queued>,
    /// Approximate bytes held by `queue`.
    pub bytes: usize,
    /// A command was refused while queuing: `EXEC` must abort.
    pub dirty: bool,
}

/// What other connections may see of this one (for `CLIENT LIST`, and
/// for `ACL DELUSER` to find the connections of a user).
#[derive(Debug)]
pub struct PeerView {
    resp: AtomicU8,
    multi: AtomicI64,
    /// `CLIENT TRACKING`'s redirect (0: none; -1: tracking off).
    redirect: AtomicI64,
    /// Bytes of the arguments of the command running now (`argv-mem`).
    argv_mem: AtomicU64,
    /// Bytes queued by `MULTI` (`multi-mem`).
    multi_mem: AtomicU64,
    /// Channels, patterns and shard channels subscribed to.
    subscriptions: [AtomicU64; 3],
    /// In `MONITOR` mode (`CLIENT LIST`'s `O` flag).
    monitor: AtomicBool,
    /// `CLIENT NO-EVICT on`: never chosen by client eviction.
    no_evict: AtomicBool,
    /// `CLIENT NO-TOUCH on`: its commands (but `TOUCH`) leave the keys'
    /// access records as they were.
    no_touch: AtomicBool,
    mailbox: OnceLock<Arc<Mailbox>>,
    lib: Mutex<(Option<String>, Option<String>)>,
    user: Mutex<Arc<User>>,
}

impl PeerView {
    /// A view of a fresh RESP2 connection outside `MULTI`, as `user`.
    pub fn new(user: Arc<User>) -> Self {
        Self {
            resp: AtomicU8::new(2),
            multi: AtomicI64::new(-1),
            redirect: AtomicI64::new(-1),
            argv_mem: AtomicU64::new(0),
            multi_mem: AtomicU64::new(0),
            subscriptions: Default::default(),
            monitor: AtomicBool::new(false),
            no_evict: AtomicBool::new(false),
            no_touch: AtomicBool::new(false),
            mailbox: OnceLock::new(),
            lib: Mutex::new((None, None)),
            user: Mutex::new(user),
        }
    }

    /// The user the connection runs as.
    pub fn user(&self) -> Arc<User> {
        self.user.lock().clone()
    }

    /// Protocol version (2 or 3).
    pub fn resp(&self) -> u8 {
        self.resp.load(Ordering::Relaxed)
    }

    /// Commands queued in `MULTI`, or -1 outside it.
    pub fn multi(&self) -> i64 {
        self.multi.load(Ordering::Relaxed)
    }

    /// Library name and version from `CLIENT SETINFO`.
    pub fn lib(&self) -> (Option<String>, Option<String>) {
        self.lib.lock().clone()
    }

    /// `(argv-mem, multi-mem)`.
    pub fn memory(&self) -> (u64, u64) {
        (
            self.argv_mem.load(Ordering::Relaxed),
            self.multi_mem.load(Ordering::Relaxed),
        )
    }

    /// `(sub, psub, ssub)`.
    pub fn subscriptions(&self) -> (u64, u64, u64) {
        let [a, b, c] = &self.subscriptions;
        let load = |x: &AtomicU64| x.load(Ordering::Relaxed);
        (load(a), load(b), load(c))
    }

    /// True in `MONITOR` mode.
    pub fn monitor(&self) -> bool {
        self.monitor.load(Ordering::Relaxed)
    }

    /// `CLIENT NO-EVICT on` (`CLIENT LIST`'s `e` flag).
    pub fn no_evict(&self) -> bool {
        self.no_evict.load(Ordering::Relaxed)
    }

    pub(crate) fn set_no_evict(&self, on: bool) {
        self.no_evict.store(on, Ordering::Relaxed);
    }

    /// `CLIENT NO-TOUCH on` (`CLIENT LIST`'s `T` flag).
    pub fn no_touch(&self) -> bool {
        self.no_touch.load(Ordering::Relaxed)
    }

    pub(crate) fn set_no_touch(&self, on: bool) {
        self.no_touch.store(on, Ordering::Relaxed);
    }

    /// Bytes of pub/sub messages and monitor lines waiting to be sent.
    pub fn pending_messages(&self) -> u64 {
        self.mailbox.get().map_or(0, |m| m.pending_bytes() as u64)
    }

    pub(crate) fn set_argv_mem(&self, bytes: usize) {
        self.argv_mem.store(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn set_multi_mem(&self, bytes: usize) {
        self.multi_mem.store(bytes as u64, Ordering::Relaxed);
    }

    pub(crate) fn set_subscriptions(&self, (sub, psub, ssub): (usize, usize, usize)) {
        for (cell, n) in self.subscriptions.iter().zip([sub, psub, ssub]) {
            cell.store(n as u64, Ordering::Relaxed);
        }
    }

    pub(crate) fn set_monitor(&self, on: bool) {
        self.monitor.store(on, Ordering::Relaxed);
    }

    /// `CLIENT TRACKING`'s redirect for `CLIENT LIST` (0: none; -1:
    /// tracking off).
    pub fn tracking_redirect(&self) -> i64 {
        self.redirect.load(Ordering::Relaxed)
    }

    pub(crate) fn set_tracking_redirect(&self, redirect: i64) {
        self.redirect.store(redirect, Ordering::Relaxed);
    }

    /// The connection's mailbox (messages and pushes from elsewhere).
    pub(crate) fn mailbox(&self) -> Option<&Arc<Mailbox>> {
        self.mailbox.get()
    }

    pub(crate) fn set_resp(&self, version: RespVersion) {
        self.resp.store(version.number() as u8, Ordering::Relaxed);
    }

    pub(crate) fn set_multi(&self, queued: i64) {
        self.multi.store(queued, Ordering::Relaxed);
    }

    pub(crate) fn set_lib_name(&self, name: String) {
        self.lib.lock().0 = Some(name);
    }

    pub(crate) fn set_lib_version(&self, version: String) {
        self.lib.lock().1 = Some(version);
    }
}

/// `CLIENT REPLY`: whether this connection's command replies are sent
/// (pushes, such as pub/sub messages, always are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplyMode {
    /// Every reply is sent.
    #[default]
    On,
    /// `OFF`: no reply until `CLIENT REPLY ON`.
    Off,
    /// `SKIP` just ran: the next command's reply is dropped.
    SkipNext,
    /// The command running now is the one after `SKIP`.
    Skip,
}

impl ReplyMode {
    /// Called when a command has finished: whether its reply is dropped.
    /// Moves `SKIP` on by one command, as Redis's flags do.
    pub fn after_command(&mut self) -> bool {
        match *self {
            ReplyMode::On => false,
            ReplyMode::Off => true,
            ReplyMode::SkipNext => {
                *self = ReplyMode::Skip;
                true
            }
            ReplyMode::Skip => {
                *self = ReplyMode::On;
                true
            }
        }
    }
}

/// Per-connection state.
#[derive(Debug)]
pub struct Connection {
    /// The client's registry entry (id, address, name).
    pub client: Arc<ClientInfo>,
    /// What `CLIENT LIST` shows of this connection.
    pub peer: Arc<PeerView>,
    /// Reply encoding.
    pub version: RespVersion,
    /// Gave the right password (or none was required at connect time).
    pub authenticated: bool,
    /// The ACL user commands run as (the default user until `AUTH`).
    pub user: Arc<User>,
    /// [`Acl::epoch`](crate::acl::Acl::epoch) when `user` was read.
    pub acl_epoch: u64,
    /// The open `MULTI` block, if any.
    pub transaction: Option<Transaction>,
    /// Watched keys. Dropping a [`Watch`] takes a shard lock: never inside
    /// `Keyspace::exclusive`.
    pub watches: WatchedKeys,
    /// Close after this reply (`QUIT`).
    pub close: bool,
    /// Channels and patterns subscribed to, and the mailbox of their
    /// messages (and of `MONITOR` lines).
    pub pubsub: Subscriptions,
    /// In `MONITOR` mode: registered in `Shared::monitors` until `RESET`
    /// or the connection closes.
    pub monitoring: bool,
    /// The blocking command at the front of the input, if any.
    pub block: crate::blocking::BlockState,
    /// `CLIENT REPLY`.
    pub reply: ReplyMode,
    /// `CLIENT TRACKING`, when on.
    pub tracking: Option<crate::tracking::table::ConnTracking>,
    /// A script's `redis.call` is running a command now (Redis's
    /// `CLIENT_SCRIPT`: `SORT` then orders a set even `BY` a constant).
    pub in_script: bool,
    /// What `REPLCONF` asked of a `SYNC`.
    pub snapshot: SnapshotRequest,
    /// LSN of the journal record of this connection's last write (0:
    /// none yet).
    pub last_write_lsn: u64,
    /// `SCRIPT DEBUG YES|SYNC`: the next `EVAL` is a debugging session.
    pub debug: crate::debug_arm::DebugArm,
}

impl Connection {
    /// A new connection running as `user` (read at `acl_epoch`);
    /// `authenticated` when no password is required.
    pub fn new(
        client: Arc<ClientInfo>,
        peer: Arc<PeerView>,
        user: Arc<User>,
        acl_epoch: u64,
        authenticated: bool,
    ) -> Self {
        let pubsub = Subscriptions::new(client.clone());
        let _ = peer.mailbox.set(pubsub.mailbox().clone());
        Self {
            pubsub,
            client,
            peer,
            version: RespVersion::Resp2,
            authenticated,
            user,
            acl_epoch,
            transaction: None,
            watches: WatchedKeys::default(),
            block: Default::default(),
            reply: ReplyMode::On,
            tracking: None,
            close: false,
            monitoring: false,
            in_script: false,
            snapshot: Default::default(),
            last_write_lsn: 0,
            debug: Default::default(),
        }
    }

    /// Runs as `user` from now on (`AUTH`, `HELLO AUTH`, `RESET`).
    pub fn set_user(&mut self, user: Arc<User>, acl_epoch: u64) {
        *self.peer.user.lock() = user.clone();
        self.user = user;
        self.acl_epoch = acl_epoch;
    }

    /// Reports what the connection holds besides its buffers (`MULTI`
    /// queue, watched keys, subscriptions) to the client registry, whose
    /// total client eviction reads.
    pub fn note_memory(&self) {
        let multi = self.transaction.as_ref().map_or(0, |t| t.bytes);
        let held = multi + self.watches.bytes() + self.pubsub.bytes();
        self.client.buffers.note_held(held as u64);
    }

    /// Switches the reply encoding.
    pub fn set_version(&mut self, version: RespVersion) {
        self.version = version;
        self.peer.set_resp(version);
        self.pubsub.mailbox().set_version(version);
    }
}
