//! Connection commands over TCP: PING, ECHO, SELECT, TIME, QUIT, AUTH,
//! HELLO and CLIENT.

use crate::common;

use common::{start, start_with, Client, Value};
use strata_kv::KeyspaceConfig;

#[test]
fn ping_echo_select_time_quit() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
    assert_eq!(c.cmd(&["ping", "hi"]), Value::bulk("hi"));
    assert_eq!(
        c.cmd(&["PING", "a", "b"]),
        Value::err("ERR wrong number of arguments for 'ping' command")
    );
    assert_eq!(c.cmd(&["ECHO", "x y"]), Value::bulk("x y"));
    assert_eq!(c.cmd(&["SELECT", "0"]), Value::ok());
    assert_eq!(
        c.cmd(&["SELECT", "1"]),
        Value::err("ERR DB index is out of range")
    );
    assert_eq!(
        c.cmd(&["SELECT", "x"]),
        Value::err("ERR value is not an integer or out of range")
    );
    let time = c.cmd(&["TIME"]);
    let parts = time.array();
    assert_eq!(parts[0].text(), (common::T0_MS / 1000).to_string());
    assert_eq!(parts[1].text(), "0");
    assert_eq!(c.cmd(&["QUIT"]), Value::ok());
    assert!(c.is_closed());
}

