//! ACLs and live connections: permission changes reach authenticated
//! connections at once, `ACL DELUSER` and `ACL LOAD` close the connections
//! of removed users, `MULTI`/`EXEC` checks at queue time and at `EXEC`, the
//! ACL file round trip, and the Rust `redis` crate logging in as a user.

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use common::{bulks, encode, start, start_acl, Client, Value};
use strata_resp::acl::Acl;

fn connect_as(server: &common::Server, user: &str, password: &str) -> Client {
    let mut c = Client::connect(server);
    assert_eq!(c.cmd(&["AUTH", user, password]), Value::ok());
    c
}

fn noperm_key() -> Value {
    Value::err("NOPERM No permissions to access a key")
}

#[test]
fn permission_changes_apply_at_once() {
    let server = start();
    let mut admin = Client::connect(&server);
    assert_eq!(
        admin.cmd(&["ACL", "SETUSER", "alice", "on", ">pw", "~*", "+@all"]),
        Value::ok()
    );
    let mut alice = connect_as(&server, "alice", "pw");
    assert_eq!(alice.cmd(&["GET", "k"]), Value::Null);
    assert_eq!(admin.cmd(&["ACL", "SETUSER", "alice", "-get"]), Value::ok());
    assert_eq!(
        alice.cmd(&["GET", "k"]),
        Value::err("NOPERM User alice has no permissions to run the 'get' command")
    );
    assert_eq!(
        admin.cmd(&["ACL", "SETUSER", "alice", "+get", "resetkeys", "~zz"]),
        Value::ok()
    );
    assert_eq!(alice.cmd(&["GET", "k"]), noperm_key());
    assert_eq!(alice.cmd(&["GET", "zz"]), Value::Null);
    // The default user's permissions bind connections that never logged in.
    let mut anonymous = Client::connect(&server);
    assert_eq!(
        admin.cmd(&["ACL", "SETUSER", "default", "-set"]),
        Value::ok()
    );
    assert_eq!(
        anonymous.cmd(&["SET", "k", "v"]),
        Value::err("NOPERM User default has no permissions to run the 'set' command")
    );
}

#[test]
fn deleting_a_user_closes_its_connections() {
    let server = start();
    let mut admin = Client::connect(&server);
    for user in ["alice", "bob"] {
        assert_eq!(
            admin.cmd(&["ACL", "SETUSER", user, "on", "nopass", "~*", "+@all"]),
            Value::ok()
        );
    }
    let mut idle = connect_as(&server, "alice", "x");
    let mut other = connect_as(&server, "bob", "x");
    assert_eq!(admin.cmd(&["ACL", "DELUSER", "alice"]), Value::Int(1));
    // Closed without sending anything.
    assert!(idle.is_closed());
    assert_eq!(other.cmd(&["PING"]), Value::Simple("PONG".into()));
    // Deleting oneself: the reply, then the connection closes; pipelined
    // commands after it do not run.
    let mut pipeline = encode(&[b"ACL", b"DELUSER", b"bob"]);
    pipeline.extend_from_slice(&encode(&[b"SET", b"after", b"1"]));
    other.send_raw(&pipeline);
    assert_eq!(other.read(), Value::Int(1));
    assert!(other.is_closed());
    assert_eq!(admin.cmd(&["EXISTS", "after"]), Value::Int(0));
    // A new user of the same name does not revive old connections.
    assert_eq!(admin.cmd(&["ACL", "USERS"]), bulks(&["default"]));
}

#[test]
fn transactions_check_at_queue_time_and_at_exec() {
    let server = start();
    let mut admin = Client::connect(&server);
    assert_eq!(
        admin.cmd(&["ACL", "SETUSER", "alice", "on", ">pw", "~cache:*", "+@all"]),
        Value::ok()
    );
    let mut c = connect_as(&server, "alice", "pw");
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(
        c.cmd(&["SET", "cache:1", "x"]),
        Value::Simple("QUEUED".into())
    );
    assert_eq!(c.cmd(&["SET", "other", "x"]), noperm_key());
    assert_eq!(
        c.cmd(&["EXEC"]),
        Value::err("EXECABORT Transaction discarded because of previous errors.")
    );
    assert_eq!(admin.cmd(&["EXISTS", "cache:1"]), Value::Int(0));
    // Permissions that change between queuing and EXEC apply at EXEC.
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(
        c.cmd(&["SET", "cache:1", "x"]),
        Value::Simple("QUEUED".into())
    );
    assert_eq!(c.cmd(&["INCR", "cache:n"]), Value::Simple("QUEUED".into()));
    assert_eq!(
        admin.cmd(&["ACL", "SETUSER", "alice", "-incr"]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["EXEC"]),
        Value::Array(vec![
            Value::ok(),
            Value::err("NOPERM User alice has no permissions to run the 'incr' command"),
        ])
    );
    let log = admin.cmd(&["ACL", "LOG", "1"]);
    let entry = log.array()[0].array();
    assert_eq!(entry[4..6], [Value::bulk("context"), Value::bulk("multi")]);
}

