//! Server commands over TCP: COMMAND, CONFIG and INFO.

use crate::common;

use common::{bulks, start, Client, Value};

#[test]
fn command_table() {
    let server = start();
    let mut c = Client::connect(&server);
    let count = match c.cmd(&["COMMAND", "COUNT"]) {
        Value::Int(n) => n as usize,
        other => panic!("{other:?}"),
    };
    let all = c.cmd(&["COMMAND"]);
    assert_eq!(all.array().len(), count);
    let info = c.cmd(&["COMMAND", "INFO", "get", "nosuch"]);
    let entries = info.array();
    let get = entries[0].array();
    assert_eq!(get[0], Value::bulk("get"));
    assert_eq!(get[1], Value::Int(2));
    assert_eq!(
        get[2],
        Value::Array(vec![
            Value::Simple("readonly".into()),
            Value::Simple("fast".into())
        ])
    );
    assert_eq!(&get[3..6], &[Value::Int(1), Value::Int(1), Value::Int(1)]);
    assert_eq!(get.len(), 10);
    assert_eq!(entries[1], Value::Null);
    let docs = c.cmd(&["COMMAND", "DOCS", "set"]);
    let docs = docs.array();
    assert_eq!(docs[0], Value::bulk("set"));
    assert_eq!(docs[1].array()[0], Value::bulk("summary"));
    let names = c.cmd(&["COMMAND", "LIST"]);
    assert!(names.array().contains(&Value::bulk("incrbyfloat")));
    assert_eq!(
        c.cmd(&["COMMAND", "foo"]),
        Value::err("ERR unknown subcommand 'foo'. Try COMMAND HELP.")
    );
}

#[test]
fn config_get_set() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "save", "appendonly"]),
        bulks(&["appendonly", "no", "save", ""])
    );
    let all = c.cmd(&["CONFIG", "GET", "*"]);
    assert_eq!(
        all.array().len(),
        66,
        "33 parameters, aclfile, slowlog-*, latency-monitor-threshold, notify-keyspace-events, hash-max-listpack-*, list-max-listpack-size, set-max-*, zset-max-listpack-*, the scripting and pub/sub ones, cluster-enabled, cluster-config-file, enable-debug-command and tracking-table-max-keys included"
    );
    assert_eq!(c.cmd(&["CONFIG", "GET", "MAXMEM*"]).array().len(), 8);
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "maxmemory-samples", "maxmemory-clients"]),
        bulks(&["maxmemory-clients", "0", "maxmemory-samples", "5"])
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "client-output-buffer-limit"]),
        bulks(&[
            "client-output-buffer-limit",
            "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
        ])
    );
    assert!(c
        .cmd(&[
            "CONFIG",
            "SET",
            "client-output-buffer-limit",
            "normal 1mb 0 0"
        ])
        .text()
        .starts_with("ERR CONFIG SET failed"));
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "lua-time-limit", "1000"]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "busy-reply-threshold"]),
        bulks(&["busy-reply-threshold", "1000"])
    );
    assert_eq!(c.cmd(&["CONFIG", "GET", "nothing"]), Value::Array(vec![]));
    assert_eq!(c.cmd(&["CONFIG", "SET", "maxmemory", "100mb"]), Value::ok());
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "maxmemory"]),
        bulks(&["maxmemory", "104857600"])
    );
    assert_eq!(server.keyspace.memory_limit(), 100 << 20);
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "maxmemory-policy", "noeviction"]),
        Value::ok()
    );
    assert_eq!(
        server.keyspace.eviction(),
        strata_kv::EvictionPolicy::NoEviction
    );
    assert_eq!(
        c.cmd(&[
            "CONFIG",
            "SET",
            "maxmemory-policy",
            "allkeys-lru",
            "maxclients",
            "10"
        ]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "maxmemory-policy"]),
        bulks(&["maxmemory-policy", "allkeys-lru"])
    );
    // Policies the engine does not have are refused, not run as CLOCK.
    for other in ["allkeys-lfu", "allkeys-random", "volatile-lru"] {
        assert_eq!(
            c.cmd(&["CONFIG", "SET", "maxmemory-policy", other]),
            Value::err("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: allkeys-lru, noeviction")
        );
    }
    assert_eq!(server.info.settings.max_connections(), 10);
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "foo", "1"]),
        Value::err("ERR Unknown option or number of arguments for CONFIG SET - 'foo'")
    );
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "maxmemory", "abc"]),
        Value::err("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value")
    );
    // All or nothing: a bad second pair leaves the first unapplied.
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "maxmemory", "1gb", "maxclients", "x"]),
        Value::err("ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer")
    );
    assert_eq!(server.keyspace.memory_limit(), 100 << 20);
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "maxmemory", "1", "maxmemory", "2"]),
        Value::err("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate parameter")
    );
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "databases", "16"]),
        Value::err("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config")
    );
    assert_eq!(c.cmd(&["CONFIG", "SET", "save", ""]), Value::ok());
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "maxmemory", "1", "maxclients"]),
        Value::err("ERR syntax error")
    );
    assert_eq!(c.cmd(&["CONFIG", "RESETSTAT"]), Value::ok());
    assert_eq!(
        c.cmd(&["CONFIG", "REWRITE"]),
        Value::err("ERR The server is running without a config file")
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET"]),
        Value::err("ERR wrong number of arguments for 'config|get' command")
    );
}

