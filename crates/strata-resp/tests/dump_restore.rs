//! `DUMP` and `RESTORE` against a real Redis: values of every type in
//! every encoding Redis picks for them (checked with `OBJECT ENCODING`, so
//! a case that stops covering its encoding fails) are dumped by Redis and
//! restored in Strata, and dumped by Strata and restored in Redis; the
//! whole value and its TTL are compared each way. Then Strata's own round
//! trip with `REPLACE`, `ABSTTL` and `BUSYKEY`, Redis's refusals compared
//! reply for reply (and `RESTORE-ASKING`, the same command), and damaged payloads (every truncation, flipped
//! bytes, garbage under a right checksum, huge lengths, random
//! mutations): an error reply each, and the connection stays usable.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_resp::rdb;

use crate::common::peer::{self, PeerRedis};
use crate::common::{self, Client, Value};

/// One key built by `commands` (each a command's arguments), which Redis
/// holds in `encoding`.
struct Case {
    key: &'static str,
    commands: Vec<Vec<Vec<u8>>>,
    encoding: &'static str,
}

fn words(args: &[&str]) -> Vec<Vec<u8>> {
    args.iter().map(|a| a.as_bytes().to_vec()).collect()
}

/// `command key` followed by `items`.
fn with_items(command: &str, key: &str, items: impl IntoIterator<Item = Vec<u8>>) -> Vec<Vec<u8>> {
    let mut c = words(&[command, key]);
    c.extend(items);
    c
}

fn numbered(prefix: &str, n: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    (0..n).map(move |i| format!("{prefix}{i}").into_bytes())
}

fn cases() -> Vec<Case> {
    let binary = b"\0\xff\x80 bin\r\n".to_vec();
    let long = vec![b'z'; 70];
    let case = |key, commands, encoding| Case {
        key,
        commands,
        encoding,
    };
    let hll_many = with_items("PFADD", "hll_dense", numbered("e", 3000));
    vec![
        case(
            "s_raw",
            vec![words(&["SET", "s_raw", "hello world"])],
            "embstr",
        ),
        case("s_int", vec![words(&["SET", "s_int", "-12345"])], "int"),
        case(
            "s_big_int",
            vec![words(&["SET", "s_big_int", "12345678901234"])],
            "int",
        ),
        case("s_empty", vec![words(&["SET", "s_empty", ""])], "embstr"),
        case(
            "s_bin",
            vec![vec![b"SET".to_vec(), b"s_bin".to_vec(), binary.clone()]],
            "embstr",
        ),
        // Compressible: Redis writes it LZF-compressed.
        case(
            "s_lzf",
            vec![words(&["SET", "s_lzf", &"abc".repeat(400)])],
            "raw",
        ),
        case(
            "s_ttl",
            vec![words(&["SET", "s_ttl", "v", "PX", "100000"])],
            "embstr",
        ),
        case(
            "hll_sparse",
            vec![words(&["PFADD", "hll_sparse", "a", "b", "c"])],
            "raw",
        ),
        case("hll_dense", vec![hll_many], "raw"),
        case("bits", vec![words(&["SETBIT", "bits", "1000", "1"])], "raw"),
        case(
            "l_small",
            vec![
                words(&[
                    "RPUSH",
                    "l_small",
                    "a",
                    "1",
                    "-7",
                    "",
                    "300000",
                    "9223372036854775807",
                ]),
                vec![b"RPUSH".to_vec(), b"l_small".to_vec(), binary.clone()],
            ],
            "quicklist",
        ),
        case(
            "l_large",
            vec![with_items("RPUSH", "l_large", numbered("element-", 3000))],
            "quicklist",
        ),
        case(
            "set_int",
            vec![words(&[
                "SADD",
                "set_int",
                "1",
                "-2",
                "70000",
                "5000000000",
            ])],
            "intset",
        ),
        case(
            "set_large_int",
            vec![with_items("SADD", "set_large_int", numbered("", 600))],
            "hashtable",
        ),
        case(
            "set_str",
            vec![
                words(&["SADD", "set_str", "a", "b", ""]),
                vec![b"SADD".to_vec(), b"set_str".to_vec(), binary.clone()],
            ],
            "hashtable",
        ),
        case(
            "z_small",
            vec![words(&[
                "ZADD", "z_small", "-inf", "a", "-0.5", "b", "0", "c", "3", "d", "1e300", "e",
                "3.14159", "f", "inf", "g",
            ])],
            "listpack",
        ),
        case(
            "z_large",
            vec![with_items(
                "ZADD",
                "z_large",
                (0..300).flat_map(|i| {
                    [
                        format!("{}.25", i64::from(i) - 150).into_bytes(),
                        format!("m{i}").into_bytes(),
                    ]
                }),
            )],
            "skiplist",
        ),
        case(
            "z_long",
            vec![vec![
                b"ZADD".to_vec(),
                b"z_long".to_vec(),
                b"1".to_vec(),
                long.clone(),
            ]],
            "skiplist",
        ),
        case(
            "h_small",
            vec![
                words(&["HSET", "h_small", "f", "v", "n", "42", "e", ""]),
                vec![
                    b"HSET".to_vec(),
                    b"h_small".to_vec(),
                    binary.clone(),
                    binary.clone(),
                ],
            ],
            "listpack",
        ),
        case(
            "h_large",
            vec![with_items(
                "HSET",
                "h_large",
                (0..1000).flat_map(|i| [format!("f{i}").into_bytes(), format!("{i}").into_bytes()]),
            )],
            "hashtable",
        ),
        case(
            "h_long",
            vec![vec![
                b"HSET".to_vec(),
                b"h_long".to_vec(),
                b"f".to_vec(),
                long,
            ]],
            "hashtable",
        ),
    ]
}

