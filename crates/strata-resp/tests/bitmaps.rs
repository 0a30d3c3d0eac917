//! Bitmap commands over TCP, with the replies Redis 7.0.15 gives for the
//! same commands (each case was run against both): bit order and growth,
//! `BITCOUNT`/`BITPOS` ranges in bytes and bits, `BITOP`, `BITFIELD`'s
//! types, `#` offsets and overflow, `BITFIELD_RO`, and the errors.

use crate::common;

use common::{start, Client, Value};

fn ints(values: &[i64]) -> Value {
    Value::Array(values.iter().map(|&n| Value::Int(n)).collect())
}

const OFFSET: &str = "ERR bit offset is not an integer or out of range";
const SYNTAX: &str = "ERR syntax error";
const NOT_INT: &str = "ERR value is not an integer or out of range";
const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

/// Runs each `(command, reply)` case in order.
fn check(c: &mut Client, cases: &[(&[&str], Value)]) {
    for (args, want) in cases {
        assert_eq!(&c.cmd(args), want, "{args:?}");
    }
}

#[test]
fn setbit_getbit_and_growth() {
    let server = start();
    let mut c = Client::connect(&server);
    check(
        &mut c,
        &[
            (&["SETBIT", "b", "7", "1"], Value::Int(0)),
            (&["SETBIT", "b", "7", "1"], Value::Int(1)),
            (&["SETBIT", "b", "7", "0"], Value::Int(1)),
            (&["SETBIT", "b", "100", "1"], Value::Int(0)),
            (&["STRLEN", "b"], Value::Int(13)),
            (&["GETBIT", "b", "100"], Value::Int(1)),
            (&["GETBIT", "b", "101"], Value::Int(0)),
            (&["GETBIT", "b", "99999"], Value::Int(0)),
            (&["GETBIT", "missing", "3"], Value::Int(0)),
            (&["SETBIT", "b", "-1", "1"], Value::err(OFFSET)),
            (&["SETBIT", "b", "x", "1"], Value::err(OFFSET)),
            (&["SETBIT", "b", "4294967296", "1"], Value::err(OFFSET)),
            (&["GETBIT", "b", "4294967296"], Value::err(OFFSET)),
            (
                &["SETBIT", "b", "1", "2"],
                Value::err("ERR bit is not an integer or out of range"),
            ),
            // A string's bytes are its bits, most significant first; the
            // expiry is kept.
            (&["SET", "ex", "abc", "EX", "100"], Value::ok()),
            (&["SETBIT", "ex", "0", "1"], Value::Int(0)),
            (&["TTL", "ex"], Value::Int(100)),
            (&["GET", "ex"], Value::Bulk(b"\xe1bc".to_vec())),
            (&["LPUSH", "lst", "a"], Value::Int(1)),
            (&["SETBIT", "lst", "1", "1"], Value::err(WRONGTYPE)),
            (&["GETBIT", "lst", "1"], Value::err(WRONGTYPE)),
        ],
    );
}

