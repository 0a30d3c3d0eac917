//! `SORT`, `SORT_RO` and `LCS` against a real Redis: seeded random lists,
//! sets, sorted sets, hashes and strings (weights that are numbers, words,
//! `strtod` corner cases and missing), and random `SORT`/`SORT_RO` (every
//! option, in any order, `BY`/`GET` patterns with `*`, `->field` and `#`,
//! `LIMIT` from negative to `i64::MAX`, `STORE` over keys of every type)
//! and `LCS` (every option) sent to Strata and to `redis-server`, every
//! reply compared, in RESP2 and RESP3. `STRATA_FUZZ_CASES` sets the number
//! of commands per seed. Where Redis leaves the order unspecified it is not compared as such:
//! a set kept in its own order (`BY` a constant, no `STORE`), and `ALPHA`
//! `BY` a pattern, whose equal weights keep the order Redis loaded the
//! elements in (a set's or a sorted set's hash order; `LIMIT`'s partial
//! quicksort): the rows are then compared as a multiset, or only counted
//! under `LIMIT`, and a destination so stored is compared the same way and
//! deleted. The peer may be Redis 7.0: the one difference of these
//! commands from 7.2 (7.2 stores a short `SORT ... STORE` result as a
//! listpack) shows only in `OBJECT ENCODING`, which is not compared.
//!
//! Redis (7.0 to 8) never clears `errno` before its `strtod`: after a
//! weight that overflowed (`1e400`), its later sorts of weights that are
//! not integers fail too, on the same connection, until some unrelated
//! system call changes `errno`. Strata refuses only the weights that
//! overflow themselves; after each such refusal the comparison resets the
//! peer's `errno` (a new connection: Redis's accept loop ends on `EAGAIN`).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::common::peer::PeerRedis;
use crate::common::{self, Client, Value};

/// Elements: numbers, words, and what `strtod` reads oddly.
const ELEMENTS: &[&str] = &[
    "0", "1", "2", "3", "5", "8", "10", "13", "-1", "-7", "2.5", "1e2", "007", "0x1A", "a", "b",
    "c", "apple", "Z", "zz", "10a",
];
/// Rare elements: refused as weights, or read as 0 or infinity.
const ODD: &[&str] = &[
    "", " 3", "3 ", "inf", "-inf", "nan", "1e400", "1e-400", "abc",
];
/// Weight values.
const WEIGHTS: &[&str] = &[
    "1", "2", "3", "4", "5", "9", "-2", "0.5", "1e1", "x", "y", "aa", "B", "", "inf",
];
const SOURCES: &[&str] = &["l1", "l2", "s1", "s2", "z1", "z2", "str", "h", "none", "d1"];
const BY: &[&str] = &[
    "w_*", "w_*", "o_*->f", "o_*->g", "nosort", "o_*->", "*", "w_*x", "w_\0*",
];
const GET: &[&str] = &["#", "w_*", "o_*->f", "o_*->g", "nokey", "*", "#\0x"];

fn pick<'a>(rng: &mut SmallRng, from: &[&'a str]) -> &'a str {
    from[rng.gen_range(0..from.len())]
}

fn element(rng: &mut SmallRng, numeric: bool) -> String {
    if rng.gen_bool(0.04) {
        return pick(rng, ODD).into();
    }
    if numeric {
        return rng.gen_range(-3..15).to_string();
    }
    pick(rng, ELEMENTS).into()
}