fn run(c: &mut Client, args: &[Vec<u8>]) -> Value {
    let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    c.cmd_bytes(&args)
}

/// The whole value at `key`, in an order-free form, and whether it has a
/// TTL (the TTL itself is compared apart, within a tolerance).
fn snapshot(c: &mut Client, key: &str) -> (String, Vec<Value>) {
    // PFCOUNT first: it caches the count in the value GET then shows.
    let count = key.starts_with("hll").then(|| c.cmd(&["PFCOUNT", key]));
    let kind = c.cmd(&["TYPE", key]).text();
    let mut value = match kind.as_str() {
        "string" => vec![c.cmd(&["GET", key])],
        "list" => c.cmd(&["LRANGE", key, "0", "-1"]).array().to_vec(),
        "set" => c.cmd(&["SMEMBERS", key]).array().to_vec(),
        // Scores as numbers: Redis 7.0 prints them with `%.17g`, Strata
        // (as Redis 7.2) in their shortest form.
        "zset" => c
            .cmd(&["ZRANGE", key, "0", "-1", "WITHSCORES"])
            .array()
            .chunks(2)
            .flat_map(|p| {
                let score: f64 = p[1].text().parse().expect("score");
                [p[0].clone(), Value::Double(format!("{score:?}"))]
            })
            .collect(),
        "hash" => {
            let flat = c.cmd(&["HGETALL", key]).array().to_vec();
            let mut pairs: Vec<Value> = flat.chunks(2).map(|p| Value::Array(p.to_vec())).collect();
            pairs.sort_by_key(|p| format!("{p:?}"));
            pairs
        }
        "none" => Vec::new(),
        other => panic!("type {other}"),
    };
    if kind == "set" {
        value.sort_by_key(|v| format!("{v:?}"));
    }
    value.extend(count);
    (kind, value)
}

fn pttl(c: &mut Client, key: &str) -> i64 {
    match c.cmd(&["PTTL", key]) {
        Value::Int(n) => n,
        other => panic!("PTTL: {other:?}"),
    }
}

/// Same TTL within 10 s (the two ends ran at slightly different times).
fn same_ttl(a: i64, b: i64) -> bool {
    (a < 0 && a == b) || (a > 0 && b > 0 && (a - b).abs() < 10_000)
}