#[test]
fn bitcount_and_bitpos_ranges() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "s", "foobar"]);
    c.cmd_bytes(&[b"SET", b"p", b"\xff\xf0\x00"]);
    c.cmd_bytes(&[b"SET", b"q", b"\xff\xff"]);
    c.cmd(&["SET", "e", ""]);
    c.cmd(&["LPUSH", "lst", "a"]);
    let bad_bit = Value::err("ERR The bit argument must be 1 or 0.");
    check(
        &mut c,
        &[
            (&["BITCOUNT", "s"], Value::Int(26)),
            (&["BITCOUNT", "s", "0", "0"], Value::Int(4)),
            (&["BITCOUNT", "s", "1", "1", "BYTE"], Value::Int(6)),
            (&["BITCOUNT", "s", "5", "30", "BIT"], Value::Int(17)),
            (&["BITCOUNT", "s", "-5", "-1", "bit"], Value::Int(2)),
            (&["BITCOUNT", "s", "-1", "-5"], Value::Int(0)),
            (&["BITCOUNT", "s", "100", "200"], Value::Int(0)),
            (&["BITCOUNT", "missing", "0", "1"], Value::Int(0)),
            (&["BITCOUNT", "s", "0"], Value::err(SYNTAX)),
            (&["BITCOUNT", "s", "0", "1", "WORD"], Value::err(SYNTAX)),
            (&["BITCOUNT", "s", "a", "b"], Value::err(NOT_INT)),
            (&["BITCOUNT", "lst"], Value::err(WRONGTYPE)),
            (&["BITPOS", "p", "0"], Value::Int(12)),
            (&["BITPOS", "p", "1"], Value::Int(0)),
            (&["BITPOS", "p", "1", "2"], Value::Int(-1)),
            (&["BITPOS", "p", "0", "0", "0"], Value::Int(-1)),
            (&["BITPOS", "p", "1", "7", "15", "BIT"], Value::Int(7)),
            (&["BITPOS", "p", "0", "0", "11", "BIT"], Value::Int(-1)),
            (&["BITPOS", "p", "0", "0", "12", "BIT"], Value::Int(12)),
            (&["BITPOS", "q", "0"], Value::Int(16)),
            (&["BITPOS", "q", "0", "0", "-1"], Value::Int(-1)),
            (&["BITPOS", "q", "0", "1"], Value::Int(16)),
            (&["BITPOS", "q", "0", "3", "2"], Value::Int(-1)),
            (&["BITPOS", "e", "0"], Value::Int(-1)),
            (&["BITPOS", "missing", "0"], Value::Int(0)),
            (&["BITPOS", "missing", "1"], Value::Int(-1)),
            // As Redis: the range of a missing key is not looked at.
            (&["BITPOS", "missing", "1", "x"], Value::Int(-1)),
            (&["BITPOS", "p", "2"], bad_bit),
            (&["BITPOS", "p", "x"], Value::err(NOT_INT)),
            (&["BITPOS", "p", "1", "0", "1", "WORD"], Value::err(SYNTAX)),
            (&["BITPOS", "lst", "1"], Value::err(WRONGTYPE)),
        ],
    );
}

#[test]
fn bitop_combines_and_replaces_the_destination() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd_bytes(&[b"SET", b"x1", b"\xcc\xff"]);
    c.cmd_bytes(&[b"SET", b"x2", b"\xaa"]);
    c.cmd(&["LPUSH", "lst", "a"]);
    c.cmd(&["SET", "dest", "old", "EX", "100"]);
    let ops: &[(&str, &[&str], &[u8])] = &[
        ("AND", &["x1", "x2"], b"\x88\x00"),
        ("OR", &["x1", "x2"], b"\xee\xff"),
        ("XOR", &["x1", "x2", "missing"], b"\x66\xff"),
        ("NOT", &["x2"], b"\x55"),
    ];
    for (op, sources, want) in ops {
        let mut args = vec!["BITOP", op, "dest"];
        args.extend_from_slice(sources);
        assert_eq!(c.cmd(&args), Value::Int(want.len() as i64), "{op}");
        assert_eq!(c.cmd(&["GET", "dest"]), Value::Bulk(want.to_vec()), "{op}");
    }
    check(
        &mut c,
        &[
            // The result replaces the destination, expiry and all.
            (&["TTL", "dest"], Value::Int(-1)),
            (
                &["BITOP", "NOT", "dest", "x1", "x2"],
                Value::err("ERR BITOP NOT must be called with a single source key."),
            ),
            (&["BITOP", "NAND", "dest", "x1"], Value::err(SYNTAX)),
            (
                &["BITOP", "AND", "dest", "x1", "lst"],
                Value::err(WRONGTYPE),
            ),
            // An empty result deletes the destination.
            (
                &["BITOP", "AND", "dest", "nothere", "alsonot"],
                Value::Int(0),
            ),
            (&["EXISTS", "dest"], Value::Int(0)),
        ],
    );
}

