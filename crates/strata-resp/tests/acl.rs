//! ACL users over raw RESP: rules, authentication, command and key
//! permissions with Redis 7.2's error texts, `ACL GETUSER`/`LIST`/`CAT`/
//! `DRYRUN`/`LOG`, and the command table's key specifications agreeing
//! with what ACLs enforce.

use crate::common;

use common::{bulks, start, start_with, Client, Value};
use strata_kv::KeyspaceConfig;

/// Field `name` of a RESP2 map (a flat array of pairs).
fn field<'a>(map: &'a Value, name: &str) -> &'a Value {
    let items = map.array();
    let at = items
        .chunks(2)
        .position(|pair| pair[0] == Value::bulk(name))
        .unwrap_or_else(|| panic!("no field {name} in {map:?}"));
    &items[at * 2 + 1]
}

fn noperm_cmd(user: &str, command: &str) -> Value {
    Value::err(&format!(
        "NOPERM User {user} has no permissions to run the '{command}' command"
    ))
}

fn noperm_key() -> Value {
    Value::err("NOPERM No permissions to access a key")
}

/// An admin connection and a connection authenticated as `alice` with
/// `rules`.
fn alice(rules: &[&str]) -> (common::Server, Client, Client) {
    let server = start();
    let mut admin = Client::connect(&server);
    let mut setuser = vec!["ACL", "SETUSER", "alice", "on", ">pw"];
    setuser.extend_from_slice(rules);
    assert_eq!(admin.cmd(&setuser), Value::ok());
    let mut alice = Client::connect(&server);
    assert_eq!(alice.cmd(&["AUTH", "alice", "pw"]), Value::ok());
    (server, admin, alice)
}

#[test]
fn commands_and_keys_are_checked() {
    let (_server, mut admin, mut c) = alice(&["~cache:*", "+@read", "+set", "+mset", "+rename"]);
    assert_eq!(c.cmd(&["SET", "cache:1", "x"]), Value::ok());
    assert_eq!(c.cmd(&["GET", "cache:1"]), Value::bulk("x"));
    assert_eq!(c.cmd(&["SET", "other", "1"]), noperm_key());
    assert_eq!(c.cmd(&["GET", "other"]), noperm_key());
    assert_eq!(c.cmd(&["DEL", "cache:1"]), noperm_cmd("alice", "del"));
    assert_eq!(c.cmd(&["MSET", "cache:a", "1", "other", "2"]), noperm_key());
    assert_eq!(
        c.cmd(&["MSET", "cache:a", "other", "cache:b", "x"]),
        Value::ok()
    );
    assert_eq!(c.cmd(&["RENAME", "cache:a", "other"]), noperm_key());
    assert_eq!(c.cmd(&["ACL", "WHOAMI"]), noperm_cmd("alice", "acl|whoami"));
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "port"]),
        noperm_cmd("alice", "config|get")
    );
    // KEYS and SCAN go by category; their patterns are not keys.
    assert_eq!(c.cmd(&["KEYS", "other*"]), Value::Array(vec![]));
    assert_eq!(c.cmd(&["SCAN", "0", "MATCH", "other*"]).array().len(), 2);
    // Unknown commands and wrong arity are answered before permissions.
    assert!(c.cmd(&["NOSUCH"]).text().starts_with("ERR unknown command"));
    assert_eq!(
        c.cmd(&["CONFIG", "GET"]),
        Value::err("ERR wrong number of arguments for 'config|get' command")
    );
    assert_eq!(
        admin.cmd(&["GET", "other"]),
        Value::Null,
        "nothing was written"
    );
}

