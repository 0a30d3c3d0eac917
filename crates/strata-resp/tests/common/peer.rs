//! A real `redis-server` on a free loopback port, for tests that compare
//! Strata's replies with Redis's; killed when dropped.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::{Client, Value};

/// A running `redis-server` (no persistence).
pub struct PeerRedis {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

impl PeerRedis {
    /// A client connected to it.
    pub fn client(&self) -> Client {
        Client::from_stream(TcpStream::connect(("127.0.0.1", self.port)).expect("connect"))
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for PeerRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `redis-server`; `None` when it is not installed or does not
/// answer within 20 s (a loaded CI machine runs many tests at once).
pub fn spawn_redis() -> Option<PeerRedis> {
    spawn_redis_with(&[])
}

/// [`spawn_redis`] with `extra` arguments (`--enable-debug-command yes`).
/// A server that exits at once (its free port taken meanwhile by another
/// test's server) is started again on another port, up to three times.
pub fn spawn_redis_with(extra: &[&str]) -> Option<PeerRedis> {
    (0..3).find_map(|_| spawn_once(extra))
}

fn spawn_once(extra: &[&str]) -> Option<PeerRedis> {
    let port = TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--dir", "/tmp"])
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let mut peer = PeerRedis { child, port };
    for _ in 0..400 {
        std::thread::sleep(Duration::from_millis(50));
        if peer.child.try_wait().ok().flatten().is_some() {
            return None; // exited: dropped (reaped), and tried again
        }
        if let Ok(stream) = TcpStream::connect(("127.0.0.1", port)) {
            // Another test's server may hold the port: only ours will do.
            return is_process(stream, peer.child.id()).then_some(peer);
        }
    }
    None
}

/// Whether the Redis at `stream` is the process `pid` (`INFO server`; one
/// that wants a password is taken to be).
fn is_process(mut stream: TcpStream, pid: u32) -> bool {
    use std::io::{Read, Write};
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    if stream
        .write_all(b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n")
        .is_err()
    {
        return false;
    }
    let wanted = format!("process_id:{pid}\r\n");
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n @ 1..) = stream.read(&mut chunk) {
        seen.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&seen);
        // A server with a password cannot be asked: taken as ours.
        if text.contains(&wanted) || text.starts_with("-NOAUTH") {
            return true;
        }
    }
    false
}

/// [`spawn_redis`], failing the test when Redis is missing: `scripts/test`
/// installs it, and a comparison that silently passes without its peer
/// would prove nothing.
pub fn require_redis() -> PeerRedis {
    spawn_redis().expect("redis-server is needed for this comparison (scripts/test installs it)")
}

/// Sends every case (its words) to a fresh redis-server and a fresh Strata,
/// in RESP2 and then RESP3, and fails at the first reply that differs.
pub fn replies_match_redis(cases: &[Vec<String>]) {
    let peer = require_redis();
    let server = super::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    same_replies(&mut redis, &mut strata, cases);
}

/// Sends every case to both connections, in RESP2 and then RESP3, and
/// fails at the first reply that differs.
pub fn same_replies(redis: &mut Client, strata: &mut Client, cases: &[Vec<String>]) {
    for resp in ["2", "3"] {
        for c in [&mut *redis, &mut *strata] {
            c.cmd(&["HELLO", resp]);
        }
        for case in cases {
            let words: Vec<&str> = case.iter().map(String::as_str).collect();
            let want = redis.cmd(&words);
            let got = strata.cmd(&words);
            assert_eq!(got, want, "`{}` in RESP{resp}", case.join(" "));
        }
    }
}

/// `COMMAND DOCS name`'s summary, since and group fields (the ones a
/// Strata row must have as Redis's), in reply order.
pub fn doc_basics(c: &mut Client, name: &str) -> Vec<Value> {
    let reply = c.cmd(&["COMMAND", "DOCS", name]);
    let fields = reply.array()[1].array().to_vec();
    let keep = ["summary", "since", "group"];
    let pairs = fields
        .chunks(2)
        .filter(|p| keep.contains(&p[0].text().as_str()));
    pairs.flat_map(|p| p.to_vec()).collect()
}