fn acl_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("strata-resp-acl-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("users.acl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn acl_file_load_and_save() {
    let path = acl_file(
        "roundtrip",
        "user alice on >apw ~cache:* +@read\nuser bob on >bpw ~* +@all\n",
    );
    let acl = Acl::with_file(path.clone(), Some("secret")).expect("valid file");
    let server = start_acl(Some("secret"), acl);
    let mut admin = connect_as(&server, "default", "secret");
    assert_eq!(
        admin.cmd(&["CONFIG", "GET", "aclfile"]),
        bulks(&["aclfile", &path.display().to_string()])
    );
    let mut alice = connect_as(&server, "alice", "apw");
    let mut bob = connect_as(&server, "bob", "bpw");
    assert_eq!(
        alice.cmd(&["SET", "cache:1", "x"]).text(),
        "NOPERM User alice has no permissions to run the 'set' command"
    );
    // A bad file changes nothing.
    std::fs::write(&path, "user alice on >apw\nuser carol +nosuch\n").unwrap();
    let err = admin.cmd(&["ACL", "LOAD"]).text();
    assert!(
        err.contains("users.acl:2: Error in applying operation '+nosuch'"),
        "{err}"
    );
    assert!(err.ends_with("no change to the previously active ACL rules was performed"));
    assert_eq!(bob.cmd(&["PING"]), Value::Simple("PONG".into()));
    // Reloading without bob closes bob's connection; alice keeps hers with
    // the file's new permissions.
    std::fs::write(&path, "user alice on >apw ~* +@all\n").unwrap();
    assert_eq!(admin.cmd(&["ACL", "LOAD"]), Value::ok());
    assert!(bob.is_closed());
    assert_eq!(alice.cmd(&["SET", "cache:1", "x"]), Value::ok());
    // The default user (not in the file) keeps requirepass.
    assert_eq!(admin.cmd(&["PING"]), Value::Simple("PONG".into()));
    assert_eq!(
        admin.cmd(&["ACL", "SETUSER", "carol", "on", ">cpw", "%R~r:*", "+get"]),
        Value::ok()
    );
    assert_eq!(admin.cmd(&["ACL", "SAVE"]), Value::ok());
    let saved = std::fs::read_to_string(&path).unwrap();
    let reloaded = Acl::with_file(path.clone(), None).expect("the saved file reads back");
    let carol = reloaded.user(b"carol").expect("carol saved");
    assert!(carol.accepts(b"cpw"));
    assert!(
        !saved.contains("cpw") && !saved.contains("secret"),
        "{saved}"
    );
    assert_eq!(saved.lines().count(), 3, "{saved}");
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_bad_acl_file_is_refused_with_its_line() {
    let path = acl_file("bad", "user alice on\n\nuser bob on foo\n");
    let err = Acl::with_file(path.clone(), None).unwrap_err().to_string();
    assert!(
        err.ends_with("users.acl:3: Error in applying operation 'foo': Syntax error."),
        "{err}"
    );
    let missing = path.with_file_name("missing.acl");
    let err = Acl::with_file(missing, None).unwrap_err().to_string();
    assert!(err.contains("No such file or directory"), "{err}");
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn redis_crate_logs_in_as_a_user() {
    let server = start();
    let mut admin = Client::connect(&server);
    assert_eq!(
        admin.cmd(&[
            "ACL",
            "SETUSER",
            "app",
            "on",
            ">s3cret",
            "~app:*",
            "+@read",
            "+@write",
            "-@dangerous",
            "+acl|whoami"
        ]),
        Value::ok()
    );
    let url = format!("redis://app:s3cret@{}/", server.addr);
    let client = redis::Client::open(url).unwrap();
    let mut conn = client
        .get_connection_with_timeout(Duration::from_secs(5))
        .unwrap();
    let () = redis::cmd("SET")
        .arg("app:1")
        .arg("v")
        .query(&mut conn)
        .unwrap();
    let value: String = redis::cmd("GET").arg("app:1").query(&mut conn).unwrap();
    assert_eq!(value, "v");
    let denied = redis::cmd("GET")
        .arg("other")
        .query::<Option<String>>(&mut conn)
        .unwrap_err();
    assert_eq!(denied.code(), Some("NOPERM"), "{denied}");
    let denied = redis::cmd("FLUSHALL").query::<()>(&mut conn).unwrap_err();
    assert_eq!(denied.code(), Some("NOPERM"), "{denied}");
    let whoami: String = redis::cmd("ACL").arg("WHOAMI").query(&mut conn).unwrap();
    assert_eq!(whoami, "app");
    let bad = redis::Client::open(format!("redis://app:wrong@{}/", server.addr)).unwrap();
    let err = bad
        .get_connection_with_timeout(Duration::from_secs(5))
        .err()
        .expect("wrong password refused");
    assert_eq!(err.kind(), redis::ErrorKind::AuthenticationFailed, "{err}");
}