#[test]
fn bitfield_types_offsets_and_overflow() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["LPUSH", "lst", "a"]);
    let bad_type = Value::err(
        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.",
    );
    let set_get_incr: &[&str] = &[
        "BITFIELD", "bf", "SET", "u8", "0", "200", "GET", "u8", "0", "INCRBY", "u8", "0", "100",
        "GET", "u8", "0",
    ];
    let policies: &[&str] = &[
        "BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "100", "OVERFLOW", "FAIL",
        "INCRBY", "u8", "0", "1", "GET", "u8", "0",
    ];
    let relative: &[&str] = &[
        "BITFIELD", "bf", "SET", "i8", "#1", "-5", "GET", "i8", "#1", "GET", "u8", "#1", "INCRBY",
        "i8", "8", "-200",
    ];
    let wide: &[&str] = &[
        "BITFIELD",
        "w",
        "SET",
        "i64",
        "0",
        "9223372036854775807",
        "INCRBY",
        "i64",
        "0",
        "1",
        "OVERFLOW",
        "SAT",
        "INCRBY",
        "i64",
        "0",
        "-1",
    ];
    let fail = c.cmd(&[
        "BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u8", "0", "256", "GET", "u8", "0",
    ]);
    assert_eq!(fail, Value::Array(vec![Value::Null, Value::Int(0)]));
    check(
        &mut c,
        &[
            (set_get_incr, ints(&[0, 200, 44, 44])),
            (policies, ints(&[144, 145, 145])),
            (relative, ints(&[0, -5, 251, 51])),
            (
                &[
                    "BITFIELD", "bf", "GET", "u4", "0", "GET", "u4", "4", "GET", "i4", "0",
                ],
                ints(&[9, 1, -7]),
            ),
            (
                &["BITFIELD", "bf", "SET", "i8", "0", "200", "GET", "i8", "0"],
                ints(&[-111, -56]),
            ),
            (wide, ints(&[0, i64::MIN, i64::MIN])),
            (
                &[
                    "BITFIELD",
                    "u",
                    "SET",
                    "u63",
                    "0",
                    "9223372036854775807",
                    "INCRBY",
                    "u63",
                    "0",
                    "1",
                ],
                ints(&[0, 0]),
            ),
            // Reads alone do not create the key.
            (&["BITFIELD", "newkey", "GET", "u8", "0"], ints(&[0])),
            (&["EXISTS", "newkey"], Value::Int(0)),
            (
                &["BITFIELD_RO", "bf", "GET", "u8", "0", "GET", "i16", "#2"],
                ints(&[200, 0]),
            ),
            (&["BITFIELD_RO", "missing", "GET", "u8", "0"], ints(&[0])),
            (&["BITFIELD", "bf"], Value::Array(vec![])),
            (
                &["BITFIELD_RO", "bf", "SET", "u8", "0", "1"],
                Value::err("ERR BITFIELD_RO only supports the GET subcommand"),
            ),
            // Every operation is parsed before any runs.
            (
                &["BITFIELD_RO", "bf", "SET", "u8", "0", "1", "FOO"],
                Value::err(SYNTAX),
            ),
            (
                &["BITFIELD", "bf", "SET", "u64", "0", "1"],
                bad_type.clone(),
            ),
            (&["BITFIELD", "bf", "SET", "i65", "0", "1"], bad_type),
            (&["BITFIELD", "bf", "GET", "u8", "-1"], Value::err(OFFSET)),
            (&["BITFIELD", "bf", "GET", "u8", "#-1"], Value::err(OFFSET)),
            (&["BITFIELD", "bf", "GET", "u8"], Value::err(SYNTAX)),
            (&["BITFIELD", "bf", "FOO", "u8", "0"], Value::err(SYNTAX)),
            (
                &["BITFIELD", "bf", "OVERFLOW", "MAYBE"],
                Value::err("ERR Invalid OVERFLOW type specified"),
            ),
            (
                &["BITFIELD", "bf", "INCRBY", "u8", "0", "x"],
                Value::err(NOT_INT),
            ),
            (
                &["BITFIELD", "lst", "GET", "u8", "0"],
                Value::err(WRONGTYPE),
            ),
        ],
    );
}