#[test]
fn read_and_write_key_patterns() {
    let (_server, mut admin, mut c) = alice(&["+@all", "%R~r:*", "%W~w:*"]);
    assert_eq!(admin.cmd(&["SET", "r:1", "x"]), Value::ok());
    assert_eq!(c.cmd(&["GET", "r:1"]), Value::bulk("x"));
    assert_eq!(c.cmd(&["SET", "r:1", "y"]), noperm_key());
    assert_eq!(c.cmd(&["SET", "w:1", "y"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "w:1", "z", "GET"]), noperm_key());
    assert_eq!(c.cmd(&["GET", "w:1"]), noperm_key());
    assert_eq!(c.cmd(&["EXISTS", "r:1", "w:1"]), Value::Int(2));
    assert_eq!(c.cmd(&["DEL", "w:1"]), Value::Int(1));
    // A script's keys are checked before it runs, as Redis checks them:
    // EVAL's as read and written, EVAL_RO's as read.
    let script = "return 1";
    assert_eq!(c.cmd(&["EVAL", script, "1", "r:1"]), noperm_key());
    assert_eq!(c.cmd(&["EVAL", script, "1", "other"]), noperm_key());
    assert_eq!(c.cmd(&["EVAL_RO", script, "1", "r:1"]), Value::Int(1));
    assert_eq!(c.cmd(&["EVAL_RO", script, "1", "w:1"]), noperm_key());
    assert_eq!(c.cmd(&["FCALL", "nosuch", "1", "other"]), noperm_key());
    assert_eq!(c.cmd(&["EVAL", script, "0", "other"]), Value::Int(1));
    // HKEYS reads (Redis's RO+ACCESS).
    assert_eq!(c.cmd(&["HKEYS", "w:1"]), noperm_key());
}

#[test]
fn authentication() {
    let server = start_with(KeyspaceConfig::default(), Some("sekret"));
    let mut admin = Client::connect(&server);
    assert_eq!(
        admin.cmd(&["GET", "k"]),
        Value::err("NOAUTH Authentication required.")
    );
    assert_eq!(admin.cmd(&["AUTH", "sekret"]), Value::ok());
    assert_eq!(admin.cmd(&["ACL", "WHOAMI"]), Value::bulk("default"));
    assert_eq!(
        admin.cmd(&["ACL", "SETUSER", "bob", "on", "nopass", "+@all", "~*"]),
        Value::ok()
    );
    let wrongpass = Value::err("WRONGPASS invalid username-password pair or user is disabled.");
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["AUTH", "nosuch", "x"]), wrongpass);
    assert_eq!(c.cmd(&["AUTH", "default", "bad"]), wrongpass);
    assert_eq!(c.cmd(&["AUTH", "bob", "anything"]), Value::ok());
    assert_eq!(c.cmd(&["ACL", "WHOAMI"]), Value::bulk("bob"));
    // A failed AUTH keeps the current user.
    assert_eq!(c.cmd(&["AUTH", "default", "bad"]), wrongpass);
    assert_eq!(c.cmd(&["ACL", "WHOAMI"]), Value::bulk("bob"));
    let list = c.cmd(&["CLIENT", "INFO"]).text();
    assert!(list.contains(" user=bob "), "{list}");
    // HELLO AUTH with a user, and a disabled user.
    let mut h = Client::connect(&server);
    let hello = h.cmd(&["HELLO", "2", "AUTH", "bob", "x"]);
    assert_eq!(field(&hello, "proto"), &Value::Int(2));
    assert_eq!(admin.cmd(&["ACL", "SETUSER", "bob", "off"]), Value::ok());
    let mut d = Client::connect(&server);
    assert_eq!(d.cmd(&["HELLO", "3", "AUTH", "bob", "x"]), wrongpass);
    // As in Redis, disabling a user leaves its connections running.
    assert_eq!(h.cmd(&["PING"]), Value::Simple("PONG".into()));
    // RESET goes back to the default user, unauthenticated.
    assert_eq!(h.cmd(&["RESET"]), Value::Simple("RESET".into()));
    assert_eq!(
        h.cmd(&["ACL", "WHOAMI"]),
        Value::err("NOAUTH Authentication required.")
    );
    // requirepass is the default user's password.
    assert_eq!(
        admin.cmd(&["CONFIG", "SET", "requirepass", "other"]),
        Value::ok()
    );
    assert_eq!(h.cmd(&["AUTH", "sekret"]), wrongpass);
    assert_eq!(h.cmd(&["AUTH", "default", "other"]), Value::ok());
    let getuser = admin.cmd(&["ACL", "GETUSER", "default"]);
    assert_eq!(field(&getuser, "flags"), &bulks(&["on"]));
    assert_eq!(field(&getuser, "passwords").array().len(), 1);
}