fn dump(c: &mut Client, key: &str) -> Vec<u8> {
    match c.cmd(&["DUMP", key]) {
        Value::Bulk(b) => b,
        other => panic!("DUMP {key}: {other:?}"),
    }
}

fn restore(c: &mut Client, key: &str, ttl: i64, payload: &[u8], extra: &[&str]) -> Value {
    let ttl = ttl.to_string();
    let mut args: Vec<&[u8]> = vec![b"RESTORE", key.as_bytes(), ttl.as_bytes(), payload];
    args.extend(extra.iter().map(|e| e.as_bytes()));
    c.cmd_bytes(&args)
}

fn peer() -> PeerRedis {
    peer::spawn_redis_with(&["--enable-debug-command", "yes"])
        .expect("redis-server is needed for this comparison (scripts/test installs it)")
}

#[test]
fn every_type_and_encoding_moves_both_ways() {
    let server = common::start();
    let peer = peer();
    let (mut s, mut r) = (Client::connect(&server), peer.client());
    for case in cases() {
        for command in &case.commands {
            assert!(
                !matches!(run(&mut r, command), Value::Error(_)),
                "{}",
                case.key
            );
            assert!(
                !matches!(run(&mut s, command), Value::Error(_)),
                "{}",
                case.key
            );
        }
        let encoding = r.cmd(&["OBJECT", "ENCODING", case.key]).text();
        assert_eq!(encoding, case.encoding, "{}: Redis's encoding", case.key);
        let want = snapshot(&mut r, case.key);
        let want_ttl = pttl(&mut r, case.key);
        // Redis -> Strata, under another key.
        let payload = dump(&mut r, case.key);
        let to = format!("{}_from_redis", case.key);
        let ttl = want_ttl.max(0);
        assert_eq!(
            restore(&mut s, &to, ttl, &payload, &[]),
            Value::ok(),
            "{}",
            case.key
        );
        assert_eq!(
            snapshot(&mut s, &to),
            want,
            "{} restored in Strata",
            case.key
        );
        assert!(same_ttl(pttl(&mut s, &to), want_ttl), "{} TTL", case.key);
        // Held as Strata holds the same value built by commands (packed or
        // large).
        assert_eq!(
            s.cmd(&["OBJECT", "ENCODING", &to]),
            s.cmd(&["OBJECT", "ENCODING", case.key]),
            "{} encoding in Strata",
            case.key
        );
        // And the same dump restored by Redis (the comparison's control).
        assert_eq!(restore(&mut r, &to, ttl, &payload, &[]), Value::ok());
        assert_eq!(snapshot(&mut r, &to), want);
        // Strata -> Redis.
        assert_eq!(
            snapshot(&mut s, case.key),
            want,
            "{} built in Strata",
            case.key
        );
        let payload = dump(&mut s, case.key);
        let to = format!("{}_from_strata", case.key);
        let ttl = pttl(&mut s, case.key).max(0);
        assert_eq!(
            restore(&mut r, &to, ttl, &payload, &[]),
            Value::ok(),
            "{}",
            case.key
        );
        assert_eq!(
            snapshot(&mut r, &to),
            want,
            "{} restored in Redis",
            case.key
        );
        assert!(
            same_ttl(pttl(&mut r, &to), want_ttl),
            "{} TTL in Redis",
            case.key
        );
    }
}

#[test]
fn plain_quicklist_nodes_and_compressed_elements() {
    let server = common::start();
    let peer = peer();
    let (mut s, mut r) = (Client::connect(&server), peer.client());
    // Elements past the threshold go in plain nodes (LZF-compressed here).
    assert_eq!(
        r.cmd(&["DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100"]),
        Value::ok()
    );
    let big = "x".repeat(300);
    let odd: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    r.cmd(&["RPUSH", "l", "a", &big, "b", "7"]);
    r.cmd_bytes(&[b"RPUSH", b"l", &odd]);
    let want = snapshot(&mut r, "l");
    let payload = dump(&mut r, "l");
    assert_eq!(restore(&mut s, "l", 0, &payload, &[]), Value::ok());
    assert_eq!(snapshot(&mut s, "l"), want);
}

