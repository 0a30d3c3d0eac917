//! MULTI / EXEC / DISCARD / WATCH over TCP.

use crate::common;

use common::{start, Client, Value};

fn queued() -> Value {
    Value::Simple("QUEUED".into())
}

#[test]
fn multi_exec_runs_the_queue() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "k", "1"]), queued());
    assert_eq!(c.cmd(&["INCR", "k"]), queued());
    assert_eq!(c.cmd(&["SET", "k", "v", "FOO"]), queued()); // syntax errors surface at EXEC
    assert_eq!(c.cmd(&["GET", "k"]), queued());
    assert_eq!(c.cmd(&["PING"]), queued());
    assert_eq!(
        c.cmd(&["EXEC"]),
        Value::Array(vec![
            Value::ok(),
            Value::Int(2),
            Value::err("ERR syntax error"),
            Value::bulk("2"),
            Value::Simple("PONG".into()),
        ])
    );
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![]));
}

#[test]
fn transaction_errors() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["EXEC"]), Value::err("ERR EXEC without MULTI"));
    assert_eq!(c.cmd(&["DISCARD"]), Value::err("ERR DISCARD without MULTI"));
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(
        c.cmd(&["MULTI"]),
        Value::err("ERR MULTI calls can not be nested")
    );
    assert_eq!(
        c.cmd(&["WATCH", "a"]),
        Value::err("ERR WATCH inside MULTI is not allowed")
    );
    // Neither of those dooms the transaction.
    assert_eq!(c.cmd(&["SET", "a", "1"]), queued());
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::ok()]));

    // Unknown commands and arity errors do.
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "a", "2"]), queued());
    assert_eq!(
        c.cmd(&["SET", "a"]),
        Value::err("ERR wrong number of arguments for 'set' command")
    );
    assert_eq!(
        c.cmd(&["NOSUCH", "x"]),
        Value::err("ERR unknown command 'NOSUCH', with args beginning with: 'x' ")
    );
    assert_eq!(
        c.cmd(&["EXEC"]),
        Value::err("EXECABORT Transaction discarded because of previous errors.")
    );
    assert_eq!(c.cmd(&["GET", "a"]), Value::bulk("1"));

    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "a", "3"]), queued());
    assert_eq!(c.cmd(&["DISCARD"]), Value::ok());
    assert_eq!(c.cmd(&["GET", "a"]), Value::bulk("1"));
}

#[test]
fn watch_detects_a_change_by_another_connection() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut other = Client::connect(&server);
    c.cmd(&["SET", "balance", "10"]);
    assert_eq!(c.cmd(&["WATCH", "balance", "balance"]), Value::ok());
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["INCRBY", "balance", "5"]), queued());
    assert_eq!(other.cmd(&["SET", "balance", "100"]), Value::ok());
    assert_eq!(c.cmd(&["EXEC"]), Value::NullArray);
    assert_eq!(c.cmd(&["GET", "balance"]), Value::bulk("100"));

    // Watches are cleared by EXEC: the next transaction runs.
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["INCRBY", "balance", "5"]), queued());
    assert_eq!(other.cmd(&["SET", "balance", "200"]), Value::ok());
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::Int(205)]));

    // Unchanged watched keys let EXEC run.
    assert_eq!(c.cmd(&["WATCH", "balance"]), Value::ok());
    assert_eq!(other.cmd(&["GET", "balance"]), Value::bulk("205"));
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["DECR", "balance"]), queued());
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::Int(204)]));

    // UNWATCH forgets; DISCARD forgets.
    assert_eq!(c.cmd(&["WATCH", "balance"]), Value::ok());
    assert_eq!(c.cmd(&["UNWATCH"]), Value::ok());
    other.cmd(&["SET", "balance", "1"]);
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["GET", "balance"]), queued());
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::bulk("1")]));

    // A watched key that expires counts as changed.
    c.cmd(&["SETEX", "temp", "1", "v"]);
    assert_eq!(c.cmd(&["WATCH", "temp"]), Value::ok());
    server.clock.advance_ms(2000);
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "temp", "w"]), queued());
    assert_eq!(c.cmd(&["EXEC"]), Value::NullArray);

    // Watching a missing key that another client creates.
    assert_eq!(c.cmd(&["WATCH", "fresh"]), Value::ok());
    other.cmd(&["SET", "fresh", "x"]);
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["GET", "fresh"]), queued());
    assert_eq!(c.cmd(&["EXEC"]), Value::NullArray);
}

#[test]
fn aborted_exec_is_null_in_resp3() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut other = Client::connect(&server);
    assert!(matches!(c.cmd(&["HELLO", "3"]), Value::Map(_)));
    c.cmd(&["WATCH", "k"]);
    other.cmd(&["SET", "k", "x"]);
    c.cmd(&["MULTI"]);
    c.cmd(&["GET", "k"]);
    c.send(&[b"EXEC"]);
    c.expect_raw(b"_\r\n");
}

