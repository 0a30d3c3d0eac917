//! Pub/sub over TCP: subscribe confirmations, messages to channels and
//! patterns, RESP2's subscribed mode and RESP3 pushes, PUBSUB
//! introspection, and the `client-output-buffer-limit pubsub` bound on a
//! subscriber that never reads.

use crate::common;

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{bulks, start, Client, Value};

fn push(items: Vec<Value>) -> Value {
    Value::Push(items)
}

fn confirm(verb: &str, name: &str, count: i64) -> Value {
    Value::Array(vec![
        Value::bulk(verb),
        Value::bulk(name),
        Value::Int(count),
    ])
}

#[test]
fn messages_reach_channel_and_pattern_subscribers() {
    let server = start();
    let mut sub = Client::connect(&server);
    let mut publisher = Client::connect(&server);
    sub.send(&[b"SUBSCRIBE", b"news", b"sport"]);
    assert_eq!(sub.read(), confirm("subscribe", "news", 1));
    assert_eq!(sub.read(), confirm("subscribe", "sport", 2));
    assert_eq!(
        sub.cmd(&["PSUBSCRIBE", "n*"]),
        confirm("psubscribe", "n*", 3)
    );
    // A second subscription to the same channel counts once.
    assert_eq!(
        sub.cmd(&["SUBSCRIBE", "news"]),
        confirm("subscribe", "news", 3)
    );

    assert_eq!(publisher.cmd(&["PUBLISH", "news", "hello"]), Value::Int(2));
    assert_eq!(sub.read(), bulks(&["message", "news", "hello"]));
    assert_eq!(sub.read(), bulks(&["pmessage", "n*", "news", "hello"]));
    assert_eq!(publisher.cmd(&["PUBLISH", "weather", "x"]), Value::Int(0));
    assert_eq!(publisher.cmd(&["PUBLISH", "sport", "goal"]), Value::Int(1));
    assert_eq!(sub.read(), bulks(&["message", "sport", "goal"]));

    assert_eq!(
        publisher.cmd(&["PUBSUB", "CHANNELS"]).array().len(),
        2,
        "news and sport"
    );
    assert_eq!(
        publisher.cmd(&["PUBSUB", "CHANNELS", "s*"]),
        bulks(&["sport"])
    );
    assert_eq!(
        publisher.cmd(&["PUBSUB", "NUMSUB", "news", "none"]),
        Value::Array(vec![
            Value::bulk("news"),
            Value::Int(1),
            Value::bulk("none"),
            Value::Int(0)
        ])
    );
    assert_eq!(publisher.cmd(&["PUBSUB", "NUMPAT"]), Value::Int(1));

    sub.send(&[b"UNSUBSCRIBE"]);
    // Both channels, in any order, counting down from 3 subscriptions.
    let gone = [sub.read(), sub.read()];
    let mut names: Vec<Value> = gone.iter().map(|v| v.array()[1].clone()).collect();
    names.sort_by_key(|v| format!("{v:?}"));
    assert_eq!(names, [Value::bulk("news"), Value::bulk("sport")]);
    let counts: Vec<Value> = gone.iter().map(|v| v.array()[2].clone()).collect();
    assert_eq!(counts, [Value::Int(2), Value::Int(1)]);
    assert!(gone
        .iter()
        .all(|v| v.array()[0] == Value::bulk("unsubscribe")));
    assert_eq!(
        sub.cmd(&["PUNSUBSCRIBE", "n*"]),
        confirm("punsubscribe", "n*", 0)
    );
    // Out of subscribed mode: other commands run again.
    assert_eq!(sub.cmd(&["SET", "k", "v"]), Value::ok());
    assert_eq!(publisher.cmd(&["PUBSUB", "NUMPAT"]), Value::Int(0));
    assert_eq!(publisher.cmd(&["PUBLISH", "news", "late"]), Value::Int(0));
    assert_eq!(
        sub.cmd(&["UNSUBSCRIBE"]),
        Value::Array(vec![Value::bulk("unsubscribe"), Value::Null, Value::Int(0)])
    );
}

#[test]
fn resp2_subscribed_mode_allows_only_pubsub_commands() {
    let server = start();
    let mut sub = Client::connect(&server);
    sub.cmd(&["SUBSCRIBE", "c"]);
    assert_eq!(
        sub.cmd(&["GET", "k"]),
        Value::err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
    );
    assert_eq!(sub.cmd(&["PING"]), bulks(&["pong", ""]));
    assert_eq!(sub.cmd(&["PING", "hi"]), bulks(&["pong", "hi"]));
    assert_eq!(sub.cmd(&["RESET"]), Value::Simple("RESET".into()));
    assert_eq!(sub.cmd(&["PING"]), Value::Simple("PONG".into()));
    let mut publisher = Client::connect(&server);
    assert_eq!(publisher.cmd(&["PUBLISH", "c", "m"]), Value::Int(0));
}