#[test]
fn strata_round_trip_with_replace_absttl_and_busykey() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["RPUSH", "src", "a", "b", "c"]);
    let payload = dump(&mut c, "src");
    assert_eq!(c.cmd(&["DUMP", "missing"]), Value::Null);
    assert_eq!(restore(&mut c, "dst", 0, &payload, &[]), Value::ok());
    assert_eq!(
        restore(&mut c, "dst", 0, &payload, &[]),
        Value::err("BUSYKEY Target key name already exists.")
    );
    // BUSYKEY comes before the TTL and the payload are looked at.
    assert_eq!(
        c.cmd_bytes(&[b"RESTORE", b"dst", b"nope", b"garbage"]),
        Value::err("BUSYKEY Target key name already exists.")
    );
    c.cmd(&["SET", "str", "x"]);
    assert_eq!(
        restore(&mut c, "str", 0, &payload, &["REPLACE"]),
        Value::ok()
    );
    assert_eq!(
        c.cmd(&["LRANGE", "str", "0", "-1"]),
        common::bulks(&["a", "b", "c"])
    );
    assert_eq!(pttl(&mut c, "str"), -1);
    // Relative and absolute TTLs.
    assert_eq!(restore(&mut c, "t1", 5000, &payload, &[]), Value::ok());
    assert!((1..=5000).contains(&pttl(&mut c, "t1")));
    // The test server's clock is manual, standing at `T0_MS`.
    let now_ms = common::T0_MS as i64;
    let at = now_ms + 60_000;
    assert_eq!(
        restore(&mut c, "t2", at, &payload, &["ABSTTL"]),
        Value::ok()
    );
    assert!((50_000..=60_000).contains(&pttl(&mut c, "t2")));
    // An absolute time past: OK, and the key is not there (REPLACE deletes
    // what it would have replaced).
    assert_eq!(
        restore(&mut c, "t3", 1000, &payload, &["ABSTTL"]),
        Value::ok()
    );
    assert_eq!(c.cmd(&["EXISTS", "t3"]), Value::Int(0));
    assert_eq!(
        restore(&mut c, "t2", 1000, &payload, &["ABSTTL", "REPLACE"]),
        Value::ok()
    );
    assert_eq!(c.cmd(&["EXISTS", "t2"]), Value::Int(0));
    assert_eq!(
        restore(&mut c, "t4", 0, &payload, &["IDLETIME", "100", "REPLACE"]),
        Value::ok()
    );
    assert_eq!(
        restore(&mut c, "t5", 0, &payload, &["FREQ", "5"]),
        Value::ok()
    );
    // Large values replacing large values, chunks and all.
    let mut hset = vec!["HSET".to_string(), "bh".into()];
    let mut rpush = vec!["RPUSH".to_string(), "bl".into()];
    for i in 0..2000 {
        hset.extend([format!("field-{i}"), format!("value-{i}")]);
        rpush.push(format!("element-{i}"));
    }
    for args in [&hset, &rpush] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert!(matches!(c.cmd(&args), Value::Int(2000)));
    }
    let (big_hash, big_list) = (dump(&mut c, "bh"), dump(&mut c, "bl"));
    let want = snapshot(&mut c, "bh");
    assert_eq!(
        restore(&mut c, "bh", 0, &big_hash, &["REPLACE"]),
        Value::ok()
    );
    assert_eq!(snapshot(&mut c, "bh"), want);
    assert_eq!(
        restore(&mut c, "bh", 0, &big_list, &["REPLACE"]),
        Value::ok()
    );
    assert_eq!(snapshot(&mut c, "bh"), snapshot(&mut c, "bl"));
    assert_eq!(
        restore(&mut c, "bl", 0, &big_hash, &["REPLACE"]),
        Value::ok()
    );
    assert_eq!(snapshot(&mut c, "bl"), want);
    assert_eq!(c.cmd(&["HLEN", "bl"]), Value::Int(2000));
    assert_eq!(c.cmd(&["LLEN", "bh"]), Value::Int(2000));
    // TTLs at the edge of the range: accepted, far in the future.
    for extra in [&["REPLACE"][..], &["REPLACE", "ABSTTL"]] {
        assert_eq!(
            restore(&mut c, "far", i64::MAX, &payload, extra),
            Value::ok()
        );
        assert!(pttl(&mut c, "far") > 0);
    }
    // Into a MULTI and a script.
    c.cmd(&["MULTI"]);
    c.cmd(&["DUMP", "src"]);
    c.cmd(&["DEL", "m"]);
    c.cmd_bytes(&[b"RESTORE", b"m", b"0", &payload]);
    match c.cmd(&["EXEC"]) {
        Value::Array(replies) => {
            assert_eq!(replies[0], Value::Bulk(payload.clone()));
            assert_eq!(replies[2], Value::ok());
        }
        other => panic!("EXEC: {other:?}"),
    }
    let script = "return redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]))";
    assert_eq!(c.cmd(&["EVAL", script, "2", "src", "lua"]), Value::ok());
    assert_eq!(
        c.cmd(&["LRANGE", "lua", "0", "-1"]),
        common::bulks(&["a", "b", "c"])
    );
    // The command table rows.
    let info = c.cmd(&["COMMAND", "INFO", "dump", "restore"]);
    let rows = info.array();
    assert_eq!(rows[0].array()[1], Value::Int(2));
    assert_eq!(rows[1].array()[1], Value::Int(-4));
}