/// A command that changes the data.
fn write(rng: &mut SmallRng) -> Vec<String> {
    let s = |v: &str| v.to_string();
    let numeric = rng.gen_bool(0.5);
    let (name, key) = match rng.gen_range(0..100) {
        0..=19 => (pick(rng, &["RPUSH", "LPUSH"]), pick(rng, &["l1", "l2"])),
        20..=34 => ("SADD", pick(rng, &["s1", "s2"])),
        35..=49 => ("ZADD", pick(rng, &["z1", "z2"])),
        50..=69 => {
            let key = format!("w_{}", element(rng, numeric));
            return vec![s("SET"), key, s(pick(rng, WEIGHTS))];
        }
        70..=84 => {
            let key = format!("o_{}", element(rng, numeric));
            return vec![
                s("HSET"),
                key,
                s(pick(rng, &["f", "g"])),
                s(pick(rng, WEIGHTS)),
            ];
        }
        85..=89 => {
            let text: String = (0..rng.gen_range(0..24))
                .map(|_| ['a', 'b', 'c', ' ', 'x'][rng.gen_range(0..5)])
                .collect();
            return vec![s("SET"), s(pick(rng, &["a1", "a2"])), text];
        }
        90..=92 => {
            return vec![
                s("RPUSH"),
                format!("w_{}", element(rng, numeric)),
                s("listed"),
            ]
        }
        _ => {
            let key = match rng.gen_range(0..3) {
                0 => s(pick(rng, SOURCES)),
                1 => format!("w_{}", element(rng, numeric)),
                _ => format!("o_{}", element(rng, numeric)),
            };
            return vec![s("DEL"), key];
        }
    };
    let mut cmd = vec![s(name), s(key)];
    for _ in 0..rng.gen_range(1..6) {
        if name == "ZADD" {
            cmd.push(rng.gen_range(-2..4).to_string());
        }
        cmd.push(element(rng, numeric));
    }
    cmd
}

/// What a random `SORT` asks, for deciding how to compare its reply.
struct Sort {
    cmd: Vec<String>,
    source: String,
    by: Option<String>,
    alpha: bool,
    limit: bool,
    gets: usize,
    store: Option<String>,
}

fn sort(rng: &mut SmallRng) -> Sort {
    let s = |v: &str| v.to_string();
    let ro = rng.gen_bool(0.25);
    let source = s(pick(rng, SOURCES));
    let mut options: Vec<Vec<String>> = Vec::new();
    let mut by = None;
    if rng.gen_bool(0.5) {
        let p = pick(rng, BY);
        by = Some(s(p));
        options.push(vec![s("BY"), s(p)]);
    }
    let limit = rng.gen_bool(0.35);
    if limit {
        let n = |rng: &mut SmallRng| match rng.gen_range(0..12) {
            0 => s("9223372036854775807"),
            1 => s("-9223372036854775808"),
            _ => rng.gen_range(-2..7).to_string(),
        };
        options.push(vec![s("LIMIT"), n(rng), n(rng)]);
    }
    let gets = if rng.gen_bool(0.4) {
        rng.gen_range(1..4)
    } else {
        0
    };
    for _ in 0..gets {
        options.push(vec![s("GET"), s(pick(rng, GET))]);
    }
    if rng.gen_bool(0.4) {
        options.push(vec![s(["ASC", "DESC", "desc"][rng.gen_range(0..3)])]);
    }
    let alpha = rng.gen_bool(0.5);
    if alpha {
        options.push(vec![s("ALPHA")]);
    }
    let mut store = None;
    if !ro && rng.gen_bool(0.3) {
        let d = s(pick(rng, &["d1", "d2", "d1", "str", "h", "s2", "l1"]));
        store = Some(d.clone());
        options.push(vec![s("STORE"), d]);
    }
    if rng.gen_bool(0.02) {
        options.push(vec![s(["LIMIT", "BOGUS", "GET"][rng.gen_range(0..3)])]);
    }
    if rng.gen_bool(0.02) {
        options.push(vec![s("LIMIT"), s("x"), s("1")]);
    }
    // Options in any order.
    for i in (1..options.len()).rev() {
        options.swap(i, rng.gen_range(0..=i));
    }
    let mut cmd = vec![s(if ro { "SORT_RO" } else { "SORT" }), source.clone()];
    cmd.extend(options.into_iter().flatten());
    Sort {
        cmd,
        source,
        by,
        alpha,
        limit,
        gets,
        store,
    }
}