#[test]
fn user_management_replies() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["ACL", "LIST"]),
        bulks(&["user default on nopass ~* &* +@all"])
    );
    assert_eq!(
        c.cmd(&[
            "ACL", "SETUSER", "alice", "on", ">pw", "~cache:*", "%R~r:*", "&chan", "+@read", "+set"
        ]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["ACL", "LIST"]),
        bulks(&[
            "user alice on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 \
             ~cache:* %R~r:* resetchannels &chan -@all +@read +set",
            "user default on nopass ~* &* +@all",
        ])
    );
    let user = c.cmd(&["ACL", "GETUSER", "alice"]);
    assert_eq!(field(&user, "commands"), &Value::bulk("-@all +@read +set"));
    assert_eq!(field(&user, "keys"), &Value::bulk("~cache:* %R~r:*"));
    assert_eq!(field(&user, "channels"), &Value::bulk("&chan"));
    assert_eq!(field(&user, "selectors"), &Value::Array(vec![]));
    assert_eq!(c.cmd(&["ACL", "GETUSER", "nosuch"]), Value::Null);
    assert_eq!(c.cmd(&["ACL", "USERS"]), bulks(&["alice", "default"]));
    assert_eq!(
        c.cmd(&["ACL", "SETUSER", "alice", "off", "+nosuch"]),
        Value::err(
            "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL"
        )
    );
    assert_eq!(
        c.cmd(&["ACL", "SETUSER", "a b", "on"]),
        Value::err("ERR Usernames can't contain spaces or null characters")
    );
    assert_eq!(
        c.cmd(&["ACL", "DELUSER", "alice", "default"]),
        Value::err("ERR The 'default' user cannot be removed")
    );
    assert_eq!(c.cmd(&["ACL", "DELUSER", "alice", "nosuch"]), Value::Int(1));
    assert_eq!(c.cmd(&["ACL", "GENPASS"]).text().len(), 64);
    assert_eq!(c.cmd(&["ACL", "GENPASS", "10"]).text().len(), 3);
    assert_eq!(
        c.cmd(&["ACL", "GENPASS", "5000"]),
        Value::err("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
    );
    assert_eq!(
        c.cmd(&["ACL", "LOAD"]).text(),
        "ERR This Redis instance is not configured to use an ACL file. You may want to specify \
         users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a \
         Redis configuration file set) in order to store users in the Redis configuration."
    );
    assert_eq!(
        c.cmd(&["ACL", "CAT", "a", "b"]),
        Value::err("ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP.")
    );
}

#[test]
fn categories_agree_with_the_command_table() {
    let server = start();
    let mut c = Client::connect(&server);
    let categories = c.cmd(&["ACL", "CAT"]);
    assert_eq!(categories.array().len(), 21);
    assert_eq!(categories.array()[0], Value::bulk("keyspace"));
    let string = c.cmd(&["ACL", "CAT", "STRING"]);
    for spec in c.cmd(&["COMMAND", "INFO", "get", "set", "del"]).array() {
        let info = spec.array();
        let name = info[0].clone();
        let in_string = info[6].array().contains(&Value::Simple("@string".into()));
        assert_eq!(string.array().contains(&name), in_string, "{name:?}");
    }
    assert!(c
        .cmd(&["ACL", "CAT", "admin"])
        .array()
        .contains(&Value::bulk("config|set")));
    assert!(c
        .cmd(&["ACL", "CAT", "hash"])
        .array()
        .contains(&Value::bulk("hset")));
    // Redis 7.0.15's list, subcommands included (order aside).
    let mut stream: Vec<String> = c
        .cmd(&["ACL", "CAT", "stream"])
        .array()
        .iter()
        .map(Value::text)
        .collect();
    stream.sort();
    let redis = "xack xadd xautoclaim xclaim xdel xgroup|create xgroup|createconsumer \
        xgroup|delconsumer xgroup|destroy xgroup|help xgroup|setid xinfo|consumers xinfo|groups \
        xinfo|help xinfo|stream xlen xpending xrange xread xreadgroup xrevrange xsetid xtrim";
    assert_eq!(stream, redis.split_whitespace().collect::<Vec<_>>());
    assert_eq!(
        c.cmd(&["ACL", "CAT", "nosuch"]),
        Value::err("ERR Unknown category 'nosuch'")
    );
    // COMMAND INFO reports the key specifications ACLs use.
    let info = c.cmd(&["COMMAND", "INFO", "rename"]);
    let specs = info.array()[0].array()[8].array();
    assert_eq!(specs.len(), 2);
    assert_eq!(
        field(&specs[0], "flags"),
        &Value::Array(vec![
            Value::Simple("RW".into()),
            Value::Simple("access".into()),
            Value::Simple("delete".into()),
        ])
    );
    assert_eq!(
        field(field(&specs[1], "begin_search"), "spec"),
        &Value::Array(vec![Value::bulk("index"), Value::Int(2),])
    );
}

