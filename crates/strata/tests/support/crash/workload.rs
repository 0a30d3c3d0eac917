//! A client thread writing its own keys (see `choice`) over one RESP or
//! memcached connection, sometimes pipelining up to 16 commands, recording
//! every command before it is sent and every reply as it arrives.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::choice::Chooser;
use super::history::ConnectionLog;
use super::memcache::MemcacheConn;
use super::model::{KeyState, Protocol};
use super::resp::{Reply, RespConn};

/// What a worker carries from one server run to the next.
#[derive(Clone)]
pub struct WorkerKeys {
    pub id: usize,
    pub protocol: Protocol,
    /// The keys it owns that exist, with their states.
    pub states: BTreeMap<String, KeyState>,
    /// Number of the next fresh string key.
    pub next_fresh: u64,
}

impl WorkerKeys {
    /// Worker `id`, speaking `protocol`, with no keys yet.
    pub fn new(id: usize, protocol: Protocol) -> WorkerKeys {
        WorkerKeys {
            id,
            protocol,
            states: BTreeMap::new(),
            next_fresh: 0,
        }
    }
}

/// Why a worker stopped.
#[derive(Debug)]
pub enum Ended {
    /// It saw the stop flag.
    Stopped,
    /// The connection failed at `at` (expected once the server is killed).
    Disconnected { error: std::io::Error, at: Instant },
    /// The server gave a reply the model did not expect.
    WrongReply(String),
}

/// A finished worker's record.
pub struct WorkerRun {
    pub id: usize,
    pub protocol: Protocol,
    pub log: ConnectionLog,
    pub ended: Ended,
    pub next_fresh: u64,
}

impl WorkerRun {
    /// The worker's keys after every command it sent, for a next run on the
    /// same server process (valid only when every command was answered).
    pub fn final_keys(&self) -> WorkerKeys {
        WorkerKeys {
            id: self.id,
            protocol: self.protocol,
            states: self.log.final_states(),
            next_fresh: self.next_fresh,
        }
    }
}

/// A worker thread in progress.
pub struct Worker {
    handle: JoinHandle<WorkerRun>,
}

impl Worker {
    /// Starts worker `keys.id` against `addr`, its choices drawn from
    /// `seed`; it writes until `stop` is set or the connection fails.
    /// `run` labels values, so every value written is unique in a test.
    pub fn start(
        addr: SocketAddr,
        keys: WorkerKeys,
        run: u64,
        seed: u64,
        origin: Instant,
        stop: Arc<AtomicBool>,
    ) -> Worker {
        let handle = std::thread::spawn(move || {
            let name = format!("worker {} ({:?})", keys.id, keys.protocol);
            let existing = keys.states.keys();
            let chooser = Chooser::new(keys.id, run, seed, existing, keys.next_fresh);
            let mut writer = Writer {
                id: keys.id,
                protocol: keys.protocol,
                chooser,
                log: ConnectionLog::new(name, keys.protocol, origin, keys.states),
            };
            let ended = writer.write_until(addr, &stop);
            WorkerRun {
                id: writer.id,
                protocol: writer.protocol,
                next_fresh: writer.chooser.next_fresh(),
                log: writer.log,
                ended,
            }
        });
        Worker { handle }
    }

    /// Waits up to `timeout` for the worker to end; panics if it does not.
    pub fn join(self, timeout: Duration) -> WorkerRun {
        let deadline = Instant::now() + timeout;
        while !self.handle.is_finished() {
            assert!(
                Instant::now() < deadline,
                "a worker did not end within {timeout:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        self.handle.join().expect("worker thread panicked")
    }
}

/// A worker's connection, over either front end.
enum Connection {
    Resp(RespConn),
    Memcache(MemcacheConn),
}

impl Connection {
    fn open(addr: SocketAddr, protocol: Protocol) -> std::io::Result<Connection> {
        Ok(match protocol {
            Protocol::Resp => Connection::Resp(RespConn::connect(addr)?),
            Protocol::Memcache => Connection::Memcache(MemcacheConn::connect(addr)?),
        })
    }

    fn send_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Connection::Resp(conn) => conn.send_bytes(bytes),
            Connection::Memcache(conn) => conn.send_bytes(bytes),
        }
    }

    fn read_reply(&mut self) -> std::io::Result<Reply> {
        match self {
            Connection::Resp(conn) => conn.read_reply(),
            Connection::Memcache(conn) => conn.read_reply(),
        }
    }
}

fn disconnected(error: std::io::Error) -> Ended {
    Ended::Disconnected {
        error,
        at: Instant::now(),
    }
}

/// The state of one worker thread.
struct Writer {
    id: usize,
    protocol: Protocol,
    chooser: Chooser,
    log: ConnectionLog,
}

impl Writer {
    fn write_until(&mut self, addr: SocketAddr, stop: &AtomicBool) -> Ended {
        let mut conn = match Connection::open(addr, self.protocol) {
            Ok(conn) => conn,
            Err(error) => return disconnected(error),
        };
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ended::Stopped;
            }
            let batch = self.chooser.batch_size();
            let mut pending = Vec::with_capacity(batch);
            let mut bytes = Vec::new();
            let now = Instant::now();
            for _ in 0..batch {
                let op = self.chooser.next(self.protocol, &self.log);
                bytes.extend(op.request(self.protocol));
                pending.push(self.log.sent(op, now));
            }
            if let Err(error) = conn.send_bytes(&bytes) {
                return disconnected(error);
            }
            for (index, expected) in pending {
                let reply = match conn.read_reply() {
                    Ok(reply) => reply,
                    Err(error) => return disconnected(error),
                };
                self.log.acked(index, Instant::now());
                if reply != expected {
                    return Ended::WrongReply(format!(
                        "worker {}: {:?} replied {reply:?}, expected {expected:?}",
                        self.id,
                        self.log.ops()[index].op
                    ));
                }
            }
        }
    }
}
