//! Redis's Lua libraries and the `redis` table over TCP, against what
//! Redis 7.0.15 answered to the same scripts: `cjson`, `bit`, `cmsgpack`,
//! `struct`, and the `redis` table's constants and calls.

use crate::common;
use crate::scripting::eval;
use crate::scripting_sandbox::{last_text, run};

use common::{start, Client, Value};

/// `cjson`, byte for byte as Redis 7.0.15 wrote these.
#[test]
fn cjson_encodes_and_decodes_as_redis() {
    let server = start();
    let mut c = Client::connect(&server);
    let cases: [(&str, &[u8]); 9] = [
        (
            r#"return cjson.encode({'a"b\\c/d\1\8\9\10\12\13\31\127\128', 0.1, 1/3, 1e20, 123456789012345678, 1e-5, 100, {}, {[1]=1,[3]=3}, 1e15, 1e14})"#,
            b"[\"a\\\"b\\\\c\\/d\\u0001\\b\\t\\n\\f\\r\\u001f\\u007f\x80\",0.1,0.33333333333333,1e+20,1.2345678901235e+17,1e-05,100,{},[1,null,3],1e+15,1e+14]",
        ),
        ("return cjson.encode({[1.5]=1})", br#"{"1.5":1}"#),
        ("return cjson.encode({a={b={}}})", br#"{"a":{"b":{}}}"#),
        (
            r#"return cjson.encode(cjson.decode('[1,null,{"a":[]},"\\u00e9\\ud83d\\ude00"]'))"#,
            "[1,null,{\"a\":{}},\"é😀\"]".as_bytes(),
        ),
        ("return cjson.decode('{\"a\":{\"b\":[1,2,{\"c\":\"d\"}]}}').a.b[3].c", b"d"),
        ("return tostring(cjson.decode('null') == cjson.null)", b"true"),
        ("return {pcall(cjson.encode, {[true] = 1})}", b"Cannot serialise boolean: table key must be a number or string"),
        ("return {pcall(cjson.encode, {f = function() end})}", b"Cannot serialise function: type not supported"),
        (
            "local t = {} local c = t for i = 1, 1100 do c[1] = {} c = c[1] end return {pcall(cjson.encode, t)}",
            b"Cannot serialise, excessive nesting (101)",
        ),
    ];
    for (script, want) in cases {
        let got = match run(&mut c, script) {
            Value::Bulk(b) => b,
            Value::Array(items) => match items.last() {
                Some(Value::Bulk(b)) => b.clone(),
                other => panic!("{script}: {other:?}"),
            },
            other => panic!("{script}: {other:?}"),
        };
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(want),
            "{script}"
        );
    }
    assert_eq!(
        run(&mut c, "return {cjson.encode_max_depth(), cjson.encode_number_precision(), cjson.encode_sparse_array()}"),
        Value::Array(vec![Value::Int(1000), Value::Int(14), Value::Null, Value::Int(2), Value::Int(10)])
    );
    // A script's settings do not outlive it.
    assert_eq!(
        run(
            &mut c,
            "cjson.encode_number_precision(3) return cjson.encode(1/3)"
        ),
        Value::bulk("0.333")
    );
    assert_eq!(
        run(&mut c, "return cjson.encode(1/3)"),
        Value::bulk("0.33333333333333")
    );
    let reply = run(&mut c, "return {pcall(cjson.decode, '[1,')}");
    assert!(last_text(&reply).contains("at character 3"), "{reply:?}");
    let deep = "[".repeat(100_000);
    let reply = eval(
        &mut c,
        "return {pcall(cjson.decode, ARGV[1])}",
        &[],
        &[&deep],
    );
    assert_eq!(
        last_text(&reply),
        "Found too many nested data structures (101) at character 101"
    );
}

/// `bit` (LuaBitOp): what Redis 7.0.15 answered.
#[test]
fn bit_operations_as_redis() {
    let server = start();
    let mut c = Client::connect(&server);
    let ints = [
        ("bit.tobit(0xffffffff)", -1),
        ("bit.tobit(2^32 + 5)", 5),
        ("bit.tobit(1.5)", 2),
        ("bit.tobit(2.5)", 2),
        ("bit.tobit(-1.5)", -2),
        ("bit.band(0xff00, 0x0ff0, 0x00ff)", 0),
        ("bit.bor(1, 2, 4)", 7),
        ("bit.bxor(5, 3)", 6),
        ("bit.bnot(0)", -1),
        ("bit.lshift(1, 31)", -2147483648),
        ("bit.rshift(-1, 28)", 15),
        ("bit.arshift(-256, 4)", -16),
        ("bit.rol(0x12345678, 8)", 0x34567812),
        ("bit.ror(0x12345678, 8)", 0x78123456),
        ("bit.bswap(0x12345678)", 0x78563412),
        ("bit.band('12', 10)", 8),
    ];
    for (expr, want) in ints {
        assert_eq!(
            run(&mut c, &format!("return {expr}")),
            Value::Int(want),
            "{expr}"
        );
    }
    for (expr, want) in [
        ("bit.tohex(65535)", "0000ffff"),
        ("bit.tohex(-1, -4)", "FFFF"),
        ("bit.tohex(255, 2)", "ff"),
    ] {
        assert_eq!(
            run(&mut c, &format!("return {expr}")),
            Value::bulk(want),
            "{expr}"
        );
    }
    assert_eq!(
        run(&mut c, "return {pcall(bit.band)}"),
        Value::Array(vec![
            Value::Null,
            Value::bulk("bad argument #1 to 'band' (number expected, got no value)")
        ])
    );
}

/// The `redis` table's constants and the calls Redis 7 has beside `call`.
#[test]
fn redis_table_as_redis_7() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(
        run(&mut c, "return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}"),
        Value::Array([0, 1, 2, 2, 3].into_iter().map(Value::Int).collect())
    );
    assert_eq!(
        run(
            &mut c,
            "return redis.REDIS_VERSION_NUM == 0x070200 and redis.REDIS_VERSION"
        ),
        Value::bulk("7.2.0")
    );
    assert_eq!(
        run(&mut c, "return redis.set_repl(redis.REPL_ALL)"),
        Value::Null
    );
    assert_eq!(
        run(&mut c, "return {pcall(redis.set_repl, 7)}"),
        Value::Array(vec![
            Value::Null,
            Value::bulk(
                "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."
            )
        ])
    );
    assert_eq!(
        run(&mut c, "return redis.replicate_commands()"),
        Value::Int(1)
    );
    assert_eq!(run(&mut c, "return redis.breakpoint()"), Value::Null);
    assert_eq!(
        run(&mut c, "return redis.acl_check_cmd('get', 'x')"),
        Value::Int(1)
    );
    assert_eq!(
        run(&mut c, "return {pcall(redis.acl_check_cmd, 'nosuch')}"),
        Value::Array(vec![
            Value::Null,
            Value::bulk("ERR Invalid command passed to redis.acl_check_cmd()")
        ])
    );
    c.cmd(&[
        "ACL", "SETUSER", "reader", "on", "nopass", "+get", "+eval", "~r*",
    ]);
    let mut reader = Client::connect(&server);
    assert_eq!(reader.cmd(&["AUTH", "reader", "any"]), Value::ok());
    assert_eq!(
        run(&mut reader, "return {redis.acl_check_cmd('get', 'r1') and 1 or 0, redis.acl_check_cmd('get', 'x') and 1 or 0, redis.acl_check_cmd('set', 'r1', 'v') and 1 or 0}"),
        Value::Array(vec![Value::Int(1), Value::Int(0), Value::Int(0)])
    );
}