#[test]
fn auth_and_noauth() {
    let server = start_with(
        KeyspaceConfig {
            shards: 4,
            ..KeyspaceConfig::default()
        },
        Some("sekret"),
    );
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["GET", "a"]),
        Value::err("NOAUTH Authentication required.")
    );
    // Unknown commands and arity are checked first, as in Redis.
    assert_eq!(
        c.cmd(&["foo"]),
        Value::err("ERR unknown command 'foo', with args beginning with: ")
    );
    assert_eq!(
        c.cmd(&["GET"]),
        Value::err("ERR wrong number of arguments for 'get' command")
    );
    assert_eq!(
        c.cmd(&["HELLO", "3"]),
        Value::err("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
    );
    let wrongpass = Value::err("WRONGPASS invalid username-password pair or user is disabled.");
    assert_eq!(c.cmd(&["AUTH", "nope"]), wrongpass);
    assert_eq!(c.cmd(&["AUTH", "bob", "sekret"]), wrongpass);
    assert_eq!(
        c.cmd(&["AUTH", "a", "b", "c"]),
        Value::err("ERR syntax error")
    );
    assert_eq!(c.cmd(&["AUTH", "sekret"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "a", "1"]), Value::ok());

    // Unauthenticated clients get Redis's tighter request limits.
    let mut d = Client::connect(&server);
    d.send_raw(b"*20\r\n");
    d.expect_raw(b"-ERR Protocol error: unauthenticated multibulk length\r\n");
    assert!(d.is_closed());

    let mut e = Client::connect(&server);
    assert_eq!(e.cmd(&["AUTH", "default", "sekret"]), Value::ok());
    assert_eq!(e.cmd(&["GET", "a"]), Value::bulk("1"));
    let mut f = Client::connect(&server);
    let hello = f.cmd(&["HELLO", "3", "AUTH", "default", "sekret", "SETNAME", "me"]);
    assert!(matches!(hello, Value::Map(_)), "{hello:?}");
    assert_eq!(f.cmd(&["CLIENT", "GETNAME"]), Value::bulk("me"));
    // RESET deauthenticates when a password is set.
    assert_eq!(f.cmd(&["RESET"]), Value::Simple("RESET".into()));
    assert_eq!(
        f.cmd(&["GET", "a"]),
        Value::err("NOAUTH Authentication required.")
    );
    assert_eq!(f.cmd(&["QUIT"]), Value::ok());

    // Removing the password opens the server to everyone.
    assert_eq!(c.cmd(&["CONFIG", "SET", "requirepass", ""]), Value::ok());
    let mut g = Client::connect(&server);
    assert_eq!(g.cmd(&["GET", "a"]), Value::bulk("1"));
    assert_eq!(
        g.cmd(&["AUTH", "x"]),
        Value::err("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
    );
    assert_eq!(g.cmd(&["AUTH", "default", "anything"]), Value::ok());
}

#[test]
fn hello_replies() {
    let server = start();
    let mut c = Client::connect(&server);
    let id = match c.cmd(&["CLIENT", "ID"]) {
        Value::Int(id) => id,
        other => panic!("{other:?}"),
    };
    let hello2 = c.cmd(&["HELLO", "2"]);
    let expected2 = Value::Array(vec![
        Value::bulk("server"),
        Value::bulk("redis"),
        Value::bulk("version"),
        Value::bulk("7.2.0"),
        Value::bulk("proto"),
        Value::Int(2),
        Value::bulk("id"),
        Value::Int(id),
        Value::bulk("mode"),
        Value::bulk("standalone"),
        Value::bulk("role"),
        Value::bulk("master"),
        Value::bulk("modules"),
        Value::Array(vec![]),
    ]);
    assert_eq!(hello2, expected2);
    let Value::Map(pairs) = c.cmd(&["HELLO", "3"]) else {
        panic!("not a map")
    };
    assert_eq!(pairs.len(), 7);
    assert_eq!(pairs[2], (Value::bulk("proto"), Value::Int(3)));
    // RESP3 encodings.
    c.send(&[b"GET", b"missing"]);
    c.expect_raw(b"_\r\n");
    c.send(&[b"CONFIG", b"GET", b"maxmemory-policy"]);
    c.expect_raw(b"%1\r\n$16\r\nmaxmemory-policy\r\n$11\r\nallkeys-lru\r\n");
    let info = c.cmd(&["INFO", "server"]);
    assert!(
        matches!(&info, Value::Verbatim(f, _) if f == "txt"),
        "{info:?}"
    );
    assert!(matches!(c.cmd(&["HELLO"]), Value::Map(_)));
    assert_eq!(
        c.cmd(&["HELLO", "4"]),
        Value::err("NOPROTO unsupported protocol version")
    );
    assert_eq!(
        c.cmd(&["HELLO", "x"]),
        Value::err("ERR Protocol version is not an integer or out of range")
    );
    assert_eq!(
        c.cmd(&["HELLO", "3", "foo"]),
        Value::err("ERR Syntax error in HELLO option 'foo'")
    );
    assert_eq!(
        c.cmd(&["HELLO", "2", "AUTH", "default"]),
        Value::err("ERR Syntax error in HELLO option 'AUTH'")
    );
    assert_eq!(
        c.cmd(&["HELLO", "2", "SETNAME", "a b"]),
        Value::err("ERR Client names cannot contain spaces, newlines or special characters.")
    );
    assert!(matches!(c.cmd(&["HELLO", "2"]), Value::Array(_)));
    c.send(&[b"GET", b"missing"]);
    c.expect_raw(b"$-1\r\n");
}

#[test]
fn client_subcommands() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut other = Client::connect(&server);
    assert_eq!(c.cmd(&["CLIENT", "GETNAME"]), Value::Null);
    assert_eq!(c.cmd(&["CLIENT", "SETNAME", "worker-1"]), Value::ok());
    assert_eq!(c.cmd(&["CLIENT", "GETNAME"]), Value::bulk("worker-1"));
    assert_eq!(
        c.cmd(&["CLIENT", "SETNAME", "a b"]),
        Value::err("ERR Client names cannot contain spaces, newlines or special characters.")
    );
    assert_eq!(
        c.cmd(&["CLIENT", "SETINFO", "lib-name", "redis-py"]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["CLIENT", "SETINFO", "LIB-VER", "5.0.0"]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["CLIENT", "SETINFO", "foo", "x"]),
        Value::err("ERR Unrecognized option 'foo'")
    );
    let info = c.cmd(&["CLIENT", "INFO"]).text();
    assert!(info.contains("name=worker-1"), "{info}");
    assert!(
        info.contains("redir=-1 resp=2 lib-name=redis-py lib-ver=5.0.0"),
        "{info}"
    );
    assert!(info.ends_with('\n'));
    other.cmd(&["MULTI"]);
    let list = c.cmd(&["CLIENT", "LIST"]).text();
    assert_eq!(list.lines().count(), 2, "{list}");
    assert!(list.contains("flags=x"), "{list}");
    assert!(list.contains("cmd=client|list"), "{list}");
    let id = match c.cmd(&["CLIENT", "ID"]) {
        Value::Int(id) => id,
        other => panic!("{other:?}"),
    };
    let mine = c.cmd(&["CLIENT", "LIST", "ID", &id.to_string()]).text();
    assert_eq!(mine.lines().count(), 1);
    assert_eq!(
        c.cmd(&["CLIENT", "LIST", "TYPE", "pubsub"]),
        Value::bulk("")
    );
    assert_eq!(
        c.cmd(&["CLIENT", "LIST", "TYPE", "foo"]),
        Value::err("ERR Unknown client type 'foo'")
    );
    assert_eq!(
        c.cmd(&["CLIENT", "LIST", "ID", "x"]),
        Value::err("ERR Invalid client ID")
    );
    assert_eq!(
        c.cmd(&["CLIENT", "LIST", "foo"]),
        Value::err("ERR syntax error")
    );
    assert_eq!(
        c.cmd(&["CLIENT", "foo"]),
        Value::err("ERR unknown subcommand 'foo'. Try CLIENT HELP.")
    );
    assert_eq!(
        c.cmd(&["CLIENT"]),
        Value::err("ERR wrong number of arguments for 'client' command")
    );
    assert_eq!(
        c.cmd(&["CLIENT", "SETNAME"]),
        Value::err("ERR wrong number of arguments for 'client|setname' command")
    );
    assert!(!c.cmd(&["CLIENT", "HELP"]).array().is_empty());
}