#[test]
fn info_sections() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SETEX", "a", "100", "1"]);
    c.cmd(&["SET", "b", "1"]);
    c.cmd(&["GET", "a"]);
    c.cmd(&["GET", "missing"]);
    let info = c.cmd(&["INFO"]).text();
    for field in [
        "# Server\r\n",
        "redis_version:7.2.0\r\n",
        "strata_version:0.1.0-test\r\n",
        // The binary's commit: whole, and in Redis's fields.
        &format!("strata_commit:{}\r\n", common::COMMIT),
        "redis_git_sha1:01234567\r\n",
        "redis_git_dirty:1\r\n",
        "redis_build_id:0123456789abcdef0123456789abcdef01234567\r\n",
        "redis_mode:standalone\r\n",
        "arch_bits:64\r\n",
        &format!("tcp_port:{}\r\n", server.addr.port()),
        "# Clients\r\nconnected_clients:1\r\n",
        "maxclients:64\r\n",
        "# Memory\r\nused_memory:",
        "maxmemory_policy:allkeys-lru\r\n",
        "# Persistence\r\nloading:0\r\n",
        "aof_enabled:0\r\n",
        "# Cache\r\ncache_bytes:0\r\n",
        "# Stats\r\n",
        "keyspace_hits:1\r\n",
        "keyspace_misses:1\r\n",
        "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n",
        "# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0\r\n",
    ] {
        assert!(info.contains(field), "missing {field:?} in\n{info}");
    }
    assert!(info.contains("total_commands_processed:"), "{info}");
    let only = c.cmd(&["INFO", "keyspace", "CLIENTS"]).text();
    assert!(only.starts_with("# Clients\r\n"), "{only}");
    assert!(only.contains("# Keyspace"));
    assert!(!only.contains("# Server"));
    assert_eq!(c.cmd(&["INFO", "nosuchsection"]), Value::bulk(""));
}