#[test]
fn resp3_gets_pushes_and_may_run_commands() {
    let server = start();
    let mut sub = Client::connect(&server);
    let hello = sub.cmd(&["HELLO", "3"]);
    assert!(matches!(hello, Value::Map(_)));
    assert_eq!(
        sub.cmd(&["SUBSCRIBE", "c"]),
        push(vec![
            Value::bulk("subscribe"),
            Value::bulk("c"),
            Value::Int(1)
        ])
    );
    assert_eq!(sub.cmd(&["SET", "k", "v"]), Value::ok());
    let mut publisher = Client::connect(&server);
    assert_eq!(publisher.cmd(&["PUBLISH", "c", "m"]), Value::Int(1));
    assert_eq!(
        sub.read(),
        push(vec![
            Value::bulk("message"),
            Value::bulk("c"),
            Value::bulk("m")
        ])
    );
    assert_eq!(sub.cmd(&["GET", "k"]), Value::bulk("v"));
    assert_eq!(
        sub.cmd(&["SSUBSCRIBE", "s"]).to_owned(),
        push(vec![
            Value::bulk("ssubscribe"),
            Value::bulk("s"),
            Value::Int(1)
        ])
    );
    assert_eq!(publisher.cmd(&["SPUBLISH", "s", "x"]), Value::Int(1));
    assert_eq!(publisher.cmd(&["PUBLISH", "s", "x"]), Value::Int(0));
    assert_eq!(
        sub.read(),
        push(vec![
            Value::bulk("smessage"),
            Value::bulk("s"),
            Value::bulk("x")
        ])
    );
    assert_eq!(
        publisher.cmd(&["PUBSUB", "SHARDNUMSUB", "s"]),
        Value::Array(vec![Value::bulk("s"), Value::Int(1)])
    );
}

#[test]
fn closed_subscriber_is_forgotten() {
    let server = start();
    let mut publisher = Client::connect(&server);
    {
        let mut sub = Client::connect(&server);
        sub.cmd(&["SUBSCRIBE", "c"]);
        assert_eq!(publisher.cmd(&["PUBLISH", "c", "m"]), Value::Int(1));
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while publisher.cmd(&["PUBLISH", "c", "m"]) != Value::Int(0) {
        assert!(
            Instant::now() < deadline,
            "subscriber still counted after close"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        publisher.cmd(&["PUBSUB", "NUMSUB", "c"]),
        Value::Array(vec![Value::bulk("c"), Value::Int(0)])
    );
}

/// A subscriber that never reads is disconnected once its waiting
/// messages pass the hard limit, and the server's memory stays bounded:
/// later publishes reach nobody.
#[test]
fn subscriber_that_never_reads_is_disconnected() {
    let server = start();
    let mut admin = Client::connect(&server);
    assert_eq!(
        admin.cmd(&[
            "CONFIG",
            "SET",
            "client-output-buffer-limit",
            "pubsub 1mb 256kb 60"
        ]),
        Value::ok()
    );
    assert!(admin
        .cmd(&["CONFIG", "GET", "client-output-buffer-limit"])
        .array()[1]
        .text()
        .contains("pubsub 1048576 262144 60"));
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .write_all(&common::encode(&[b"SUBSCRIBE", b"flood"]))
        .unwrap();
    // Wait until the subscription is in place.
    let deadline = Instant::now() + Duration::from_secs(5);
    while admin.cmd(&["PUBSUB", "NUMSUB", "flood"]).array()[1] != Value::Int(1) {
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(10));
    }
    let payload = vec![b'x'; 64 * 1024];
    let mut delivered = 0;
    // Far more than the socket buffers and the hard limit together.
    for _ in 0..2000 {
        match admin.cmd_bytes(&[b"PUBLISH", b"flood", &payload]) {
            Value::Int(1) => delivered += 1,
            Value::Int(0) => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(delivered < 2000, "the subscriber was never cut off");
    assert_eq!(admin.cmd(&["PUBLISH", "flood", "x"]), Value::Int(0));
    let info = admin.cmd(&["INFO", "stats"]).text();
    assert!(
        info.contains("client_output_buffer_limit_disconnections:1"),
        "{info}"
    );
    drop(stream);
}

/// `timeout` closes idle clients but not subscribers (as in Redis).
#[test]
fn subscribers_are_exempt_from_the_idle_timeout() {
    let server = start();
    let mut admin = Client::connect(&server);
    assert_eq!(admin.cmd(&["CONFIG", "SET", "timeout", "1"]), Value::ok());
    let mut idle = Client::connect(&server);
    assert_eq!(idle.cmd(&["PING"]), Value::Simple("PONG".into()));
    let mut sub = Client::connect(&server);
    sub.cmd(&["SUBSCRIBE", "quiet"]);
    std::thread::sleep(Duration::from_millis(2500));
    assert!(idle.is_closed(), "an idle client outlived the timeout");
    let mut publisher = Client::connect(&server);
    assert_eq!(
        publisher.cmd(&["PUBLISH", "quiet", "still here"]),
        Value::Int(1)
    );
    assert_eq!(sub.read(), bulks(&["message", "quiet", "still here"]));
    assert!(admin.is_closed(), "idle too");
}
