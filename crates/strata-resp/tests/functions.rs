//! Redis 7 functions over TCP: FUNCTION LOAD (shebang, both forms of
//! `redis.register_function`, flags, REPLACE, Redis's errors), FCALL and
//! FCALL_RO (keys and arguments, `no-writes`), LIST, DELETE, FLUSH, DUMP
//! and RESTORE with each policy, STATS and KILL of a function that loops.

use crate::common;

use std::time::Duration;

use common::{start, Client, Value};

const LIB: &str = "#!lua name=mylib
local function set(keys, args)
  return redis.call('SET', keys[1], args[1])
end
redis.register_function('myset', set)
redis.register_function{
  function_name = 'myget',
  callback = function(keys, args) return redis.call('GET', keys[1]) end,
  flags = {'no-writes'},
  description = 'reads a key',
}
";

fn err_text(v: Value) -> String {
    match v {
        Value::Error(e) => e,
        other => panic!("not an error: {other:?}"),
    }
}

#[test]
fn load_call_list_delete() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["FUNCTION", "LOAD", LIB]), Value::bulk("mylib"));
    assert_eq!(c.cmd(&["FCALL", "myset", "1", "k", "v"]), Value::ok());
    assert_eq!(c.cmd(&["FCALL", "myget", "1", "k"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["FCALL_RO", "myget", "1", "k"]), Value::bulk("v"));
    assert_eq!(
        c.cmd(&["FCALL_RO", "myset", "1", "k", "w"]),
        Value::err("ERR Can not execute a script with write flag using *_ro command.")
    );
    // Errors of FCALL.
    assert_eq!(
        c.cmd(&["FCALL", "nope", "0"]),
        Value::err("ERR Function not found")
    );
    assert_eq!(
        c.cmd(&["FCALL", "myget", "2", "k"]),
        Value::err("ERR Number of keys can't be greater than number of args")
    );
    assert_eq!(
        c.cmd(&["FCALL", "myget", "-1", "k"]),
        Value::err("ERR Number of keys can't be negative")
    );
    assert_eq!(
        c.cmd(&["FCALL", "myget", "x"]),
        Value::err("ERR Bad number of keys provided")
    );
    // LOAD again: exists, then REPLACE.
    assert_eq!(
        c.cmd(&["FUNCTION", "LOAD", LIB]),
        Value::err("ERR Library 'mylib' already exists")
    );
    assert_eq!(
        c.cmd(&["FUNCTION", "LOAD", "REPLACE", LIB]),
        Value::bulk("mylib")
    );
    // LIST, with and without code, filtered.
    let list = c.cmd(&["FUNCTION", "LIST", "WITHCODE"]);
    let lib = &list.array()[0];
    let fields = lib.array();
    assert_eq!(fields[0], Value::bulk("library_name"));
    assert_eq!(fields[1], Value::bulk("mylib"));
    assert_eq!(fields[3], Value::bulk("LUA"));
    let functions = fields[5].array();
    assert_eq!(functions.len(), 2);
    assert_eq!(
        functions[1],
        Value::Array(vec![
            Value::bulk("name"),
            Value::bulk("myget"),
            Value::bulk("description"),
            Value::bulk("reads a key"),
            Value::bulk("flags"),
            Value::Array(vec![Value::Simple("no-writes".into())]),
        ])
    );
    assert_eq!(fields[7], Value::bulk(LIB));
    assert_eq!(
        c.cmd(&["FUNCTION", "LIST", "LIBRARYNAME", "other*"]),
        Value::Array(vec![])
    );
    assert_eq!(
        c.cmd(&["FUNCTION", "LIST", "LIBRARYNAME", "my*"])
            .array()
            .len(),
        1
    );
    assert_eq!(
        c.cmd(&["FUNCTION", "LIST", "BOGUS"]),
        Value::err("ERR Unknown argument BOGUS")
    );
    // A no-writes function cannot write, even under FCALL.
    c.cmd(&[
        "FUNCTION",
        "LOAD",
        "#!lua name=ro\nredis.register_function{function_name='sneaky', callback=function(k) return redis.call('SET', k[1], 'x') end, flags={'no-writes'}}",
    ]);
    let e = err_text(c.cmd(&["FCALL", "sneaky", "1", "k"]));
    assert!(
        e.starts_with("ERR Write commands are not allowed from read-only scripts"),
        "{e}"
    );
    assert!(e.contains("script: sneaky, on @user_function:2."), "{e}");
    // DELETE and FLUSH.
    assert_eq!(c.cmd(&["FUNCTION", "DELETE", "ro"]), Value::ok());
    assert_eq!(
        c.cmd(&["FUNCTION", "DELETE", "ro"]),
        Value::err("ERR Library not found")
    );
    assert_eq!(c.cmd(&["FUNCTION", "FLUSH", "SYNC"]), Value::ok());
    assert_eq!(
        c.cmd(&["FCALL", "myget", "1", "k"]),
        Value::err("ERR Function not found")
    );
    assert_eq!(
        c.cmd(&["FUNCTION", "FLUSH", "LATER"]),
        Value::err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
    );
}

