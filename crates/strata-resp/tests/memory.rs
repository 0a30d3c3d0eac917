//! The memory limit as Redis clients see it: OOM errors in store mode,
//! eviction (and `evicted_keys`) in cache mode.

use crate::common;

use common::{start_cache, start_with, Client, Value};
use strata_kv::{EvictionPolicy, KeyspaceConfig};

/// A numeric field of `INFO section`.
pub(crate) fn info_field(c: &mut Client, section: &str, field: &str) -> u64 {
    let text = c.cmd(&["INFO", section]).text();
    let prefix = format!("{field}:");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {text}"))
}

#[test]
fn store_mode_refuses_writes_with_oom() {
    let config = KeyspaceConfig {
        memory_limit: 1 << 20,
        eviction: EvictionPolicy::NoEviction,
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let server = start_with(config, None);
    let mut c = Client::connect(&server);
    let value = "x".repeat(10_000);
    let mut refused = None;
    for i in 0..1000 {
        match c.cmd(&["SET", &format!("key{i}"), &value]) {
            Value::Simple(ok) if ok == "OK" => {}
            other => {
                refused = Some(other);
                break;
            }
        }
    }
    assert_eq!(
        refused,
        Some(Value::err(
            "OOM command not allowed when used memory > 'maxmemory'."
        ))
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "maxmemory-policy"]),
        common::bulks(&["maxmemory-policy", "noeviction"])
    );
    // Reads and deletes still work.
    assert_eq!(c.cmd(&["STRLEN", "key0"]), Value::Int(10_000));
    assert_eq!(c.cmd(&["DEL", "key0"]), Value::Int(1));
}

#[test]
fn cache_mode_evicts_and_counts() {
    let server = start_cache(1 << 20);
    let mut c = Client::connect(&server);
    let value = "y".repeat(10_000);
    for i in 0..1000 {
        assert_eq!(
            c.cmd(&["SET", &format!("key{i}"), &value]),
            Value::ok(),
            "key{i}"
        );
    }
    assert!(info_field(&mut c, "stats", "evicted_keys") > 0);
    assert!(info_field(&mut c, "memory", "used_memory") <= 1 << 20);
    let keys = match c.cmd(&["DBSIZE"]) {
        Value::Int(n) => n,
        other => panic!("{other:?}"),
    };
    assert!(keys < 1000, "{keys}");
    // Switching to noeviction at run time makes writes fail instead.
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "maxmemory-policy", "noeviction"]),
        Value::ok()
    );
    let mut refused = false;
    for i in 1000..1100 {
        if c.cmd(&["SET", &format!("key{i}"), &value]) != Value::ok() {
            refused = true;
            break;
        }
    }
    assert!(refused);
}

/// A pipeline of requests with large replies is answered in full, while the
/// session yields to the driver instead of buffering every reply at once.
#[test]
fn pipelined_large_replies_are_flushed_in_bounded_steps() {
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};

    use bytes::BytesMut;
    use strata_service::{Flow, Protocol, Session, OUTPUT_SOFT_LIMIT};

    let server = common::start();
    let mut c = Client::connect(&server);
    let value = "v".repeat(100_000);
    assert_eq!(c.cmd(&["SET", "big", &value]), Value::ok());

    // Session level: 300 GETs in one input yield with bounded output.
    let protocol = strata_resp::RespProtocol::new(
        server.keyspace.clone(),
        server.info.clone(),
        server.clients.clone(),
    );
    let addr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 1);
    let mut session = protocol.open(server.clients.register(addr, addr));
    let mut input = BytesMut::from("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n".repeat(300).as_bytes());
    let mut output = BytesMut::new();
    let mut replies = 0;
    loop {
        let flow = session.process(&mut input, &mut output);
        assert!(
            output.len() < OUTPUT_SOFT_LIMIT + 200_000,
            "output {} bytes",
            output.len()
        );
        replies += output.windows(9).filter(|w| w == b"$100000\r\n").count();
        output.clear();
        if flow != Flow::Yield {
            break;
        }
    }
    assert_eq!(replies, 300);
    assert!(input.is_empty());

    // Over TCP the driver keeps flushing until every reply is out.
    c.send_raw("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n".repeat(300).as_bytes());
    for _ in 0..300 {
        assert_eq!(c.read(), Value::bulk(&value));
    }
}
