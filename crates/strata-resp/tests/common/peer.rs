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
/// answer within 5 s.
pub fn spawn_redis() -> Option<PeerRedis> {
    spawn_redis_with(&[])
}

/// [`spawn_redis`] with `extra` arguments (`--enable-debug-command yes`).
pub fn spawn_redis_with(extra: &[&str]) -> Option<PeerRedis> {
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
    let peer = PeerRedis { child, port };
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(50));
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(peer);
        }
    }
    None
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
    for resp in ["2", "3"] {
        for c in [&mut redis, &mut strata] {
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
