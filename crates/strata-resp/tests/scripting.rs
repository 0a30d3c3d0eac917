//! Lua scripting over TCP: EVAL/EVALSHA/SCRIPT, the conversions both
//! ways, errors, read-only scripts, the compiled-script cache; the bad
//! inputs (endless and allocating scripts) are in `scripting_limits.rs`.

use crate::common;

use common::{bulks, start, Client, Value};

pub(crate) fn eval(c: &mut Client, script: &str, keys: &[&str], args: &[&str]) -> Value {
    let n = keys.len().to_string();
    let mut argv = vec!["EVAL", script, n.as_str()];
    argv.extend_from_slice(keys);
    argv.extend_from_slice(args);
    c.cmd(&argv)
}

#[test]
fn conversions_and_keys() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(eval(&mut c, "return 42", &[], &[]), Value::Int(42));
    assert_eq!(eval(&mut c, "return 3.99", &[], &[]), Value::Int(3));
    assert_eq!(eval(&mut c, "return 'hi'", &[], &[]), Value::bulk("hi"));
    assert_eq!(eval(&mut c, "return true", &[], &[]), Value::Int(1));
    assert_eq!(eval(&mut c, "return false", &[], &[]), Value::Null);
    assert_eq!(eval(&mut c, "return nil", &[], &[]), Value::Null);
    assert_eq!(
        eval(&mut c, "return {1, 'a', {2}, nil, 5}", &[], &[]),
        Value::Array(vec![
            Value::Int(1),
            Value::bulk("a"),
            Value::Array(vec![Value::Int(2)])
        ])
    );
    assert_eq!(
        eval(&mut c, "return redis.status_reply('FINE')", &[], &[]),
        Value::Simple("FINE".into())
    );
    assert_eq!(
        eval(&mut c, "return redis.error_reply('MY err')", &[], &[]),
        Value::err("MY err")
    );
    assert_eq!(
        eval(
            &mut c,
            "return {KEYS[1], KEYS[2], ARGV[1]}",
            &["a", "b"],
            &["x"]
        ),
        bulks(&["a", "b", "x"])
    );
    assert_eq!(
        eval(
            &mut c,
            "return redis.call('SET', KEYS[1], ARGV[1])",
            &["k"],
            &["v"]
        ),
        Value::ok()
    );
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v"));
    // Replies to Lua: status as {ok}, null as false, integers as numbers.
    assert_eq!(
        eval(
            &mut c,
            "local r = redis.call('SET', 'k', 'w'); return r.ok",
            &[],
            &[]
        ),
        Value::bulk("OK")
    );
    assert_eq!(
        eval(
            &mut c,
            "return redis.call('GET', 'missing') == false",
            &[],
            &[]
        ),
        Value::Int(1)
    );
    assert_eq!(
        eval(&mut c, "return redis.call('INCRBY', 'n', 5) + 1", &[], &[]),
        Value::Int(6)
    );
    assert_eq!(
        eval(
            &mut c,
            "return redis.call('MGET', 'k', 'missing', 'n')",
            &[],
            &[]
        ),
        Value::Array(vec![Value::bulk("w"), Value::Null, Value::bulk("5")])
    );
    assert_eq!(
        eval(&mut c, "return redis.sha1hex('')", &[], &[]),
        Value::bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709")
    );
    // Numbers as arguments are strings to commands.
    assert_eq!(
        eval(
            &mut c,
            "redis.call('SET', 'num', 10); return redis.call('GET', 'num')",
            &[],
            &[]
        ),
        Value::bulk("10")
    );
}