#[test]
fn refusals_and_command_rows_match_redis() {
    let server = common::start();
    let peer = peer::require_redis();
    let (mut s, mut r) = (Client::connect(&server), peer.client());
    r.cmd(&["HSET", "h", "f", "v"]);
    let good = dump(&mut r, "h");
    let mut flipped = good.clone();
    flipped[2] ^= 0x20;
    let mut newer = good[..good.len() - 10].to_vec();
    rdb::seal(&mut newer, rdb::MAX_VERSION + 1);
    let garbage = {
        let mut b = vec![4u8, 0x80, 0xff, 0xff, 0xff, 0xff];
        rdb::seal(&mut b, 10);
        b
    };
    let cases: Vec<Vec<&[u8]>> = vec![
        vec![b"RESTORE", b"k", b"-1", &good],
        vec![b"RESTORE", b"k", b"x", &good],
        vec![b"RESTORE", b"k", b"0", &good, b"IDLETIME", b"-1"],
        vec![b"RESTORE", b"k", b"0", &good, b"IDLETIME", b"x"],
        vec![b"RESTORE", b"k", b"0", &good, b"FREQ", b"256"],
        vec![b"RESTORE", b"k", b"0", &good, b"FREQ", b"-1"],
        vec![
            b"RESTORE",
            b"k",
            b"0",
            &good,
            b"FREQ",
            b"1",
            b"IDLETIME",
            b"1",
        ],
        vec![b"RESTORE", b"k", b"0", &good, b"IDLETIME"],
        vec![b"RESTORE", b"k", b"0", &good, b"BOGUS"],
        vec![b"RESTORE", b"k", b"0", &flipped],
        vec![b"RESTORE", b"k", b"0", &newer],
        vec![b"RESTORE", b"k", b"0", b"short"],
        vec![b"RESTORE", b"k", b"0", &garbage],
        vec![b"RESTORE", b"k", b"0"],
        vec![b"DUMP"],
        vec![b"DUMP", b"a", b"b"],
    ];
    for args in cases {
        let want = r.cmd_bytes(&args);
        assert!(matches!(want, Value::Error(_)), "{want:?}");
        assert_eq!(
            s.cmd_bytes(&args),
            want,
            "{:?}",
            String::from_utf8_lossy(&args.concat())
        );
    }
    // The command table's rows: arity, flags, key positions, categories
    // and key specifications as Redis's (its tips aside), and the docs.
    let rows = ["COMMAND", "INFO", "dump", "restore", "restore-asking"];
    let (ours, theirs) = (s.cmd(&rows), r.cmd(&rows));
    assert_eq!(ours.array().len(), 3);
    for (a, b) in ours.array().iter().zip(theirs.array()) {
        assert_eq!(a.array()[..7], b.array()[..7]);
        assert_eq!(a.array()[8], b.array()[8]);
    }
    for name in ["dump", "restore", "restore-asking"] {
        assert_eq!(
            peer::doc_basics(&mut s, name),
            peer::doc_basics(&mut r, name),
            "{name}"
        );
    }
    let dangerous = |c: &mut Client| {
        let cat = c.cmd(&["ACL", "CAT", "dangerous"]);
        cat.array().iter().any(|v| v.text() == "restore")
    };
    assert!(dangerous(&mut s) && dangerous(&mut r));
    // RESTORE-ASKING (what a migration sends after -ASK) is RESTORE.
    for c in [&mut s, &mut r] {
        let asked = c.cmd_bytes(&[b"RESTORE-ASKING", b"asked", b"0", &good]);
        assert_eq!(asked, Value::ok());
        assert_eq!(c.cmd(&["HGET", "asked", "f"]), Value::bulk("v"));
    }
    let busy: Vec<&[u8]> = vec![b"RESTORE-ASKING", b"asked", b"0", &good];
    assert_eq!(s.cmd_bytes(&busy), r.cmd_bytes(&busy));
    // Every truncation of real dumps: the same refusal as Redis's.
    r.cmd(&["ZADD", "z", "1", "a", "2.5", "b"]);
    r.cmd(&["SET", "lzf", &"abc".repeat(100)]);
    for key in ["h", "z", "lzf"] {
        let payload = dump(&mut r, key);
        for cut in 0..payload.len() {
            let part = &payload[..cut];
            let want = restore(&mut r, "cut", 0, part, &[]);
            assert_eq!(
                restore(&mut s, "cut", 0, part, &[]),
                want,
                "{key} cut at {cut}"
            );
        }
    }
}

