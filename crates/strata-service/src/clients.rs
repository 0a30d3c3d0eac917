//! The registry of connected clients of one front end, with the counters
//! `stats` and `INFO clients` report.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use crate::signal::Signal;

/// One connected client. Shared between its session and the registry.
#[derive(Debug)]
pub struct ClientInfo {
    /// Unique id, increasing from 1 across all front ends of this process.
    pub id: u64,
    /// Peer address.
    pub addr: SocketAddr,
    /// Local address the client connected to.
    pub local_addr: SocketAddr,
    /// When the connection was accepted.
    pub connected_at: Instant,
    /// Name set with `CLIENT SETNAME`.
    pub name: Mutex<Option<String>>,
    /// Name of the last command run (for `CLIENT LIST`).
    pub last_command: Mutex<&'static str>,
    /// When the connection last had a batch of input processed (stamped
    /// by the driver once per batch, as Redis stamps `lastinteraction` per
    /// read rather than per command: one clock read per batch, not per
    /// request).
    pub last_active: Mutex<Instant>,
    /// Closes the connection from outside its session (Redis `ACL
    /// DELUSER` of the user it is authenticated as), stops its reading at
    /// shutdown, tells it of a new idle limit.
    signal: Signal,
    /// The connection's socket and buffers, as the driver last saw them.
    pub buffers: BufferStats,
}

/// A connection's socket and buffer sizes (`CLIENT LIST`'s `fd`, `qbuf`,
/// `qbuf-free`, `rbs`, `rbp`, `obl`, `omem`), updated by the driver around
/// each read, process and write.
#[derive(Debug)]
pub struct BufferStats {
    fd: AtomicI64,
    input_len: AtomicU64,
    input_capacity: AtomicU64,
    input_peak: AtomicU64,
    output_len: AtomicU64,
    output_capacity: AtomicU64,
}

impl Default for BufferStats {
    fn default() -> Self {
        Self {
            fd: AtomicI64::new(-1),
            input_len: AtomicU64::new(0),
            input_capacity: AtomicU64::new(0),
            input_peak: AtomicU64::new(0),
            output_len: AtomicU64::new(0),
            output_capacity: AtomicU64::new(0),
        }
    }
}

impl BufferStats {
    /// The socket's file descriptor (-1 before it is known).
    pub fn fd(&self) -> i64 {
        self.fd.load(Ordering::Relaxed)
    }

    /// Records the socket's file descriptor.
    pub fn set_fd(&self, fd: i64) {
        self.fd.store(fd, Ordering::Relaxed);
    }

    /// Records the input buffer: bytes held and capacity.
    pub fn note_input(&self, len: usize, capacity: usize) {
        self.input_len.store(len as u64, Ordering::Relaxed);
        self.input_capacity
            .store(capacity as u64, Ordering::Relaxed);
        self.input_peak.fetch_max(len as u64, Ordering::Relaxed);
    }

    /// Records the output buffer: bytes not yet sent and capacity.
    pub fn note_output(&self, len: usize, capacity: usize) {
        self.output_len.store(len as u64, Ordering::Relaxed);
        self.output_capacity
            .store(capacity as u64, Ordering::Relaxed);
    }

    /// `(len, capacity, peak since connect)` of the input buffer.
    pub fn input(&self) -> (u64, u64, u64) {
        (
            self.input_len.load(Ordering::Relaxed),
            self.input_capacity.load(Ordering::Relaxed),
            self.input_peak.load(Ordering::Relaxed),
        )
    }

    /// `(len, capacity)` of the output buffer.
    pub fn output(&self) -> (u64, u64) {
        (
            self.output_len.load(Ordering::Relaxed),
            self.output_capacity.load(Ordering::Relaxed),
        )
    }
}

impl ClientInfo {
    /// Records that `command` just ran (when: [`note_activity`](Self::note_activity)).
    pub fn touch(&self, command: &'static str) {
        *self.last_command.lock() = command;
    }