#[test]
fn errors_as_redis_reports_them() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "s", "text"]);
    let err = eval(&mut c, "return redis.call('INCR', 's')", &[], &[]).text();
    assert!(
        err.starts_with("ERR value is not an integer or out of range"),
        "{err}"
    );
    // pcall returns the error as a table instead.
    assert_eq!(
        eval(
            &mut c,
            "local r = redis.pcall('INCR', 's'); return r.err",
            &[],
            &[]
        ),
        Value::bulk("ERR value is not an integer or out of range")
    );
    assert_eq!(
        eval(&mut c, "return redis.pcall('INCR', 's')", &[], &[]),
        Value::err("ERR value is not an integer or out of range")
    );
    let err = eval(&mut c, "return redis.call('NOSUCH')", &[], &[]).text();
    assert!(
        err.starts_with("ERR Unknown Redis command called from script"),
        "{err}"
    );
    let err = eval(&mut c, "return redis.call('EVAL', 'return 1', 0)", &[], &[]).text();
    assert!(
        err.contains("This Redis command is not allowed from script"),
        "{err}"
    );
    let err = eval(&mut c, "return redis.call('GET', {})", &[], &[]).text();
    assert!(err.contains("must be strings or integers"), "{err}");
    assert_eq!(
        eval(&mut c, "x = 1", &[], &[]).text(),
        "ERR user_script:1: Attempt to modify a readonly table script: 34bce5f775de97f557a34088509c8bfe1ea17e52, on @user_script:1."
    );
    // Redis 7.0's exact texts.
    assert_eq!(
        eval(&mut c, "return redis.call('INCR','s')", &[], &[]).text(),
        "ERR value is not an integer or out of range script: c9de48fe8f60d116de68a05101deb9f683108802, on @user_script:1."
    );
    assert_eq!(
        eval(&mut c, "return nosuch.f", &[], &[]).text(),
        "ERR user_script:1: Script attempted to access nonexistent global variable 'nosuch' script: ff9423b49d7a325ae71ee89f5a25a04fa760f5e0, on @user_script:1."
    );
    assert_eq!(
        eval(&mut c, "return +", &[], &[]).text(),
        "ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'"
    );
    assert_eq!(
        eval(&mut c, "error('boom')", &[], &[]).text(),
        "ERR user_script:1: boom script: 82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1."
    );
    let err = eval(&mut c, "return nosuch.field", &[], &[]).text();
    assert!(
        err.contains("nonexistent global variable 'nosuch'"),
        "{err}"
    );
    let err = eval(&mut c, "return +", &[], &[]).text();
    assert!(err.starts_with("ERR Error compiling script"), "{err}");
    let err = eval(&mut c, "error('boom')", &[], &[]).text();
    assert!(err.starts_with("ERR") && err.contains("boom"), "{err}");
    assert_eq!(
        c.cmd(&["EVAL", "return 1", "-1"]),
        Value::err("ERR Number of keys can't be negative")
    );
    assert_eq!(
        c.cmd(&["EVAL", "return 1", "2", "a"]),
        Value::err("ERR Number of keys can't be greater than number of args")
    );
    // A table that contains itself is refused, not followed forever.
    let err = eval(&mut c, "local t = {}; t[1] = t; return t", &[], &[]).text();
    assert!(err.contains("reached lua stack limit"), "{err}");
    // The connection still works.
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
}

#[test]
fn script_cache_and_read_only_scripts() {
    let server = start();
    let mut c = Client::connect(&server);
    let sha = c.cmd(&["SCRIPT", "LOAD", "return ARGV[1]"]).text();
    assert_eq!(sha, "098e0f0d1448c0a81dafe820f66d460eb09263da");
    assert_eq!(c.cmd(&["EVALSHA", &sha, "0", "hey"]), Value::bulk("hey"));
    assert_eq!(
        c.cmd(&["EVALSHA", &sha.to_uppercase(), "0", "hey"]),
        Value::bulk("hey")
    );
    assert_eq!(
        c.cmd(&["SCRIPT", "EXISTS", &sha, "0000"]),
        Value::Array(vec![Value::Int(1), Value::Int(0)])
    );
    // EVAL caches what it ran.
    eval(&mut c, "return 7", &[], &[]);
    let seven = c.cmd(&[
        "SCRIPT",
        "EXISTS",
        "e4c8b3e9d9e5a6e2a8f1c7b5e6d5c4b3a2f1e0d9",
    ]);
    assert_eq!(seven, Value::Array(vec![Value::Int(0)]));
    assert_eq!(c.cmd(&["SCRIPT", "FLUSH"]), Value::ok());
    assert_eq!(
        c.cmd(&["EVALSHA", &sha, "0"]),
        Value::err("NOSCRIPT No matching script. Please use EVAL.")
    );
    assert!(c
        .cmd(&["SCRIPT", "LOAD", "return +"])
        .text()
        .starts_with("ERR Error compiling script"));

    c.cmd(&["SET", "k", "1"]);
    assert_eq!(
        c.cmd(&["EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "k"]),
        Value::bulk("1")
    );
    let err = c
        .cmd(&["EVAL_RO", "return redis.call('SET', KEYS[1], 2)", "1", "k"])
        .text();
    assert!(
        err.starts_with("ERR Write commands are not allowed from read-only scripts"),
        "{err}"
    );
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("1"));
    // Scripts run inside MULTI too.
    c.cmd(&["MULTI"]);
    c.cmd(&["EVAL", "return redis.call('INCR', 'k')", "0"]);
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::Int(2)]));
}

#[test]
fn a_compiled_script_sees_each_runs_keys_and_argv() {
    // Each interpreter compiles a script once; KEYS and ARGV (globals, set
    // per run) and the sandbox must be this run's every time.
    let server = start();
    let mut c = Client::connect(&server);
    let both = "local function f() return KEYS[1] .. ARGV[1] end return f()";
    assert_eq!(eval(&mut c, both, &["k1"], &["a1"]), Value::bulk("k1a1"));
    assert_eq!(eval(&mut c, both, &["k2"], &["a2"]), Value::bulk("k2a2"));
    let count = "return #KEYS + #ARGV";
    assert_eq!(eval(&mut c, count, &["a", "b"], &["c"]), Value::Int(3));
    assert_eq!(eval(&mut c, count, &[], &[]), Value::Int(0));
    let write = "x = 1 return x";
    for _ in 0..2 {
        let err = eval(&mut c, write, &[], &[]).text();
        assert!(err.contains("Attempt to modify a readonly table"), "{err}");
    }
    let fails = "if ARGV[1] == 'boom' then error('boom') end return ARGV[1]";
    assert!(eval(&mut c, fails, &[], &["boom"]).text().contains("boom"));
    assert_eq!(eval(&mut c, fails, &[], &["ok"]), Value::bulk("ok"));
    assert_eq!(c.cmd(&["SCRIPT", "FLUSH"]), Value::ok());
    assert_eq!(eval(&mut c, both, &["k3"], &["a3"]), Value::bulk("k3a3"));
}

