//! Real client libraries against the real binary: the Rust `redis` and
//! `memcache` crates share one keyspace, and the connection limit refuses
//! the client over it with the protocol's error.

use crate::support;

use std::time::{Duration, Instant};

use redis::Commands;
use support::{Raw, Server};

const RESP_PING: &[u8] = b"*1\r\n$4\r\nPING\r\n";

fn memcache_client(server: &Server) -> memcache::Client {
    let url = format!("memcache://{}?protocol=ascii&timeout=5", server.memcache());
    memcache::connect(url).expect("memcache client connects")
}

fn redis_connection(server: &Server) -> redis::Connection {
    let client = redis::Client::open(format!("redis://{}/", server.resp())).expect("redis url");
    client.get_connection().expect("redis client connects")
}

#[test]
fn keys_written_over_one_protocol_are_visible_over_the_other() {
    let server = Server::start(&[]);
    let mc = memcache_client(&server);
    let mut redis = redis_connection(&server);

    mc.set("from-memcache", "hello", 0).unwrap();
    let value: Option<String> = redis.get("from-memcache").unwrap();
    assert_eq!(value.as_deref(), Some("hello"));

    let _: () = redis.set("from-resp", "world").unwrap();
    assert_eq!(
        mc.get::<String>("from-resp").unwrap().as_deref(),
        Some("world")
    );

    let binary = b"a\r\nb\0c END\r\n".to_vec();
    let _: () = redis.set("binary", binary.clone()).unwrap();
    assert_eq!(mc.get::<Vec<u8>>("binary").unwrap(), Some(binary));

    let _: () = redis.set("counter", 41).unwrap();
    assert_eq!(mc.increment("counter", 1).unwrap(), 42);
    let after: i64 = redis.incr("counter", 8).unwrap();
    assert_eq!(after, 50);
    assert_eq!(mc.get::<String>("counter").unwrap().as_deref(), Some("50"));

    let removed: i64 = redis.del("from-memcache").unwrap();
    assert_eq!(removed, 1);
    assert_eq!(mc.get::<String>("from-memcache").unwrap(), None);
    assert!(mc.delete("from-resp").unwrap());
    let exists: bool = redis.exists("from-resp").unwrap();
    assert!(!exists);

    mc.flush().unwrap();
    let size: i64 = redis::cmd("DBSIZE").query(&mut redis).unwrap();
    assert_eq!(size, 0);
}

#[test]
fn connections_over_the_limit_are_refused_with_the_protocols_error() {
    let server = Server::start(&["--max-connections", "2"]);

    let mut resp_clients: Vec<Raw> = (0..2).map(|_| Raw::connect(server.resp())).collect();
    for client in &mut resp_clients {
        assert_eq!(client.request(RESP_PING, b"\r\n"), b"+PONG\r\n");
    }
    let refusal = Raw::connect(server.resp()).read_to_close();
    assert!(
        refusal.starts_with(b"-ERR"),
        "RESP refusal: {:?}",
        String::from_utf8_lossy(&refusal)
    );

    let mut mc_clients: Vec<Raw> = (0..2).map(|_| Raw::connect(server.memcache())).collect();
    for client in &mut mc_clients {
        assert!(client
            .request(b"version\r\n", b"\r\n")
            .starts_with(b"VERSION "));
    }
    let refusal = Raw::connect(server.memcache()).read_to_close();
    // memcached's own refusal text.
    assert!(
        refusal.starts_with(b"ERROR Too many open connections"),
        "memcached refusal: {:?}",
        String::from_utf8_lossy(&refusal)
    );

    // Closing a connection frees its slot (once the server notices the close).
    drop(resp_clients.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut client = Raw::connect(server.resp());
        let reply = client.request_or_close(RESP_PING);
        if reply == b"+PONG\r\n" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "slot never freed; last reply {reply:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
