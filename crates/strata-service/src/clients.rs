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
/// each read, process and write, and the bytes its session holds besides.
///
/// Invariant: the front end's [`Clients::memory`] total is the sum of
/// [`memory`](Self::memory) over the live `BufferStats` of its clients:
/// each setter adds its change to the total, and dropping takes the rest
/// away. A setter whose value did not change touches only its own field,
/// so the shared total costs nothing on the common path. Two setters of
/// one field racing may leave the total off for an instant (even wrapped
/// below zero); readers that act on it recount from the fields.
#[derive(Debug)]
pub struct BufferStats {
    fd: AtomicI64,
    input_len: AtomicU64,
    input_capacity: AtomicU64,
    input_peak: AtomicU64,
    output_len: AtomicU64,
    output_capacity: AtomicU64,
    /// Bytes the session keeps for this client (`MULTI` queue, watched
    /// keys, subscriptions), as it last reported them.
    held: AtomicU64,
    /// Bytes of messages waiting to be moved into the output.
    queued: AtomicU64,
    total: Arc<AtomicU64>,
}

impl Default for BufferStats {
    /// Stats counted in a total of their own.
    fn default() -> Self {
        Self::counted_in(Arc::default())
    }
}

impl Drop for BufferStats {
    fn drop(&mut self) {
        self.total.fetch_sub(self.memory(), Ordering::Relaxed);
    }
}

impl BufferStats {
    /// Fresh stats whose memory is added to `total`.
    fn counted_in(total: Arc<AtomicU64>) -> Self {
        Self {
            fd: AtomicI64::new(-1),
            input_len: AtomicU64::new(0),
            input_capacity: AtomicU64::new(0),
            input_peak: AtomicU64::new(0),
            output_len: AtomicU64::new(0),
            output_capacity: AtomicU64::new(0),
            held: AtomicU64::new(0),
            queued: AtomicU64::new(0),
            total,
        }
    }

    /// Stores `value` in `field` and moves the total by the change.
    fn account(&self, field: &AtomicU64, value: u64) {
        let old = field.swap(value, Ordering::Relaxed);
        if value > old {
            self.total.fetch_add(value - old, Ordering::Relaxed);
        } else if value < old {
            self.total.fetch_sub(old - value, Ordering::Relaxed);
        }
    }

    /// The bytes this client holds: its input and output buffers'
    /// capacity, what its session holds for it and its waiting messages.
    pub fn memory(&self) -> u64 {
        let load = |x: &AtomicU64| x.load(Ordering::Relaxed);
        load(&self.input_capacity)
            + load(&self.output_capacity)
            + load(&self.held)
            + load(&self.queued)
    }

    /// Records the bytes the session holds for the client besides its
    /// buffers (`MULTI` queue, watched keys, subscriptions).
    pub fn note_held(&self, bytes: u64) {
        self.account(&self.held, bytes);
    }

    /// Records the bytes of messages waiting for the client.
    pub fn note_queued(&self, bytes: u64) {
        self.account(&self.queued, bytes);
    }

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
        self.account(&self.input_capacity, capacity as u64);
        self.input_peak.fetch_max(len as u64, Ordering::Relaxed);
    }

    /// Records the output buffer: bytes not yet sent and capacity.
    pub fn note_output(&self, len: usize, capacity: usize) {
        self.output_len.store(len as u64, Ordering::Relaxed);
        self.account(&self.output_capacity, capacity as u64);
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
    /// Sum of the clients' [`BufferStats::memory`].
    memory: Arc<AtomicU64>,
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
            buffers: BufferStats::counted_in(self.memory.clone()),
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

    /// Bytes the clients hold ([`BufferStats::memory`] summed), closing
    /// ones included until their connection is gone.
    pub fn memory(&self) -> u64 {
        self.memory.load(Ordering::Relaxed)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn addr() -> SocketAddr {
        "127.0.0.1:1".parse().unwrap()
    }

    #[test]
    fn memory_total_follows_every_client_and_forgets_closed_ones() {
        let clients = Clients::default();
        let a = clients.register(addr(), addr());
        let b = clients.register(addr(), addr());
        a.buffers.note_input(10, 4096);
        a.buffers.note_output(0, 1024);
        b.buffers.note_held(300);
        b.buffers.note_queued(50);
        assert_eq!(a.buffers.memory(), 5120);
        assert_eq!(clients.memory(), 5120 + 350);
        // Shrinking moves the total down; an unchanged value leaves it.
        a.buffers.note_input(0, 1024);
        b.buffers.note_queued(50);
        assert_eq!(clients.memory(), 2048 + 350);
        clients.unregister(b.id);
        assert_eq!(clients.memory(), 2048 + 350, "b is alive until dropped");
        drop(b);
        assert_eq!(clients.memory(), 2048);
        clients.unregister(a.id);
        drop(a);
        assert_eq!(clients.memory(), 0);
    }
}