fn lcs(rng: &mut SmallRng) -> Vec<String> {
    let s = |v: &str| v.to_string();
    let keys = ["a1", "a2", "a1", "none", "l1", "str"];
    let mut cmd = vec![s("LCS"), s(pick(rng, &keys)), s(pick(rng, &keys))];
    for _ in 0..rng.gen_range(0..4) {
        match rng.gen_range(0..12) {
            0..=2 => cmd.push(s("IDX")),
            3 => cmd.push(s("LEN")),
            4..=6 => cmd.push(s("WITHMATCHLEN")),
            7..=9 => cmd.extend([s("MINMATCHLEN"), rng.gen_range(-1..5).to_string()]),
            10 => cmd.push(s("MINMATCHLEN")),
            _ => cmd.push(s("BOGUS")),
        }
    }
    cmd
}

fn send(c: &mut Client, cmd: &[String]) -> Value {
    let args: Vec<&[u8]> = cmd.iter().map(String::as_bytes).collect();
    c.cmd_bytes(&args)
}

/// The rows of an array reply in groups of `width`, sorted: the reply as
/// a multiset of elements (with their `GET`s).
fn groups(v: &Value, width: usize) -> Vec<Vec<Value>> {
    let mut rows: Vec<Vec<Value>> = v.array().chunks(width).map(<[Value]>::to_vec).collect();
    rows.sort_by_key(|r| format!("{r:?}"));
    rows
}

/// Whether Redis leaves the order of `s`'s reply unspecified.
fn unordered(redis: &mut Client, s: &Sort) -> bool {
    let kind = redis.cmd(&["TYPE", &s.source]).text();
    let star = |b: &str| b.split('\0').next().is_some_and(|c| c.contains('*'));
    let (constant, by_pattern) = match s.by.as_deref() {
        Some(by) => (!star(by), star(by)),
        None => (false, false),
    };
    (kind == "set" && constant && s.store.is_none())
        || (s.alpha && by_pattern && (kind != "list" || s.limit))
}

fn compare(seed: u64, history: &[String], cmd: &[String], want: &Value, got: &Value) {
    if want != got {
        let _ = std::fs::write("/tmp/sort_lcs_history.txt", history.join("\n"));
        let tail = history.len().saturating_sub(30);
        panic!(
            "seed {seed}: `{}`\nredis:  {want:?}\nstrata: {got:?}\nlast commands:\n{}",
            cmd.join(" "),
            history[tail..].join("\n")
        );
    }
}

/// Clears the peer's stale `errno` (see the module doc): accepting a
/// connection ends with an `accept` failing with `EAGAIN`.
fn reset_errno(peer: &PeerRedis) {
    let mut fresh = peer.client();
    assert_eq!(fresh.cmd(&["PING"]), Value::Simple("PONG".into()));
}

/// How many `SORT` replies of each kind were compared exactly: the
/// comparison must have seen sorted rows, stores and refused weights.
#[derive(Default)]
struct Seen {
    rows: u32,
    stored: u32,
    not_double: u32,
}

impl Seen {
    fn note(&mut self, reply: &Value, loose: bool) {
        match reply {
            Value::Array(rows) if rows.len() > 2 && !loose => self.rows += 1,
            Value::Int(n) if *n > 0 && !loose => self.stored += 1,
            Value::Error(e) if e.contains("double") => self.not_double += 1,
            _ => {}
        }
    }
}