#[test]
fn damaged_payloads_get_errors_and_the_connection_stays() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["HSET", "h", "f", "v", "g", "w"]);
    c.cmd(&["RPUSH", "l", "a", "bb", "ccc"]);
    c.cmd(&["ZADD", "z", "1", "a", "-inf", "b"]);
    c.cmd(&["XADD", "x", "1-1", "f", "v", "g", "w"]);
    c.cmd(&["XADD", "x", "1-2", "f", "v2", "g", "w2"]);
    c.cmd(&["XADD", "x", "2-0", "other", "1"]);
    c.cmd(&["XGROUP", "CREATE", "x", "grp", "0"]);
    c.cmd(&[
        "XREADGROUP",
        "GROUP",
        "grp",
        "me",
        "COUNT",
        "2",
        "STREAMS",
        "x",
        ">",
    ]);
    let mut bodies: Vec<Vec<u8>> = ["h", "l", "z", "x"]
        .iter()
        .map(|k| {
            let p = dump(&mut c, k);
            p[..p.len() - 10].to_vec()
        })
        .collect();
    // Redis's packed encodings too, built by hand: a hash listpack and a
    // quicklist of one listpack node.
    let lp: Vec<u8> = [13, 0, 0, 0, 2, 0, 0x81, b'f', 2, 0x81, b'v', 2, 0xff].to_vec();
    let mut h = vec![16u8, lp.len() as u8];
    h.extend_from_slice(&lp);
    let mut q = vec![18u8, 1, 2, lp.len() as u8];
    q.extend_from_slice(&lp);
    bodies.push(h.clone());
    bodies.push(q);
    // Those hand-built ones are right as they are.
    let mut sealed_h = h;
    rdb::seal(&mut sealed_h, 10);
    assert_eq!(restore(&mut c, "hand", 0, &sealed_h, &[]), Value::ok());
    assert_eq!(c.cmd(&["HGET", "hand", "f"]), Value::bulk("v"));
    // Huge declared lengths, odd types.
    bodies.push(vec![
        0, 0x81, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
    bodies.push(vec![18, 0x80, 0xff, 0xff, 0xff, 0xff]);
    bodies.push(vec![0, 0xc3, 0x01, 0x80, 0x7f, 0xff, 0xff, 0xff, 0x00]);
    bodies.push(vec![9, 0]);
    bodies.push(vec![200]);
    let mut rng = SmallRng::seed_from_u64(7);
    let rounds = common::fuzz_cases(300, 3000);
    for body in &bodies {
        for cut in 0..body.len() {
            let mut p = body[..cut].to_vec();
            rdb::seal(&mut p, 10);
            let reply = restore(&mut c, "fz", 0, &p, &["REPLACE"]);
            assert!(
                matches!(reply, Value::Error(_) | Value::Simple(_)),
                "{reply:?}"
            );
        }
        for _ in 0..rounds {
            let mut m = body.clone();
            for _ in 0..rng.gen_range(1..4) {
                let at = rng.gen_range(0..m.len());
                m[at] = rng.gen();
            }
            // Unsealed: the checksum catches it.
            let mut unsealed = m.clone();
            unsealed.extend_from_slice(&[10, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
            assert_eq!(
                restore(&mut c, "fz", 0, &unsealed, &["REPLACE"]),
                Value::err("ERR DUMP payload version or checksum are wrong")
            );
            rdb::seal(&mut m, 10);
            let reply = restore(&mut c, "fz", 0, &m, &["REPLACE"]);
            assert!(
                reply == Value::ok() || reply == Value::err("ERR Bad data format"),
                "{reply:?}"
            );
            if reply == Value::ok() {
                // Whatever was accepted reads and dumps again.
                let again = dump(&mut c, "fz");
                assert_eq!(restore(&mut c, "fz2", 0, &again, &["REPLACE"]), Value::ok());
                if c.cmd(&["TYPE", "fz"]).text() == "stream" {
                    for args in [
                        &["XINFO", "STREAM", "fz", "FULL"][..],
                        &["XREVRANGE", "fz", "+", "-"],
                        &["XREADGROUP", "GROUP", "grp", "me", "STREAMS", "fz", "0"],
                        &["XADD", "fz", "*", "a", "b"],
                    ] {
                        c.cmd(args);
                    }
                }
            }
        }
    }
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
    assert_eq!(c.cmd(&["HGET", "h", "f"]), Value::bulk("v"));
}

/// The stream at `key` as its commands show it, less what depends on each
/// server's clock (idle times) or its internals (radix tree sizes).
fn stream_view(c: &mut Client, key: &str) -> Vec<Value> {
    fn fields(reply: &Value, keep: &[&str]) -> Vec<Value> {
        let flat = reply.array();
        let pairs = flat
            .chunks(2)
            .filter(|p| keep.contains(&p[0].text().as_str()));
        pairs.flat_map(|p| p.to_vec()).collect()
    }
    let mut view = vec![
        c.cmd(&["XRANGE", key, "-", "+"]),
        c.cmd(&["XREVRANGE", key, "+", "-"]),
        c.cmd(&["XLEN", key]),
    ];
    let info = c.cmd(&["XINFO", "STREAM", key]);
    let keep = [
        "length",
        "last-generated-id",
        "max-deleted-entry-id",
        "entries-added",
        "groups",
        "first-entry",
        "last-entry",
    ];
    view.extend(fields(&info, &keep));
    let groups = c.cmd(&["XINFO", "GROUPS", key]);
    for g in groups.array() {
        let keep = [
            "name",
            "consumers",
            "pending",
            "last-delivered-id",
            "entries-read",
            "lag",
        ];
        view.extend(fields(g, &keep));
        let name = fields(g, &["name"])[1].text();
        view.push(c.cmd(&["XPENDING", key, &name]));
        let pending = c.cmd(&["XPENDING", key, &name, "-", "+", "1000"]);
        for p in pending.array() {
            // id, consumer, (idle), deliveries
            let p = p.array();
            view.extend([p[0].clone(), p[1].clone(), p[3].clone()]);
        }
        for consumer in c.cmd(&["XINFO", "CONSUMERS", key, &name]).array() {
            view.extend(fields(consumer, &["name", "pending"]));
        }
    }
    view
}

#[test]
fn streams_move_both_ways() {
    let server = common::start();
    let peer = peer::require_redis();
    let (mut s, mut r) = (Client::connect(&server), peer.client());
    let big = "v".repeat(300);
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut cmd = |args: &[&str]| commands.push(args.iter().map(|a| a.to_string()).collect());
    for i in 1..=250 {
        let ms = (1000 + i / 3).to_string();
        let id = format!("{ms}-{}", i % 3);
        let n = i.to_string();
        match i % 5 {
            0 => cmd(&["XADD", "big", &id, "f", &n, "other", "x"]),
            1 => cmd(&["XADD", "big", &id, "f", &n, "bin\0", &big]),
            _ => cmd(&["XADD", "big", &id, "f", &n, "g", "-12345"]),
        }
    }
    for id in ["1001-0", "1010-2", "1050-1", "1083-1"] {
        cmd(&["XDEL", "big", id]);
    }
    cmd(&["XGROUP", "CREATE", "big", "g1", "0"]);
    cmd(&[
        "XREADGROUP",
        "GROUP",
        "g1",
        "alice",
        "COUNT",
        "5",
        "STREAMS",
        "big",
        ">",
    ]);
    cmd(&[
        "XREADGROUP",
        "GROUP",
        "g1",
        "bob",
        "COUNT",
        "3",
        "STREAMS",
        "big",
        ">",
    ]);
    cmd(&["XACK", "big", "g1", "1000-1", "1002-0"]);
    cmd(&["XGROUP", "CREATE", "big", "g2", "$"]);
    cmd(&["XGROUP", "CREATECONSUMER", "big", "g2", "carol"]);
    cmd(&["XADD", "small", "5-1", "a", "1"]);
    cmd(&["XADD", "emptied", "7-7", "a", "1"]);
    cmd(&["XDEL", "emptied", "7-7"]);
    cmd(&["XADD", "fresh", "MAXLEN", "0", "9-9", "a", "1"]);
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (a, b) = (r.cmd(&args), s.cmd(&args));
        assert!(!matches!(a, Value::Error(_)), "{args:?}: {a:?}");
        assert!(!matches!(b, Value::Error(_)), "{args:?}: {b:?}");
    }
    for key in ["big", "small", "emptied", "fresh"] {
        let want = stream_view(&mut r, key);
        assert_eq!(stream_view(&mut s, key), want, "{key} built alike");
        let from_redis = dump(&mut r, key);
        let to = format!("{key}_from_redis");
        assert_eq!(
            restore(&mut s, &to, 0, &from_redis, &[]),
            Value::ok(),
            "{key}"
        );
        assert_eq!(stream_view(&mut s, &to), want, "{key} restored in Strata");
        let from_strata = dump(&mut s, key);
        let to = format!("{key}_from_strata");
        assert_eq!(
            restore(&mut r, &to, 0, &from_strata, &[]),
            Value::ok(),
            "{key}"
        );
        assert_eq!(stream_view(&mut r, &to), want, "{key} restored in Redis");
        // Redis goes on appending to what Strata dumped, and so does Strata.
        let next = ["XADD", &to, "99999-0", "new", "entry"];
        assert_eq!(r.cmd(&next), Value::bulk("99999-0"));
        let to = format!("{key}_from_redis");
        let next = ["XADD", &to, "99999-0", "new", "entry"];
        assert_eq!(s.cmd(&next), Value::bulk("99999-0"));
    }
    // A group keeps working where it was: the next read after restoring.
    let read = [
        "XREADGROUP",
        "GROUP",
        "g1",
        "alice",
        "COUNT",
        "2",
        "STREAMS",
        "big_from_strata",
        ">",
    ];
    let want = r.cmd(&read);
    let read = [
        "XREADGROUP",
        "GROUP",
        "g1",
        "alice",
        "COUNT",
        "2",
        "STREAMS",
        "big_from_redis",
        ">",
    ];
    let got = s.cmd(&read);
    match (got, want) {
        (Value::Array(a), Value::Array(b)) => assert_eq!(a[0].array()[1], b[0].array()[1]),
        other => panic!("{other:?}"),
    }
}