#[test]
fn exec_is_isolated_from_other_clients() {
    let server = start();
    let addr_server = &server;
    std::thread::scope(|scope| {
        // Two clients each run 200 transactions of 10 INCRs; inside each
        // EXEC the values it sees must be consecutive.
        let handles: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(move || {
                    let mut c = Client::connect(addr_server);
                    for _ in 0..200 {
                        c.cmd(&["MULTI"]);
                        for _ in 0..10 {
                            c.cmd(&["INCR", "counter"]);
                        }
                        let reply = c.cmd(&["EXEC"]);
                        let values: Vec<i64> = reply
                            .array()
                            .iter()
                            .map(|v| match v {
                                Value::Int(n) => *n,
                                other => panic!("{other:?}"),
                            })
                            .collect();
                        for pair in values.windows(2) {
                            assert_eq!(pair[1], pair[0] + 1, "interleaved: {values:?}");
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("client thread");
        }
    });
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["GET", "counter"]), Value::bulk("4000"));
}

#[test]
fn pipelined_transaction() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut batch = Vec::new();
    for args in [
        &[&b"MULTI"[..]][..],
        &[b"SET", b"p", b"1"],
        &[b"INCR", b"p"],
        &[b"EXEC"],
    ] {
        batch.extend(common::encode(args));
    }
    c.send_raw(&batch);
    c.expect_raw(b"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n:2\r\n");
}

/// Redis 7: a flush changes only the watched keys that existed, so a
/// transaction watching a missing key still runs; one watching an existing
/// key aborts.
#[test]
fn flush_aborts_only_watches_of_existing_keys() {
    let server = start();
    let mut c = Client::connect(&server);
    for flush in ["FLUSHALL", "FLUSHDB"] {
        assert_eq!(c.cmd(&["WATCH", "missing"]), Value::ok());
        assert_eq!(c.cmd(&[flush]), Value::ok());
        assert_eq!(c.cmd(&["MULTI"]), Value::ok());
        assert_eq!(c.cmd(&["PING"]), queued());
        assert_eq!(
            c.cmd(&["EXEC"]),
            Value::Array(vec![Value::Simple("PONG".into())]),
            "{flush}"
        );
        c.cmd(&["SET", "present", "1"]);
        assert_eq!(c.cmd(&["WATCH", "present"]), Value::ok());
        assert_eq!(c.cmd(&[flush]), Value::ok());
        assert_eq!(c.cmd(&["MULTI"]), Value::ok());
        assert_eq!(c.cmd(&["PING"]), queued());
        assert_eq!(c.cmd(&["EXEC"]), Value::NullArray, "{flush}");
    }
}

/// Atomicity with EXEC holding only its keys' shards: writers increment
/// pairs of keys in one transaction (some pairs overlapping), readers read
/// each pair in one transaction and must always see both equal; WATCH-based
/// increments lose no update; the final counts are exact.
#[test]
fn parallel_transactions_stay_atomic() {
    let server = start();
    let pairs = [("a", "b"), ("b", "c"), ("x", "y")];
    let rounds = 200;
    let mut threads = Vec::new();
    for (i, &(k1, k2)) in pairs.iter().enumerate() {
        let mut c = Client::connect(&server);
        threads.push(std::thread::spawn(move || {
            for _ in 0..rounds {
                c.cmd(&["MULTI"]);
                c.cmd(&["INCR", k1]);
                c.cmd(&["INCR", &format!("{k2}-mirror-{i}")]);
                c.cmd(&["INCR", &format!("{k1}-mirror-{i}")]);
                let reply = c.cmd(&["EXEC"]);
                assert_eq!(reply.array().len(), 3);
            }
        }));
    }
    for (i, &(k1, k2)) in pairs.iter().enumerate() {
        let mut c = Client::connect(&server);
        threads.push(std::thread::spawn(move || {
            for _ in 0..rounds {
                c.cmd(&["MULTI"]);
                c.cmd(&["GET", &format!("{k2}-mirror-{i}")]);
                c.cmd(&["GET", &format!("{k1}-mirror-{i}")]);
                let reply = c.cmd(&["EXEC"]);
                let values = reply.array();
                assert_eq!(values[0], values[1], "a transaction was seen half done");
            }
        }));
    }
    // Optimistic increments of one counter from two connections.
    for _ in 0..2 {
        let mut c = Client::connect(&server);
        threads.push(std::thread::spawn(move || {
            let mut done = 0;
            while done < 50 {
                c.cmd(&["WATCH", "cas"]);
                let current = match c.cmd(&["GET", "cas"]) {
                    Value::Bulk(b) => String::from_utf8(b).unwrap().parse::<i64>().unwrap(),
                    _ => 0,
                };
                c.cmd(&["MULTI"]);
                c.cmd(&["SET", "cas", &(current + 1).to_string()]);
                if c.cmd(&["EXEC"]) != Value::NullArray {
                    done += 1;
                }
            }
        }));
    }
    for thread in threads {
        thread.join().unwrap();
    }
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["GET", "a"]), Value::bulk(&rounds.to_string()));
    assert_eq!(c.cmd(&["GET", "b"]), Value::bulk(&rounds.to_string()));
    assert_eq!(c.cmd(&["GET", "x"]), Value::bulk(&rounds.to_string()));
    assert_eq!(c.cmd(&["GET", "cas"]), Value::bulk("100"));
    // A keyspace-wide command inside EXEC sees every shard.
    c.cmd(&["MULTI"]);
    c.cmd(&["DBSIZE"]);
    c.cmd(&["GET", "a"]);
    let reply = c.cmd(&["EXEC"]);
    let total = c.cmd(&["DBSIZE"]);
    assert_eq!(reply.array()[0], total);
    assert_eq!(total, Value::Int(10), "a b c x y cas and four mirrors");
}
