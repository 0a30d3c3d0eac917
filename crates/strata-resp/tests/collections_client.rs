//! The real Rust `redis` crate (sync API) with hashes, lists, sets and
//! sorted sets: typed replies, RESP3 maps and sets, a blocking pop woken
//! from another connection, WRONGTYPE, and a MULTI/EXEC of the new commands.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::thread;
use std::time::Duration;

use redis::{Commands, RedisResult};

use common::start;

fn connect(server: &common::Server, query: &str) -> redis::Connection {
    let url = format!("redis://127.0.0.1:{}/{query}", server.addr.port());
    redis::Client::open(url)
        .expect("client")
        .get_connection()
        .expect("connection")
}

#[test]
fn typed_replies_for_each_type() -> RedisResult<()> {
    let server = start();
    for query in ["", "?protocol=resp3"] {
        let mut con = connect(&server, query);
        let _: () = redis::cmd("FLUSHALL").query(&mut con)?;
        let added: usize = con
            .hset_multiple("h", &[("a", "1"), ("b", "2")])
            .map(|()| 2)?;
        assert_eq!(added, 2);
        let all: HashMap<String, String> = con.hgetall("h")?;
        assert_eq!(all.get("b").map(String::as_str), Some("2"));
        let n: i64 = con.hincr("h", "a", 41)?;
        assert_eq!(n, 42);

        let len: usize = con.rpush("l", &["x", "y", "z"])?;
        assert_eq!(len, 3);
        let range: Vec<String> = con.lrange("l", 0, -1)?;
        assert_eq!(range, ["x", "y", "z"]);
        let popped: Option<String> = con.lpop("l", None)?;
        assert_eq!(popped.as_deref(), Some("x"));

        let added: usize = con.sadd("s", &["a", "b", "c"])?;
        assert_eq!(added, 3);
        let members: HashSet<String> = con.smembers("s")?;
        assert_eq!(members.len(), 3);

        let added: usize = con.zadd_multiple("z", &[(1.0, "one"), (2.5, "two")])?;
        assert_eq!(added, 2);
        let ranked: Vec<(String, f64)> = con.zrange_withscores("z", 0, -1)?;
        assert_eq!(ranked, [("one".to_string(), 1.0), ("two".to_string(), 2.5)]);
        let score: Option<f64> = con.zscore("z", "two")?;
        assert_eq!(score, Some(2.5));

        let wrong: RedisResult<String> = con.get("h");
        let err = wrong.expect_err("GET on a hash");
        assert_eq!(err.code(), Some("WRONGTYPE"));
    }
    Ok(())
}

#[test]
fn blocking_pop_is_woken_by_another_connection() -> RedisResult<()> {
    let server = start();
    let mut waiter = connect(&server, "");
    let mut pusher = connect(&server, "");
    let push = thread::spawn(move || -> RedisResult<usize> {
        thread::sleep(Duration::from_millis(200));
        pusher.rpush("jobs", "job-1")
    });
    let got: Option<(String, String)> = waiter.blpop("jobs", 5.0)?;
    assert_eq!(got, Some(("jobs".into(), "job-1".into())));
    assert_eq!(push.join().expect("pusher")?, 1);
    let none: Option<(String, String)> = waiter.brpop("jobs", 0.1)?;
    assert_eq!(none, None);
    Ok(())
}

#[test]
fn transaction_of_collection_commands() -> RedisResult<()> {
    let server = start();
    let mut con = connect(&server, "");
    let (len, added, members): (usize, usize, Vec<String>) = redis::pipe()
        .atomic()
        .lpush("q", &["a", "b"])
        .sadd("seen", "a")
        .lrange("q", 0, -1)
        .query(&mut con)?;
    assert_eq!((len, added), (2, 1));
    assert_eq!(members, ["b", "a"]);
    Ok(())
}
