//! `SLOWLOG` and `INFO commandstats`/`latencystats` over raw TCP and with
//! the Rust `redis` crate: entries as Redis 7 returns them (argument
//! cutting, client address and name), `slowlog-max-len`, `RESET`,
//! `CONFIG SET`, and the per-command counts.

use crate::common;

use common::{bulks, start, Client, Value};

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        other => panic!("not an integer: {other:?}"),
    }
}

#[test]
fn every_command_is_logged_with_threshold_zero() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["SLOWLOG", "LEN"]), Value::Int(0));
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "slowlog-*"]),
        bulks(&["slowlog-log-slower-than", "10000", "slowlog-max-len", "128"])
    );
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "slowlog-log-slower-than", "0"]),
        Value::ok()
    );
    assert_eq!(c.cmd(&["CLIENT", "SETNAME", "tester"]), Value::ok());
    let long = "x".repeat(200);
    assert_eq!(c.cmd(&["SET", "k", &long]), Value::ok());
    let many: Vec<String> = (0..40).map(|i| format!("key{i}")).collect();
    let mut del = vec!["DEL"];
    del.extend(many.iter().map(String::as_str));
    assert_eq!(c.cmd(&del), Value::Int(0));

    let entries = c.cmd(&["SLOWLOG", "GET", "2"]);
    let entries = entries.array();
    assert_eq!(entries.len(), 2, "{entries:?}");
    // Newest first: DEL, then SET.
    let del_entry = entries[0].array();
    assert_eq!(del_entry.len(), 6);
    let set_entry = entries[1].array();
    assert_eq!(int(&del_entry[0]), int(&set_entry[0]) + 1, "ids increase");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!((now - int(&set_entry[1])).abs() < 60, "unix time");
    assert!(int(&set_entry[2]) >= 0, "microseconds");
    let args = del_entry[3].array();
    assert_eq!(args.len(), 32);
    assert_eq!(args[0], Value::bulk("DEL"));
    assert_eq!(args[30], Value::bulk("key29"));
    assert_eq!(args[31], Value::bulk("... (10 more arguments)"));
    let set_args = set_entry[3].array();
    let cut = format!("{}... (72 more bytes)", "x".repeat(128));
    assert_eq!(
        set_args,
        [Value::bulk("SET"), Value::bulk("k"), Value::bulk(&cut)]
    );
    let addr = set_entry[4].text();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    assert_eq!(set_entry[5], Value::bulk("tester"));

    // GET without a count returns at most 10; -1 all.
    for _ in 0..12 {
        c.cmd(&["PING"]);
    }
    assert_eq!(c.cmd(&["SLOWLOG", "GET"]).array().len(), 10);
    let all = int(&c.cmd(&["SLOWLOG", "LEN"]));
    assert!(all > 12, "{all}");
    // The LEN call itself was logged once it ran.
    assert_eq!(
        c.cmd(&["SLOWLOG", "GET", "-1"]).array().len() as i64,
        all + 1
    );
    assert_eq!(
        c.cmd(&["SLOWLOG", "GET", "-2"]),
        Value::err("ERR count should be greater than or equal to -1")
    );
    assert_eq!(
        c.cmd(&["SLOWLOG", "GET", "x"]),
        Value::err("ERR count should be greater than or equal to -1")
    );
    assert_eq!(c.cmd(&["SLOWLOG", "RESET"]), Value::ok());
    // The RESET itself is logged after it ran.
    assert_eq!(c.cmd(&["SLOWLOG", "LEN"]), Value::Int(1));
    let help = c.cmd(&["SLOWLOG", "HELP"]);
    assert!(help.array()[0].text().starts_with("SLOWLOG <subcommand>"));
    assert!(c
        .cmd(&["SLOWLOG", "NOPE"])
        .text()
        .contains("unknown subcommand"));
}

#[test]
fn max_len_bounds_the_log_and_negative_disables_it() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&[
        "CONFIG",
        "SET",
        "slowlog-log-slower-than",
        "0",
        "slowlog-max-len",
        "5",
    ]);
    for _ in 0..20 {
        c.cmd(&["PING"]);
    }
    assert_eq!(c.cmd(&["SLOWLOG", "LEN"]), Value::Int(5));
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "slowlog-max-len", "2"]),
        Value::ok()
    );
    assert_eq!(c.cmd(&["SLOWLOG", "LEN"]), Value::Int(2));
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "slowlog-max-len", "70000"]),
        Value::err("ERR CONFIG SET failed (possibly related to argument 'slowlog-max-len') - argument must be between 0 and 65536 inclusive")
    );
    assert!(c
        .cmd(&["CONFIG", "SET", "slowlog-log-slower-than", "-2"])
        .text()
        .contains("argument must be between -1"));
    c.cmd(&["CONFIG", "SET", "slowlog-log-slower-than", "-1"]);
    c.cmd(&["SLOWLOG", "RESET"]);
    for _ in 0..5 {
        c.cmd(&["PING"]);
    }
    assert_eq!(c.cmd(&["SLOWLOG", "LEN"]), Value::Int(0));
    // The default threshold (10 ms) logs none of these.
    c.cmd(&["CONFIG", "SET", "slowlog-log-slower-than", "10000"]);
    c.cmd(&["SET", "a", "b"]);
    assert_eq!(c.cmd(&["SLOWLOG", "LEN"]), Value::Int(0));
}

