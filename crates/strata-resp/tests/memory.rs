//! The memory limit as Redis clients see it: OOM errors in store mode,
//! eviction (and `evicted_keys`) in cache mode.

mod common;

use common::{start_cache, start_with, Client, Value};
use strata_kv::{EvictionPolicy, KeyspaceConfig};

fn info_field(c: &mut Client, section: &str, field: &str) -> u64 {
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
