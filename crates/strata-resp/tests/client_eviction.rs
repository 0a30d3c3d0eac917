//! Client eviction (`maxmemory-clients`, `CLIENT NO-EVICT`): settings and
//! replies as Redis 7.0 gives them, and the same scenarios run against a
//! real Redis and Strata: a client whose query buffer, `MULTI` queue or
//! watched keys take the clients over the limit is disconnected, a
//! protected one is not (a small unprotected one goes instead), lowering
//! the limit evicts at once, a percentage follows `maxmemory`.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::common;

use common::peer::{replies_match_redis, require_redis};
use common::{Client, Value};

const LIMIT: usize = 3_000_000;

#[test]
fn settings_and_no_evict_reply_as_redis() {
    let cases: Vec<Vec<String>> = [
        "CONFIG SET maxmemory-clients 10%",
        "CONFIG GET maxmemory-clients",
        "CONFIG SET maxmemory-clients 1mb",
        "CONFIG GET maxmemory-clients",
        "CONFIG SET maxmemory-clients 101%",
        "CONFIG SET maxmemory-clients -1",
        "CONFIG SET maxmemory-clients -5%",
        "CONFIG SET maxmemory-clients 1.5%",
        "CONFIG SET maxmemory-clients abc",
        "CONFIG SET maxmemory-clients 0%",
        "CONFIG GET maxmemory-clients",
        "CLIENT NO-EVICT on",
        "CLIENT NO-EVICT maybe",
        "CLIENT NO-EVICT",
        "CLIENT NO-EVICT on extra",
        "CLIENT NO-EVICT OFF",
        "COMMAND INFO client|no-evict",
    ]
    .iter()
    .map(|c| c.split(' ').map(str::to_owned).collect())
    .collect();
    replies_match_redis(&cases);
}

/// Both servers: a control connection (protected) and Redis's or
/// Strata's address.
struct Target {
    addr: SocketAddr,
    control: Client,
}

impl Target {
    fn new(addr: SocketAddr, mut control: Client) -> Target {
        control.cmd(&["CLIENT", "SETNAME", "control"]);
        assert_eq!(control.cmd(&["CLIENT", "NO-EVICT", "on"]), Value::ok());
        Target { addr, control }
    }

    /// A new connection named `name`.
    fn named(&mut self, name: &str) -> Client {
        let mut c = Client::from_stream(TcpStream::connect(self.addr).expect("connect"));
        assert_eq!(c.cmd(&["CLIENT", "SETNAME", name]), Value::ok());
        c
    }

    fn set(&mut self, param: &str, value: &str) {
        assert_eq!(
            self.control.cmd(&["CONFIG", "SET", param, value]),
            Value::ok()
        );
    }

    /// `name`'s `CLIENT LIST` line, if connected.
    fn line(&mut self, name: &str) -> Option<String> {
        let list = self.control.cmd(&["CLIENT", "LIST"]).text();
        let tag = format!(" name={name} ");
        list.lines().find(|l| l.contains(&tag)).map(str::to_owned)
    }

