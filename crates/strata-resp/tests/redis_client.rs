//! The real Rust `redis` crate (sync API) against the front end: a broad
//! set of commands, pipelines, a WATCH/MULTI/EXEC transaction, RESP3.

use crate::common;

use std::collections::{HashMap, HashSet};

use redis::{Commands, RedisResult, Value as RValue};

use common::start;

fn connect(server: &common::Server, query: &str) -> redis::Connection {
    let url = format!("redis://127.0.0.1:{}/{query}", server.addr.port());
    redis::Client::open(url)
        .expect("client")
        .get_connection()
        .expect("connection")
}

#[test]
fn strings_and_keys() -> RedisResult<()> {
    let server = start();
    let mut con = connect(&server, "");
    let () = con.set("name", "strata")?;
    let name: String = con.get("name")?;
    assert_eq!(name, "strata");
    let missing: Option<String> = con.get("missing")?;
    assert_eq!(missing, None);
    let () = con.set_ex("session", "x", 100)?;
    let ttl: i64 = con.ttl("session")?;
    assert_eq!(ttl, 100);
    let n: i64 = con.incr("counter", 5)?;
    assert_eq!(n, 5);
    let n: i64 = con.decr("counter", 2)?;
    assert_eq!(n, 3);
    let f: f64 = con.incr("float", 1.5)?;
    assert_eq!(f, 1.5);
    let len: usize = con.append("name", "-db")?;
    assert_eq!(len, 9);
    let range: String = con.getrange("name", 0, 5)?;
    assert_eq!(range, "strata");
    let () = con.mset(&[("a", "1"), ("b", "2"), ("c", "3")])?;
    let values: Vec<Option<String>> = con.mget(&["a", "nope", "c"])?;
    assert_eq!(values, vec![Some("1".into()), None, Some("3".into())]);
    let set: bool = con.mset_nx(&[("a", "9"), ("z", "9")])?;
    assert!(!set);
    let created: bool = con.set_nx("z", "26")?;
    assert!(created);
    let old: Option<String> = con.getset("z", "27")?;
    assert_eq!(old.as_deref(), Some("26"));
    let exists: usize = con.exists(&["a", "b", "nope"])?;
    assert_eq!(exists, 2);
    let deleted: usize = con.del(&["a", "b"])?;
    assert_eq!(deleted, 2);
    let expired: bool = con.expire("c", 50)?;
    assert!(expired);
    let pttl: i64 = con.pttl("c")?;
    assert_eq!(pttl, 50_000);
    let persisted: bool = con.persist("c")?;
    assert!(persisted);
    let () = con.rename("c", "d")?;
    let kind: String = redis::cmd("TYPE").arg("d").query(&mut con)?;
    assert_eq!(kind, "string");
    let mut keys: Vec<String> = con.keys("*")?;
    keys.sort();
    assert_eq!(keys, ["counter", "d", "float", "name", "session", "z"]);
    let scanned: HashSet<String> = con.scan_match::<_, String>("*")?.collect();
    assert_eq!(scanned.len(), 6);
    let size: usize = redis::cmd("DBSIZE").query(&mut con)?;
    assert_eq!(size, 6);
    let strlen: usize = con.strlen("name")?;
    assert_eq!(strlen, 9);
    let got: Option<String> = con.get_del("name")?;
    assert_eq!(got.as_deref(), Some("strata-db"));
    let () = redis::cmd("FLUSHDB").query(&mut con)?;
    let size: usize = redis::cmd("DBSIZE").query(&mut con)?;
    assert_eq!(size, 0);
    Ok(())
}

#[test]
fn errors_surface_as_redis_errors() {
    let server = start();
    let mut con = connect(&server, "");
    let () = con.set("s", "abc").expect("set");
    let err = con.incr::<_, _, i64>("s", 1).expect_err("not an integer");
    assert!(
        err.to_string()
            .contains("value is not an integer or out of range"),
        "{err}"
    );
    let err = redis::cmd("NOSUCH")
        .query::<()>(&mut con)
        .expect_err("unknown");
    assert!(err.to_string().contains("unknown command"), "{err}");
    // The connection is still good.
    let pong: String = redis::cmd("PING").query(&mut con).expect("ping");
    assert_eq!(pong, "PONG");
}

#[test]
fn pipelines() -> RedisResult<()> {
    let server = start();
    let mut con = connect(&server, "");
    let mut pipe = redis::pipe();
    for i in 0..1000 {
        pipe.set(format!("key{i}"), i).ignore();
    }
    pipe.get("key7").incr("key7", 1).get("key999");
    let (seven, eight, last): (i64, i64, i64) = pipe.query(&mut con)?;
    assert_eq!((seven, eight, last), (7, 8, 999));
    let size: usize = redis::cmd("DBSIZE").query(&mut con)?;
    assert_eq!(size, 1000);
    Ok(())
}