#[test]
fn load_errors_as_redis() {
    let server = start();
    let mut c = Client::connect(&server);
    let load = |c: &mut Client, code: &str| err_text(c.cmd(&["FUNCTION", "LOAD", code]));
    assert_eq!(load(&mut c, "return 1"), "ERR Missing library metadata");
    assert_eq!(
        load(&mut c, "#!lua\nreturn 1"),
        "ERR Library name was not given"
    );
    assert_eq!(
        load(&mut c, "#!lua name=a foo=b\n"),
        "ERR Invalid metadata value given: foo=b"
    );
    assert_eq!(load(&mut c, "#!js name=a\n"), "ERR Engine 'js' not found");
    assert!(load(&mut c, "#!lua name=a-b\n").starts_with("ERR Library names can only contain"));
    assert_eq!(
        load(&mut c, "#!lua name=a\nlocal x = 1"),
        "ERR No functions registered"
    );
    let e = load(&mut c, "#!lua name=a\nthis is not lua");
    assert!(
        e.starts_with("ERR Error compiling function: user_function:2:"),
        "{e}"
    );
    let e = load(
        &mut c,
        "#!lua name=a\nredis.register_function('bad name', function() end)",
    );
    assert!(
        e.starts_with("ERR Error registering functions:")
            && e.contains("Function names can only contain"),
        "{e}"
    );
    let e = load(&mut c, "#!lua name=a\nredis.register_function{function_name='f', callback=function() end, flags={'bogus'}}");
    assert!(e.contains("unknown flag given"), "{e}");
    let e = load(&mut c, "#!lua name=a\nredis.register_function('f', function() end)\nredis.register_function('f', function() end)");
    assert!(e.contains("Function already exists in the library"), "{e}");
    // Globals cannot be created; redis.call is not there at load.
    let e = load(&mut c, "#!lua name=a\nx = 1");
    assert!(e.contains("Attempt to modify a readonly table"), "{e}");
    let e = load(&mut c, "#!lua name=a\nredis.call('SET', 'k', 'v')");
    assert!(e.starts_with("ERR Error registering functions:"), "{e}");
    assert_eq!(c.cmd(&["GET", "k"]), Value::Null);
    // A library that loops is stopped.
    let e = load(&mut c, "#!lua name=a\nwhile true do end");
    assert!(e.contains("FUNCTION LOAD timeout"), "{e}");
    // A function name taken by another library.
    c.cmd(&[
        "FUNCTION",
        "LOAD",
        "#!lua name=one\nredis.register_function('f', function() return 1 end)",
    ]);
    assert_eq!(
        load(
            &mut c,
            "#!lua name=two\nredis.register_function('f', function() return 2 end)"
        ),
        "ERR Function f already exists"
    );
    assert_eq!(
        load(
            &mut c,
            "#!lua name=one\nredis.register_function('g', function() return 2 end)"
        ),
        "ERR Library 'one' already exists"
    );
    assert_eq!(c.cmd(&["FCALL", "f", "0"]), Value::Int(1));
    assert_eq!(
        c.cmd(&["FUNCTION", "LOAD", "BOGUS", "#!lua name=x\n"]),
        Value::err("ERR Unknown option given: BOGUS")
    );
}