fn run_seed(
    seed: u64,
    resp3: bool,
    peer: &PeerRedis,
    redis: &mut Client,
    strata: &mut Client,
    seen: &mut Seen,
) {
    let mut history: Vec<String> = Vec::new();
    for c in [&mut *redis, &mut *strata] {
        assert_eq!(c.cmd(&["FLUSHALL"]), Value::ok());
        c.cmd(&["HELLO", if resp3 { "3" } else { "2" }]);
        assert_eq!(c.cmd(&["SET", "str", "text"]), Value::ok());
        assert_eq!(c.cmd(&["HSET", "h", "f", "1"]), Value::Int(1));
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    for _ in 0..common::fuzz_cases(1_500, 12_000) {
        let roll = rng.gen_range(0..100);
        if roll < 55 {
            let cmd = if roll < 45 {
                write(&mut rng)
            } else {
                lcs(&mut rng)
            };
            history.push(cmd.join(" "));
            let (want, got) = (send(redis, &cmd), send(strata, &cmd));
            compare(seed, &history, &cmd, &want, &got);
            continue;
        }
        let s = sort(&mut rng);
        history.push(s.cmd.join(" ").replace('\0', "\\0"));
        let loose = unordered(redis, &s);
        let (want, got) = (send(redis, &s.cmd), send(strata, &s.cmd));
        seen.note(&want, loose);
        if want == Value::err("ERR One or more scores can't be converted into double") {
            reset_errno(peer);
        }
        match (&want, loose, &s.store) {
            (Value::Array(_), true, None) if s.limit => {
                compare(
                    seed,
                    &history,
                    &s.cmd,
                    &Value::Int(want.array().len() as i64),
                    &Value::Int(got.array().len() as i64),
                );
            }
            (Value::Array(_), true, None) => {
                let width = s.gets.max(1);
                let (w, g) = (groups(&want, width), groups(&got, width));
                compare(
                    seed,
                    &history,
                    &s.cmd,
                    &Value::Array(w.concat()),
                    &Value::Array(g.concat()),
                );
            }
            _ => compare(seed, &history, &s.cmd, &want, &got),
        }
        let Some(dest) = &s.store else {
            continue;
        };
        let range = ["LRANGE", dest.as_str(), "0", "-1"];
        let (want_list, got_list) = (redis.cmd(&range), strata.cmd(&range));
        if !loose {
            compare(seed, &history, &s.cmd, &want_list, &got_list);
        } else if let (Value::Array(_), false) = (&want_list, s.limit) {
            let (w, g) = (groups(&want_list, 1), groups(&got_list, 1));
            compare(
                seed,
                &history,
                &s.cmd,
                &Value::Array(w.concat()),
                &Value::Array(g.concat()),
            );
        }
        for probe in [["TYPE", dest.as_str()], ["TTL", dest.as_str()]] {
            let (want, got) = (redis.cmd(&probe), strata.cmd(&probe));
            compare(seed, &history, &s.cmd, &want, &got);
        }
        if loose {
            // Its order differs: both forget it.
            for c in [&mut *redis, &mut *strata] {
                c.cmd(&["DEL", dest]);
            }
        }
    }
}

#[test]
fn random_sort_and_lcs_answer_as_redis_does() {
    let peer = common::peer::require_redis();
    let server = common::start();
    let mut redis = peer.client();
    let mut strata = Client::connect(&server);
    // Short lists stay packed and long ones go large on both sides.
    for c in [&mut redis, &mut strata] {
        assert_eq!(
            c.cmd(&["CONFIG", "SET", "list-max-listpack-size", "4"]),
            Value::ok()
        );
    }
    let mut seen = Seen::default();
    for seed in 0..4u64 {
        run_seed(seed, seed == 3, &peer, &mut redis, &mut strata, &mut seen);
    }
    let cases = common::fuzz_cases(1_500, 12_000);
    if cases >= 500 {
        assert!(
            seen.rows >= cases / 20,
            "sorted rows compared: {}",
            seen.rows
        );
        assert!(
            seen.stored >= cases / 100,
            "stores compared: {}",
            seen.stored
        );
        assert!(
            seen.not_double >= cases / 100,
            "refused weights: {}",
            seen.not_double
        );
    }
}