/// CLIENT LIST/INFO buffer fields in Redis 7's order, with values from the
/// connection's real buffers and state.
#[test]
fn client_list_buffer_fields() {
    let server = start();
    let mut c = Client::connect(&server);
    let info = c.cmd(&["CLIENT", "INFO"]).text();
    let fields: Vec<&str> = info
        .split_whitespace()
        .map(|f| f.split('=').next().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "id",
            "addr",
            "laddr",
            "fd",
            "name",
            "age",
            "idle",
            "flags",
            "db",
            "sub",
            "psub",
            "ssub",
            "multi",
            "qbuf",
            "qbuf-free",
            "argv-mem",
            "multi-mem",
            "rbs",
            "rbp",
            "obl",
            "oll",
            "omem",
            "tot-mem",
            "events",
            "cmd",
            "user",
            "redir",
            "resp",
            "lib-name",
            "lib-ver"
        ]
    );
    let value = |line: &str, field: &str| -> i64 {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(&format!("{field}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{field} in {line}"))
    };
    assert!(value(&info, "fd") > 2, "{info}");
    // The CLIENT INFO request itself was in the query buffer.
    assert_eq!(value(&info, "qbuf"), 26, "{info}");
    assert_eq!(value(&info, "argv-mem"), 10, "{info}");
    assert!(value(&info, "rbs") >= 26 && value(&info, "tot-mem") >= value(&info, "rbs"));

    let mut queued = Client::connect(&server);
    queued.cmd(&["MULTI"]);
    queued.cmd(&["SET", "k", "v"]);
    let mut sub = Client::connect(&server);
    sub.cmd(&["SUBSCRIBE", "a", "b"]);
    sub.read();
    let list = c.cmd(&["CLIENT", "LIST"]).text();
    let line_of = |id_line: &str| {
        list.lines()
            .find(|l| l.contains(id_line))
            .unwrap()
            .to_string()
    };
    let queued_line = line_of("multi=1");
    assert!(value(&queued_line, "multi-mem") > 0, "{queued_line}");
    let sub_line = line_of("flags=P");
    assert_eq!(value(&sub_line, "sub"), 2, "{sub_line}");
    assert_eq!(value(&sub_line, "argv-mem"), 0, "{sub_line}");
    let pubsub = c.cmd(&["CLIENT", "LIST", "TYPE", "pubsub"]).text();
    assert_eq!(pubsub.lines().count(), 1, "{pubsub}");
    let normal = c.cmd(&["CLIENT", "LIST", "TYPE", "normal"]).text();
    assert_eq!(normal.lines().count(), 2, "{normal}");
}