    /// Waits up to 10 s for `name` to be gone (or not).
    fn wait_gone(&mut self, name: &str, gone: bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if self.line(name).is_none() == gone {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn evicted_clients(&mut self) -> u64 {
        let info = self.control.cmd(&["INFO", "stats"]).text();
        let line = info
            .lines()
            .find_map(|l| l.strip_prefix("evicted_clients:"));
        line.expect("evicted_clients")
            .trim()
            .parse()
            .expect("count")
    }
}

/// Starts a bulk of `len` bytes on a raw connection named `name` and sends
/// all but its end, so the request stays in the query buffer. Write
/// errors are expected once the server evicts the connection.
fn fill_query(addr: SocketAddr, name: &str, len: usize) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect");
    let mut c = Client::from_stream(stream.try_clone().expect("clone"));
    assert_eq!(c.cmd(&["CLIENT", "SETNAME", name]), Value::ok());
    let _ = stream.write_all(format!("*2\r\n$3\r\nSET\r\n${len}\r\n").as_bytes());
    let chunk = vec![b'v'; 64 * 1024];
    let mut left = len - 1;
    while left > 0 {
        let n = left.min(chunk.len());
        if stream.write_all(&chunk[..n]).is_err() {
            break;
        }
        left -= n;
    }
    stream
}

/// Runs `scenario` against a real Redis and a Strata server.
fn on_both(scenario: impl Fn(&mut Target, &str)) {
    let peer = require_redis();
    let redis_addr: SocketAddr = ([127, 0, 0, 1], peer.port).into();
    scenario(&mut Target::new(redis_addr, peer.client()), "Redis");
    let server = common::start();
    scenario(
        &mut Target::new(server.addr, Client::connect(&server)),
        "Strata",
    );
}

#[test]
fn a_large_query_buffer_is_evicted_and_counted() {
    on_both(|t, who| {
        t.set("maxmemory-clients", &LIMIT.to_string());
        let before = t.evicted_clients();
        let mut small = t.named("small");
        assert_eq!(small.cmd(&["SET", "k", "v"]), Value::ok());
        let _big = fill_query(t.addr, "big", LIMIT + 500_000);
        assert!(t.wait_gone("big", true), "{who}: the big client stays");
        assert_eq!(t.evicted_clients(), before + 1, "{who}");
        // Only what it took to get under the limit went.
        assert_eq!(small.cmd(&["GET", "k"]), Value::bulk("v"), "{who}");
        t.set("maxmemory-clients", "0");
    });
}

#[test]
fn a_protected_client_stays_and_an_unprotected_one_goes_instead() {
    on_both(|t, who| {
        t.set("maxmemory-clients", &LIMIT.to_string());
        let mut small = t.named("small");
        let mut big = Client::from_stream(TcpStream::connect(t.addr).expect("connect"));
        assert_eq!(big.cmd(&["CLIENT", "SETNAME", "big"]), Value::ok());
        assert_eq!(big.cmd(&["CLIENT", "NO-EVICT", "on"]), Value::ok());
        let line = t.line("big").expect("big");
        assert!(line.contains(" flags=e "), "{who}: {line}");
        // The protected client fills its query buffer past the limit.
        let mut raw = big.stream_clone();
        let _ = raw.write_all(format!("*2\r\n$3\r\nSET\r\n${}\r\n", LIMIT + 500_000).as_bytes());
        let _ = raw.write_all(&vec![b'v'; LIMIT + 400_000]);
        let grown = |t: &mut Target| {
            t.line("big")
                .and_then(|l| field(&l, "tot-mem"))
                .is_some_and(|m| m > LIMIT as u64)
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !grown(t) {
            assert!(Instant::now() < deadline, "{who}: big never grew");
            std::thread::sleep(Duration::from_millis(20));
        }
        // Over the limit with nothing else to evict: the small one goes at
        // its next command (Redis evicts every evictable client while the
        // total is over), the protected ones stay.
        let _ = small.try_cmd(&["PING"]);
        assert!(t.wait_gone("small", true), "{who}: small stays");
        assert!(t.line("big").is_some(), "{who}: big was evicted");
        assert_eq!(t.control.cmd(&["PING"]), Value::Simple("PONG".into()));
        t.set("maxmemory-clients", "0");
    });
}

#[test]
fn a_large_multi_queue_and_many_watched_keys_are_evicted() {
    on_both(|t, who| {
        t.set("maxmemory-clients", &LIMIT.to_string());
        let mut c = t.named("multi");
        let quarter = "v".repeat(LIMIT / 4);
        assert_eq!(c.cmd(&["MULTI"]), Value::ok());
        for _ in 0..5 {
            if c.try_cmd(&["SET", "k", &quarter]).is_none() {
                break;
            }
        }
        assert!(t.wait_gone("multi", true), "{who}: the MULTI client stays");

        t.set("maxmemory-clients", "200000");
        let mut w = t.named("watcher");
        let mut evicted = false;
        for j in 0..200_000 {
            if w.try_cmd(&["WATCH", &format!("key:{j:08}")]).is_none() {
                evicted = true;
                break;
            }
        }
        assert!(evicted, "{who}: 200,000 watched keys were not evicted");
        t.set("maxmemory-clients", "0");
    });
}

#[test]
fn lowering_the_limit_evicts_at_once_largest_first() {
    on_both(|t, who| {
        t.set("maxmemory-clients", "4mb");
        let per_client = 300_000;
        let names: Vec<String> = (0..10).map(|i| format!("client{i}")).collect();
        let _streams: Vec<TcpStream> = names
            .iter()
            .map(|n| fill_query(t.addr, n, per_client))
            .collect();
        for name in &names {
            let deadline = Instant::now() + Duration::from_secs(10);
            while t.line(name).and_then(|l| field(&l, "qbuf")).unwrap_or(0)
                < (per_client as u64) / 2
            {
                assert!(
                    Instant::now() < deadline,
                    "{who}: {name} never filled: {:?}",
                    t.line(name)
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let connected = |t: &mut Target| names.iter().filter(|n| t.line(n).is_some()).count();
        assert_eq!(connected(t), 10, "{who}");
        t.set("maxmemory-clients", "2mb");
        let left = connected(t);
        assert!(left > 0 && left < 10, "{who}: {left} of 10 left");
        t.set("maxmemory-clients", "0");
    });
}

#[test]
fn a_percentage_of_maxmemory_is_the_limit() {
    on_both(|t, who| {
        let maxmemory: usize = 6 * 1024 * 1024;
        t.set("maxmemory", &maxmemory.to_string());
        t.set("maxmemory-clients", "7%");
        let actual = maxmemory * 7 / 100;
        let _half = fill_query(t.addr, "half", actual / 2);
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            t.line("half").is_some(),
            "{who}: half the limit was evicted"
        );
        let _full = fill_query(t.addr, "full", actual);
        assert!(t.wait_gone("full", true), "{who}: the full client stays");
        t.set("maxmemory-clients", "0");
        t.set("maxmemory", "0");
    });
}

/// A numeric `CLIENT LIST` field.
fn field(line: &str, name: &str) -> Option<u64> {
    let prefix = format!("{name}=");
    line.split(' ')
        .find_map(|f| f.strip_prefix(&prefix))
        .and_then(|v| v.parse().ok())
}