    /// Records that a batch of the connection's input was processed at `now`.
    pub fn note_activity(&self, now: Instant) {
        *self.last_active.lock() = now;
    }

    /// Asks the driver to close this connection: replies already produced
    /// are sent, no further input is read. Idempotent.
    pub fn close(&self) {
        self.signal.close();
    }

    /// True once [`close`](Self::close) was called.
    pub fn is_closing(&self) -> bool {
        self.signal.is_closed()
    }

    /// Resolves once [`close`](Self::close) was called. Only the
    /// connection's own driver task may wait (hence crate-private): the
    /// signal keeps one waker, and a second waiting task would take it
    /// from the driver.
    pub(crate) async fn closed(&self) {
        self.signal.closed().await
    }

    /// What the driver waits on besides the socket.
    pub(crate) fn signal(&self) -> &Signal {
        &self.signal
    }
}

static NEXT_CLIENT_ID: AtomicU64 = AtomicU64::new(1);

/// Connected clients and connection counters of one front end.
#[derive(Debug, Default)]
pub struct Clients {
    connected: Mutex<HashMap<u64, Arc<ClientInfo>>>,
    /// Set (under `connected`'s lock) once the server shuts down: every
    /// connection, including one registered later, stops reading.
    shutting_down: AtomicBool,
    total: AtomicU64,
    rejected: AtomicU64,
    bytes_read: AtomicU64,
    bytes_written: AtomicU64,
}

impl Clients {
    /// Registers a newly accepted connection.
    pub fn register(&self, addr: SocketAddr, local_addr: SocketAddr) -> Arc<ClientInfo> {
        let now = Instant::now();
        let info = Arc::new(ClientInfo {
            id: NEXT_CLIENT_ID.fetch_add(1, Ordering::Relaxed),
            addr,
            local_addr,
            connected_at: now,
            name: Mutex::new(None),
            last_command: Mutex::new("NULL"),
            last_active: Mutex::new(now),
            signal: Signal::default(),
            buffers: BufferStats::default(),
        });
        let mut connected = self.connected.lock();
        if self.shutting_down.load(Ordering::Relaxed) {
            info.signal.shut_down();
        }
        connected.insert(info.id, info.clone());
        drop(connected);
        self.total.fetch_add(1, Ordering::Relaxed);
        info
    }

    /// The server shuts down: every connection, open now or registered
    /// later, reads no more input (replies it produced are still sent).
    pub fn shut_down(&self) {
        let connected = self.connected.lock();
        self.shutting_down.store(true, Ordering::Relaxed);
        for client in connected.values() {
            client.signal.shut_down();
        }
    }

    /// Removes a closed connection.
    pub fn unregister(&self, id: u64) {
        self.connected.lock().remove(&id);
    }

    /// Counts a connection refused at the limit.
    pub fn count_rejected(&self) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
    }

    /// Adds network traffic to the totals.
    pub fn count_traffic(&self, read: u64, written: u64) {
        if read > 0 {
            self.bytes_read.fetch_add(read, Ordering::Relaxed);
        }
        if written > 0 {
            self.bytes_written.fetch_add(written, Ordering::Relaxed);
        }
    }

    /// Connections open now.
    pub fn current(&self) -> usize {
        self.connected.lock().len()
    }

    /// Connections accepted since start.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Connections refused at the limit since start.
    pub fn rejected(&self) -> u64 {
        self.rejected.load(Ordering::Relaxed)
    }

    /// Bytes read from clients since start.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// Bytes written to clients since start.
    pub fn bytes_written(&self) -> u64 {
        self.bytes_written.load(Ordering::Relaxed)
    }

    /// A snapshot of the connected clients, ordered by id.
    pub fn list(&self) -> Vec<Arc<ClientInfo>> {
        let mut v: Vec<_> = self.connected.lock().values().cloned().collect();
        v.sort_by_key(|c| c.id);
        v
    }

    /// The client with `id`, if connected.
    pub fn get(&self, id: u64) -> Option<Arc<ClientInfo>> {
        self.connected.lock().get(&id).cloned()
    }
}
