//! `LATENCY` over TCP: the monitor off at threshold 0, then `command`
//! events from a slow `EVAL` (`LATEST`, `HISTORY`, `GRAPH`, `DOCTOR`,
//! `RESET`), `LATENCY HISTOGRAM` from the per-command histograms, and
//! `HELP` and the errors as redis-server words them.

use std::time::{Duration, Instant};

use super::{int, pairs};
use crate::common::{start, Client, Value};

/// Runs an `EVAL` that spins for at least 5 ms (as the client measures
/// it, round trip included: longer loops until it does).
fn slow_eval(c: &mut Client) {
    let mut loops: u64 = 1_000_000;
    loop {
        let script = format!("local n = 0 for i = 1, {loops} do n = n + i end return 1");
        let started = Instant::now();
        assert_eq!(c.cmd(&["EVAL", &script, "0"]), Value::Int(1));
        if started.elapsed() >= Duration::from_millis(5) {
            return;
        }
        loops *= 4;
    }
}

#[test]
fn latency_monitor_off_records_nothing() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "latency-monitor-threshold"]),
        Value::Array(vec![
            Value::bulk("latency-monitor-threshold"),
            Value::bulk("0")
        ])
    );
    slow_eval(&mut c);
    assert_eq!(c.cmd(&["LATENCY", "LATEST"]), Value::Array(vec![]));
    assert_eq!(
        c.cmd(&["LATENCY", "HISTORY", "command"]),
        Value::Array(vec![])
    );
    assert_eq!(
        c.cmd(&["LATENCY", "DOCTOR"]),
        Value::bulk("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n")
    );
    assert_eq!(
        c.cmd(&["LATENCY", "GRAPH", "command"]),
        Value::err("ERR No samples available for event 'command'")
    );
    for (value, reason) in [
        (
            "-1",
            "argument must be between 0 and 9223372036854775807 inclusive",
        ),
        ("abc", "argument couldn't be parsed into an integer"),
        ("1.5", "argument couldn't be parsed into an integer"),
    ] {
        assert_eq!(
            c.cmd(&["CONFIG", "SET", "latency-monitor-threshold", value]),
            Value::err(&format!("ERR CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') - {reason}"))
        );
    }
}

#[test]
fn latency_monitor_records_slow_commands() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "latency-monitor-threshold", "1"]),
        Value::ok()
    );
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    slow_eval(&mut c);
    // Fast commands under the threshold are not events.
    c.cmd(&["GET", "k"]);
    let latest = c.cmd(&["LATENCY", "LATEST"]);
    let [entry] = latest.array() else {
        panic!("{latest:?}")
    };
    let entry = entry.array();
    assert_eq!(entry[0], Value::bulk("command"));
    let (time, latency, max) = (int(&entry[1]), int(&entry[2]), int(&entry[3]));
    assert!(time >= before && time <= before + 60, "{time}");
    assert!(latency >= 1 && max >= latency, "{latency} {max}");
    let history = c.cmd(&["LATENCY", "HISTORY", "command"]);
    let last = history.array().last().unwrap().array().to_vec();
    assert_eq!(last, [Value::Int(time), Value::Int(latency)]);
    // Event names match exactly here, in any case for RESET.
    assert_eq!(
        c.cmd(&["LATENCY", "HISTORY", "COMMAND"]),
        Value::Array(vec![])
    );
    let graph = c.cmd(&["LATENCY", "GRAPH", "command"]).text();
    assert!(
        graph.starts_with(&format!("command - high {latency} ms, low ")),
        "{graph}"
    );
    let doctor = c.cmd(&["LATENCY", "DOCTOR"]).text();
    assert!(doctor.starts_with("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n1. command: "), "{doctor}");
    assert!(doctor.contains("Please use 'CONFIG SET slowlog-log-slower-than 1000'."));
    c.cmd(&["HELLO", "3"]);
    assert!(matches!(
        c.cmd(&["LATENCY", "GRAPH", "command"]),
        Value::Verbatim(..)
    ));
    assert_eq!(
        c.cmd(&["LATENCY", "RESET", "nosuch", "COMMAND", "command"]),
        Value::Int(1)
    );
    assert_eq!(c.cmd(&["LATENCY", "LATEST"]), Value::Array(vec![]));
    assert_eq!(c.cmd(&["LATENCY", "RESET"]), Value::Int(0));
    // Off again: nothing more is recorded.
    c.cmd(&["CONFIG", "SET", "latency-monitor-threshold", "0"]);
    slow_eval(&mut c);
    assert_eq!(c.cmd(&["LATENCY", "LATEST"]), Value::Array(vec![]));
}