/// Numbers both ways as Redis 7.0.15 converts them: a script's number past
/// the 64-bit range is C's cast (i64::MIN), and numbers given to
/// `redis.call` are printed with 17 digits.
#[test]
fn numbers_cross_as_redis_converts_them() {
    let server = start();
    let mut c = Client::connect(&server);
    for script in ["return 1e20", "return 2^63", "return -2^64"] {
        assert_eq!(
            eval(&mut c, script, &[], &[]),
            Value::Int(i64::MIN),
            "{script}"
        );
    }
    assert_eq!(eval(&mut c, "return -2^63", &[], &[]), Value::Int(i64::MIN));
    assert_eq!(eval(&mut c, "return 2^53", &[], &[]), Value::Int(1 << 53));
    for (arg, stored) in [
        ("0.1", "0.10000000000000001"),
        ("1e20", "1e+20"),
        ("10", "10"),
        ("1.5", "1.5"),
        ("1/0", "inf"),
    ] {
        eval(
            &mut c,
            &format!("return redis.call('SET', KEYS[1], {arg})"),
            &["n"],
            &[],
        );
        assert_eq!(c.cmd(&["GET", "n"]), Value::bulk(stored), "{arg}");
    }
}

/// A raised error table is the error reply with its text, naming the line
/// (Redis 7.0.15's `-table error script: <sha>, on @user_script:1.`).
#[test]
fn a_raised_error_table_is_the_reply() {
    let server = start();
    let mut c = Client::connect(&server);
    let sha = strata_resp::scripting::sha1_hex(b"error({err='table error'})");
    assert_eq!(
        eval(&mut c, "error({err='table error'})", &[], &[]),
        Value::err(&format!("table error script: {sha}, on @user_script:1."))
    );
    let reply = eval(
        &mut c,
        "local x = 1\nerror(redis.error_reply('WRONG kind'))",
        &[],
        &[],
    );
    assert!(
        matches!(&reply, Value::Error(t) if t.starts_with("WRONG kind script: ") && t.ends_with("on @user_script:2.")),
        "{reply:?}"
    );
    // Caught by the script, the table is the script's to read.
    assert_eq!(
        eval(
            &mut c,
            "local ok, e = pcall(error, {err = 'x'}) return e.err",
            &[],
            &[]
        ),
        Value::bulk("x")
    );
    // Errors that are not tables keep their texts and lines.
    let reply = eval(&mut c, "local x = 1\nerror('plain')", &[], &[]);
    assert!(
        matches!(&reply, Value::Error(t) if t.starts_with("ERR user_script:2: plain script: ")),
        "{reply:?}"
    );
    let reply = eval(&mut c, "return cjson.encode({[1] = 1, [12] = 2})", &[], &[]);
    assert!(
        matches!(&reply, Value::Error(t) if t.starts_with("ERR user_script:1: Cannot serialise table")),
        "{reply:?}"
    );
}

/// A script takes its declared keys' shards at once and other shards as
/// it reaches them: keys it did not declare are read and written, whole-
/// keyspace commands see every shard, and read-modify-writes of an
/// undeclared key from two connections never interleave.
#[test]
fn a_script_reaches_undeclared_keys_and_the_whole_keyspace_atomically() {
    let server = start();
    let mut c = Client::connect(&server);
    for i in 0..200 {
        c.cmd(&["SET", &format!("k:{i}"), "v"]);
    }
    let counted = eval(
        &mut c,
        "for i = 1, 50 do redis.call('SET', 'u:' .. i, i) end \
         return {redis.call('DBSIZE'), #redis.call('KEYS', '*'), redis.call('GET', 'u:37'), \
                 redis.call('EXISTS', KEYS[1])}",
        &["k:0"],
        &[],
    );
    assert_eq!(
        counted,
        Value::Array(vec![
            Value::Int(250),
            Value::Int(250),
            Value::bulk("37"),
            Value::Int(1)
        ])
    );
    let increment = "local v = redis.call('GET', 'ctr') \
                     redis.call('SET', 'ctr', (tonumber(v) or 0) + 1) return 1";
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let mut c = Client::connect(&server);
            std::thread::spawn(move || {
                for _ in 0..300 {
                    assert_eq!(eval(&mut c, increment, &[], &[]), Value::Int(1));
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(c.cmd(&["GET", "ctr"]), Value::bulk("600"));
    assert_eq!(
        eval(&mut c, "return redis.call('FLUSHALL')", &["x"], &[]),
        Value::ok()
    );
    assert_eq!(c.cmd(&["DBSIZE"]), Value::Int(0));
}