#[test]
fn secrets_are_redacted() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["CONFIG", "SET", "slowlog-log-slower-than", "0"]);
    c.cmd(&["CONFIG", "SET", "requirepass", "hunter2"]);
    c.cmd(&["AUTH", "hunter2"]);
    let entries = c.cmd(&["SLOWLOG", "GET", "2"]);
    let auth = entries.array()[0].array()[3].array().to_vec();
    assert_eq!(auth, [Value::bulk("AUTH"), Value::bulk("(redacted)")]);
    let config = entries.array()[1].array()[3].array().to_vec();
    assert_eq!(config[3], Value::bulk("(redacted)"));
}

#[test]
fn commandstats_count_calls_failures_and_refusals() {
    let server = start();
    let mut c = Client::connect(&server);
    for i in 0..7 {
        c.cmd(&["SET", &format!("k{i}"), "v"]);
    }
    for i in 0..5 {
        c.cmd(&["GET", &format!("k{i}")]);
    }
    c.cmd(&["GET"]);
    c.cmd(&["INCR", "k0"]);
    c.cmd(&["CONFIG", "GET", "maxmemory"]);
    let text = c.cmd(&["INFO", "commandstats"]).text();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("cmdstat_{name}:")))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
            .to_string()
    };
    assert!(text.starts_with("# Commandstats\r\n"), "{text}");
    assert!(
        line("set").starts_with("cmdstat_set:calls=7,usec="),
        "{text}"
    );
    assert!(line("set").ends_with(",rejected_calls=0,failed_calls=0"));
    assert!(line("get").starts_with("cmdstat_get:calls=5,"));
    assert!(line("get").ends_with(",rejected_calls=1,failed_calls=0"));
    assert!(line("incr").ends_with(",rejected_calls=0,failed_calls=1"));
    assert!(line("config|get").starts_with("cmdstat_config|get:calls=1,"));
    let default = c.cmd(&["INFO"]).text();
    assert!(!default.contains("cmdstat_"), "not in the default sections");
    let everything = c.cmd(&["INFO", "everything"]).text();
    assert!(everything.contains("# Latencystats\r\nlatency_percentiles_usec_"));
    let latency = c.cmd(&["INFO", "latencystats"]).text();
    let set = latency
        .lines()
        .find(|l| l.starts_with("latency_percentiles_usec_set:"))
        .expect("set latency");
    assert!(
        set.contains(":p50=") && set.contains(",p99=") && set.contains(",p99.9="),
        "{set}"
    );
    assert_eq!(c.cmd(&["CONFIG", "RESETSTAT"]), Value::ok());
    let after = c.cmd(&["INFO", "commandstats"]).text();
    assert!(!after.contains("cmdstat_set"), "{after}");
}

#[test]
fn the_redis_crate_reads_slowlog_entries() {
    let server = start();
    let url = format!("redis://127.0.0.1:{}/", server.addr.port());
    let mut con = redis::Client::open(url).unwrap().get_connection().unwrap();
    let () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("slowlog-log-slower-than")
        .arg(0)
        .query(&mut con)
        .unwrap();
    let () = redis::cmd("SET")
        .arg("key")
        .arg("value")
        .query(&mut con)
        .unwrap();
    type Entry = (i64, i64, i64, Vec<String>, String, String);
    let entries: Vec<Entry> = redis::cmd("SLOWLOG")
        .arg("GET")
        .arg(1)
        .query(&mut con)
        .unwrap();
    assert_eq!(entries.len(), 1);
    let (_, _, _, args, addr, name) = &entries[0];
    assert_eq!(args, &["SET", "key", "value"]);
    assert!(addr.starts_with("127.0.0.1:"));
    assert_eq!(name, "");
    let len: i64 = redis::cmd("SLOWLOG").arg("LEN").query(&mut con).unwrap();
    assert!(len >= 2);
    let () = redis::cmd("SLOWLOG").arg("RESET").query(&mut con).unwrap();
    let max: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("slowlog-max-len")
        .query(&mut con)
        .unwrap();
    assert_eq!(max, ["slowlog-max-len", "128"]);
}