#[test]
fn dump_and_restore_with_each_policy() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["FUNCTION", "LOAD", LIB]);
    let Value::Bulk(dump) = c.cmd(&["FUNCTION", "DUMP"]) else {
        panic!("no payload");
    };
    // APPEND (default) onto the same library fails; REPLACE works.
    assert_eq!(
        c.cmd_bytes(&[b"FUNCTION", b"RESTORE", &dump]),
        Value::err("ERR Library mylib already exists")
    );
    assert_eq!(
        c.cmd_bytes(&[b"FUNCTION", b"RESTORE", &dump, b"REPLACE"]),
        Value::ok()
    );
    // FLUSH drops what is not in the payload.
    c.cmd(&[
        "FUNCTION",
        "LOAD",
        "#!lua name=extra\nredis.register_function('e', function() return 1 end)",
    ]);
    assert_eq!(
        c.cmd_bytes(&[b"FUNCTION", b"RESTORE", &dump, b"FLUSH"]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["FCALL", "e", "0"]),
        Value::err("ERR Function not found")
    );
    assert_eq!(
        c.cmd(&["FCALL", "myset", "1", "k", "restored"]),
        Value::ok()
    );
    // Into an empty server (another connection, hence maybe another thread).
    c.cmd(&["FUNCTION", "FLUSH"]);
    let mut d = Client::connect(&server);
    assert_eq!(d.cmd_bytes(&[b"FUNCTION", b"RESTORE", &dump]), Value::ok());
    assert_eq!(
        c.cmd(&["FCALL", "myget", "1", "k"]),
        Value::bulk("restored")
    );
    // Damaged payloads and bad policies.
    let mut bad = dump.clone();
    bad[5] ^= 0xff;
    assert_eq!(
        c.cmd_bytes(&[b"FUNCTION", b"RESTORE", &bad]),
        Value::err("ERR DUMP payload version or checksum are wrong")
    );
    assert_eq!(
        c.cmd_bytes(&[b"FUNCTION", b"RESTORE", &dump, b"MERGE"]),
        Value::err(
            "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE."
        )
    );
}

#[test]
fn stats_and_kill_of_a_looping_function() {
    let server = start();
    let mut admin = Client::connect(&server);
    admin.cmd(&["CONFIG", "SET", "busy-reply-threshold", "100"]);
    admin.cmd(&[
        "FUNCTION",
        "LOAD",
        "#!lua name=spin\nredis.register_function('spin', function() while true do end end)",
    ]);
    let stats = admin.cmd(&["FUNCTION", "STATS"]);
    assert_eq!(stats.array()[1], Value::Null, "{stats:?}");
    let mut runner = Client::connect(&server);
    runner.send(&[b"FCALL", b"spin", b"0"]);
    std::thread::sleep(Duration::from_millis(300));
    let stats = admin.cmd(&["FUNCTION", "STATS"]);
    let running = stats.array()[1].array();
    assert_eq!(running[1], Value::bulk("spin"));
    assert_eq!(
        running[3],
        Value::Array(vec![
            Value::bulk("FCALL"),
            Value::bulk("spin"),
            Value::bulk("0")
        ])
    );
    assert_eq!(
        admin.cmd(&["SCRIPT", "KILL"]),
        Value::err("BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.")
    );
    assert_eq!(admin.cmd(&["FUNCTION", "KILL"]), Value::ok());
    let reply = runner.read().text();
    assert!(reply.contains("Script killed by user"), "{reply}");
    assert_eq!(
        admin.cmd(&["FUNCTION", "KILL"]),
        Value::err("NOTBUSY No scripts in execution right now.")
    );
}