#[test]
fn watch_multi_exec_transaction() -> RedisResult<()> {
    let server = start();
    let mut con = connect(&server, "");
    let mut other = connect(&server, "");
    let () = con.set("balance", 100)?;
    // redis::transaction retries until EXEC succeeds; make the first attempt fail.
    let mut attempts = 0;
    let (balance,): (i64,) = redis::transaction(&mut con, &["balance"], |con, pipe| {
        attempts += 1;
        let current: i64 = con.get("balance")?;
        if attempts == 1 {
            let () = other.set("balance", 200)?;
        }
        pipe.set("balance", current - 30)
            .ignore()
            .get("balance")
            .query(con)
    })?;
    assert_eq!(attempts, 2);
    assert_eq!(balance, 170);
    // An atomic pipeline is MULTI/EXEC.
    let (a, b): (i64, i64) = redis::pipe()
        .atomic()
        .incr("x", 1)
        .incr("x", 1)
        .query(&mut con)?;
    assert_eq!((a, b), (1, 2));
    Ok(())
}

#[test]
fn resp3_connection() -> RedisResult<()> {
    let server = start();
    let mut con = connect(&server, "?protocol=resp3");
    let () = con.set("k", "v")?;
    let v: String = con.get("k")?;
    assert_eq!(v, "v");
    let missing: RValue = redis::cmd("GET").arg("missing").query(&mut con)?;
    assert_eq!(missing, RValue::Nil);
    let hello: HashMap<String, RValue> = redis::cmd("HELLO").arg(3).query(&mut con)?;
    assert_eq!(hello.get("proto"), Some(&RValue::Int(3)));
    let config: HashMap<String, String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("maxmemory*")
        .query(&mut con)?;
    assert!(config.contains_key("maxmemory-policy"));
    let info: redis::InfoDict = redis::cmd("INFO").query(&mut con)?;
    assert_eq!(
        info.get::<String>("redis_mode").as_deref(),
        Some("standalone")
    );
    Ok(())
}

#[test]
fn client_name_and_info_via_the_crate() -> RedisResult<()> {
    let server = start();
    let mut con = connect(&server, "");
    let () = redis::cmd("CLIENT")
        .arg("SETNAME")
        .arg("rust")
        .query(&mut con)?;
    let name: Option<String> = redis::cmd("CLIENT").arg("GETNAME").query(&mut con)?;
    assert_eq!(name.as_deref(), Some("rust"));
    let info: redis::InfoDict = redis::cmd("INFO").arg("stats").query(&mut con)?;
    assert!(info
        .get::<u64>("total_commands_processed")
        .is_some_and(|n| n > 0));
    let time: (String, String) = redis::cmd("TIME").query(&mut con)?;
    assert_eq!(time.0, (common::T0_MS / 1000).to_string());
    Ok(())
}

#[test]
fn lua_scripts_through_the_crate() -> RedisResult<()> {
    let server = start();
    let mut con = connect(&server, "");
    let script = redis::Script::new("return redis.call('INCRBY', KEYS[1], ARGV[1]) * 2");
    // EVALSHA first, EVAL (loading it) on NOSCRIPT.
    let n: i64 = script.key("k").arg(5).invoke(&mut con)?;
    assert_eq!(n, 10);
    let n: i64 = script.key("k").arg(1).invoke(&mut con)?;
    assert_eq!(n, 12);
    let exists: Vec<bool> = redis::cmd("SCRIPT")
        .arg("EXISTS")
        .arg(script.get_hash())
        .query(&mut con)?;
    assert_eq!(exists, [true]);
    let list: Vec<String> = redis::cmd("EVAL")
        .arg("return {'a', ARGV[1]}")
        .arg(0)
        .arg("b")
        .query(&mut con)?;
    assert_eq!(list, ["a", "b"]);
    let err = redis::cmd("EVAL")
        .arg("return redis.error_reply('NOPE no')")
        .arg(0)
        .query::<RValue>(&mut con)
        .unwrap_err();
    assert_eq!(err.code(), Some("NOPE"));
    Ok(())
}

#[test]
fn pubsub_through_the_crate() -> RedisResult<()> {
    let server = start();
    let mut publisher = connect(&server, "");
    let mut sub_con = connect(&server, "");
    let mut sub = sub_con.as_pubsub();
    sub.subscribe("orders")?;
    sub.psubscribe("audit.*")?;
    sub.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
    let n: i64 = publisher.publish("orders", "o-1")?;
    assert_eq!(n, 1);
    let n: i64 = publisher.publish("audit.login", "alice")?;
    assert_eq!(n, 1);
    let msg = sub.get_message()?;
    assert_eq!(msg.get_channel_name(), "orders");
    assert_eq!(msg.get_payload::<String>()?, "o-1");
    let msg = sub.get_message()?;
    assert_eq!(msg.get_pattern::<String>()?, "audit.*");
    assert_eq!(msg.get_channel_name(), "audit.login");
    assert_eq!(msg.get_payload::<String>()?, "alice");
    sub.unsubscribe("orders")?;
    sub.punsubscribe("audit.*")?;
    drop(sub);
    // Out of subscribed mode the connection runs commands again.
    let () = sub_con.set("after", "1")?;
    Ok(())
}