/// COMMAND GETKEYS, GETKEYSANDFLAGS and LIST FILTERBY as Redis 7.2
/// answers them (7.0 too, but for GETKEYS's arity).
#[test]
fn command_getkeys_and_list_filters() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "SET", "a", "b"]),
        bulks(&["a"])
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYSANDFLAGS", "MSET", "a", "1", "b", "2"]),
        Value::Array(vec![
            Value::Array(vec![
                Value::bulk("a"),
                Value::Array(vec![
                    Value::Simple("OW".into()),
                    Value::Simple("update".into())
                ])
            ]),
            Value::Array(vec![
                Value::bulk("b"),
                Value::Array(vec![
                    Value::Simple("OW".into()),
                    Value::Simple("update".into())
                ])
            ]),
        ])
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "EVAL", "x", "2", "k1", "k2", "a"]),
        bulks(&["k1", "k2"])
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "PING", "x"]),
        Value::err("ERR The command has no key arguments")
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "NOSUCH", "a"]),
        Value::err("ERR Invalid command specified")
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "GET", "a", "b"]),
        Value::err("ERR Invalid number of arguments specified for command")
    );
    // Redis 7.2's arity (-3): a command alone is looked at too.
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "GET"]),
        Value::err("ERR Invalid number of arguments specified for command")
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "PING"]),
        Value::err("ERR The command has no key arguments")
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS"]),
        Value::err("ERR wrong number of arguments for 'command|getkeys' command")
    );
    // Optional keys: none is an empty answer; mandatory ones an error.
    for words in [&["EVAL", "x", "0"][..], &["FCALL", "f", "0"]] {
        let mut full = vec!["COMMAND", "GETKEYS"];
        full.extend_from_slice(words);
        assert_eq!(c.cmd(&full), Value::Array(vec![]), "{words:?}");
    }
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "ZUNION", "0", "a"]),
        Value::err("ERR Invalid arguments specified for command")
    );
    assert_eq!(
        c.cmd(&["COMMAND", "GETKEYS", "SPUBLISH", "channel", "m"]),
        Value::err("ERR The command has no key arguments")
    );
    let clients = c.cmd(&["COMMAND", "LIST", "FILTERBY", "PATTERN", "client*"]);
    let names: Vec<String> = clients.array().iter().map(Value::text).collect();
    assert!(names.contains(&"client".to_string()));
    assert!(names.contains(&"client|list".to_string()));
    assert!(names.iter().all(|n| n.starts_with("client")));
    let scripting = c.cmd(&["COMMAND", "LIST", "FILTERBY", "ACLCAT", "scripting"]);
    let names: Vec<String> = scripting.array().iter().map(Value::text).collect();
    assert!(names.contains(&"eval".to_string()) && names.contains(&"script|kill".to_string()));
    assert!(!names.contains(&"get".to_string()));
    assert_eq!(
        c.cmd(&["COMMAND", "LIST", "FILTERBY", "MODULE", "x"]),
        Value::Array(vec![])
    );
    assert_eq!(
        c.cmd(&["COMMAND", "LIST", "FILTERBY", "BOGUS", "x"]),
        Value::err("ERR syntax error")
    );
    let all = c.cmd(&["COMMAND", "LIST"]).array().len() as i64;
    let count = match c.cmd(&["COMMAND", "COUNT"]) {
        Value::Int(n) => n,
        other => panic!("{other:?}"),
    };
    assert!(all > count, "subcommands are listed too");
}

/// `INFO errorstats`: error replies by code, in the default sections and
/// under `all`/`everything`, cleared by `CONFIG RESETSTAT`.
#[test]
fn info_errorstats() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "s", "x"]);
    c.cmd(&["INCR", "s"]);
    c.cmd(&["NOSUCH"]);
    c.cmd(&["EVALSHA", "0000000000000000000000000000000000000000", "0"]);
    let text = c.cmd(&["INFO", "errorstats"]).text();
    assert!(text.starts_with("# Errorstats\r\n"), "{text}");
    assert!(text.contains("errorstat_ERR:count=2\r\n"), "{text}");
    assert!(text.contains("errorstat_NOSCRIPT:count=1\r\n"), "{text}");
    for group in [&["INFO"][..], &["INFO", "all"], &["INFO", "everything"]] {
        assert!(c.cmd(group).text().contains("# Errorstats"), "{group:?}");
    }
    assert!(!c.cmd(&["INFO", "stats"]).text().contains("errorstat_"));
    c.cmd(&["CONFIG", "RESETSTAT"]);
    assert_eq!(c.cmd(&["INFO", "errorstats"]).text(), "# Errorstats\r\n");
}