#[test]
fn latency_histogram_from_command_stats() {
    let server = start();
    let mut c = Client::connect(&server);
    for i in 0..10 {
        c.cmd(&["SET", &format!("k{i}"), "v"]);
    }
    c.cmd(&["GET", "k1"]);
    c.cmd(&["CONFIG", "GET", "timeout"]);
    let reply = c.cmd(&["LATENCY", "HISTOGRAM", "set", "nosuch"]);
    let set = pairs(&reply);
    assert_eq!(set.len(), 1);
    assert_eq!(set[0].0, "set");
    let body = pairs(&set[0].1);
    assert_eq!(body[0], ("calls".into(), Value::Int(10)));
    assert_eq!(body[1].0, "histogram_usec");
    let buckets: Vec<(i64, i64)> = match &body[1].1 {
        Value::Array(items) => items.chunks(2).map(|p| (int(&p[0]), int(&p[1]))).collect(),
        other => panic!("{other:?}"),
    };
    let levels = [
        1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908, 33816, 67633, 135266,
        270532, 541065, 1073741,
    ];
    assert!(
        buckets.iter().all(|(usec, _)| levels.contains(usec)),
        "{buckets:?}"
    );
    assert!(buckets
        .windows(2)
        .all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
    assert_eq!(buckets.last().map(|b| b.1), Some(10));
    // A container brings its subcommands; no argument, every command.
    let config: Vec<String> = pairs(&c.cmd(&["LATENCY", "HISTOGRAM", "CONFIG"]))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(config, ["config|get"]);
    let all: Vec<String> = pairs(&c.cmd(&["LATENCY", "HISTOGRAM"]))
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for name in ["set", "get", "config|get", "latency|histogram"] {
        assert!(all.iter().any(|n| n == name), "{name} in {all:?}");
    }
    assert_eq!(
        c.cmd(&["LATENCY", "HISTOGRAM", "nosuch"]),
        Value::Array(vec![])
    );
    c.cmd(&["HELLO", "3"]);
    let reply = c.cmd(&["LATENCY", "HISTOGRAM", "get"]);
    let Value::Map(entries) = &reply else {
        panic!("{reply:?}")
    };
    let Value::Map(body) = &entries[0].1 else {
        panic!("{reply:?}")
    };
    assert_eq!(body[0], (Value::bulk("calls"), Value::Int(1)));
    assert!(matches!(&body[1].1, Value::Map(b) if b.len() == 1));
    // CONFIG RESETSTAT empties the histograms, as Redis's.
    c.cmd(&["CONFIG", "RESETSTAT"]);
    assert_eq!(
        c.cmd(&["LATENCY", "HISTOGRAM", "set", "get"]),
        Value::Map(vec![])
    );
}

#[test]
fn latency_help_and_errors_as_redis_words_them() {
    let server = start();
    let mut c = Client::connect(&server);
    let help = c.cmd(&["LATENCY", "HELP"]);
    let lines: Vec<String> = help.array().iter().map(Value::text).collect();
    assert_eq!(lines.len(), 17);
    assert_eq!(
        lines[0],
        "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    );
    assert_eq!(lines[12], "HISTOGRAM [COMMAND ...]");
    assert_eq!(lines[15..], ["HELP", "    Print this help."]);
    assert_eq!(
        c.cmd(&["LATENCY"]),
        Value::err("ERR wrong number of arguments for 'latency' command")
    );
    assert_eq!(
        c.cmd(&["LATENCY", "foo"]),
        Value::err("ERR unknown subcommand 'foo'. Try LATENCY HELP.")
    );
    for (args, name) in [
        (&["LATENCY", "HISTORY"][..], "latency|history"),
        (&["LATENCY", "GRAPH"], "latency|graph"),
        (&["LATENCY", "LATEST", "x"], "latency|latest"),
        (&["LATENCY", "DOCTOR", "x"], "latency|doctor"),
        (&["LATENCY", "HELP", "x"], "latency|help"),
    ] {
        assert_eq!(
            c.cmd(args),
            Value::err(&format!(
                "ERR wrong number of arguments for '{name}' command"
            ))
        );
    }
    assert_eq!(
        c.cmd(&["LATENCY", "GRAPH", "nosuch"]),
        Value::err("ERR No samples available for event 'nosuch'")
    );
}