/// `cmsgpack` and `struct` reach scripts (their byte-level behaviour is
/// tested beside them, against Redis 7.0.15's outputs).
#[test]
fn cmsgpack_and_struct_are_there() {
    let server = start();
    let mut c = Client::connect(&server);
    let hex = "local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end ";
    assert_eq!(
        run(
            &mut c,
            &format!("{hex} return hex(cmsgpack.pack({{1, 2, 3}}))")
        ),
        Value::bulk("93010203")
    );
    assert_eq!(
        run(
            &mut c,
            "return cmsgpack.unpack(cmsgpack.pack({1, 2, {a = 'b'}}))[3].a"
        ),
        Value::bulk("b")
    );
    assert_eq!(
        run(
            &mut c,
            &format!("{hex} return hex(struct.pack('>I2', 258))")
        ),
        Value::bulk("0102")
    );
    assert_eq!(
        run(
            &mut c,
            "return struct.unpack('<i4', struct.pack('<i4', -5))"
        ),
        Value::Int(-5)
    );
    // The library names the line itself (as luaL_error): named once.
    let reply = run(&mut c, "return struct.pack('q')");
    assert!(
        reply.text().starts_with(
            "ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'q') script: "
        ),
        "{reply:?}"
    );
    let reply = run(&mut c, "cmsgpack.pack = nil");
    assert!(
        reply.text().contains("Attempt to modify a readonly table"),
        "{reply:?}"
    );
}