#[test]
fn dryrun_and_log() {
    let (_server, mut admin, mut c) = alice(&["~cache:*", "+@read"]);
    let dry = |admin: &mut Client, args: &[&str]| {
        let mut full = vec!["ACL", "DRYRUN"];
        full.extend_from_slice(args);
        admin.cmd(&full)
    };
    assert_eq!(dry(&mut admin, &["alice", "get", "cache:1"]), Value::ok());
    assert_eq!(
        dry(&mut admin, &["alice", "get", "other"]),
        Value::bulk("User alice has no permissions to access the 'other' key")
    );
    assert_eq!(
        dry(&mut admin, &["alice", "del", "cache:1"]),
        Value::bulk("User alice has no permissions to run the 'del' command")
    );
    assert_eq!(
        dry(&mut admin, &["nouser", "get", "x"]),
        Value::err("ERR User 'nouser' not found")
    );
    assert_eq!(
        dry(&mut admin, &["alice", "nocmd"]),
        Value::err("ERR Command 'nocmd' not found")
    );
    assert_eq!(
        dry(&mut admin, &["alice", "get"]),
        Value::err("ERR wrong number of arguments for 'get' command")
    );
    assert_eq!(
        admin.cmd(&["ACL", "LOG"]),
        Value::Array(vec![]),
        "DRYRUN logs nothing"
    );

    assert_eq!(c.cmd(&["GET", "other"]), noperm_key());
    assert_eq!(c.cmd(&["GET", "other"]), noperm_key());
    assert_eq!(c.cmd(&["DEL", "x"]), noperm_cmd("alice", "del"));
    assert!(c
        .cmd(&["AUTH", "alice", "bad"])
        .text()
        .starts_with("WRONGPASS"));
    let log = admin.cmd(&["ACL", "LOG"]);
    let entries = log.array();
    assert_eq!(entries.len(), 3);
    assert_eq!(field(&entries[0], "reason"), &Value::bulk("auth"));
    assert_eq!(field(&entries[0], "object"), &Value::bulk("AUTH"));
    assert_eq!(field(&entries[1], "reason"), &Value::bulk("command"));
    assert_eq!(field(&entries[1], "object"), &Value::bulk("del"));
    assert_eq!(field(&entries[2], "reason"), &Value::bulk("key"));
    assert_eq!(field(&entries[2], "object"), &Value::bulk("other"));
    assert_eq!(field(&entries[2], "count"), &Value::Int(2));
    assert_eq!(field(&entries[2], "username"), &Value::bulk("alice"));
    assert_eq!(field(&entries[2], "context"), &Value::bulk("toplevel"));
    assert!(field(&entries[2], "client-info")
        .text()
        .contains("user=alice"));
    assert_eq!(admin.cmd(&["ACL", "LOG", "1"]).array().len(), 1);
    let info = admin.cmd(&["INFO", "stats"]).text();
    assert!(info.contains("acl_access_denied_key:2\r\n"), "{info}");
    assert!(info.contains("acl_access_denied_cmd:1\r\n"), "{info}");
    assert!(info.contains("acl_access_denied_auth:1\r\n"), "{info}");
    assert_eq!(admin.cmd(&["ACL", "LOG", "RESET"]), Value::ok());
    assert_eq!(admin.cmd(&["ACL", "LOG"]), Value::Array(vec![]));
}
