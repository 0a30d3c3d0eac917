//! Doubles in replies compared with a real Redis 7.0 in RESP2 and RESP3:
//! scores (`ZSCORE`, `ZMSCORE`, `ZRANGE ... WITHSCORES`, `ZINCRBY`,
//! `ZSCAN`) are C's `%.17g` (`1.0000000000000001e+300`, `0.10000000000000001`,
//! `1e+17`); `INCRBYFLOAT` and `HINCRBYFLOAT` are long double sums printed
//! `%.17Lf` without trailing zeros (`strata_float`), digit for digit; and
//! float arguments are read as C's `strtod` reads them (`0x10`, `1e400`),
//! blocking timeouts as long double seconds rounded up to milliseconds.

use crate::common::peer::replies_match_redis;

const SCORES: &[&str] = &[
    "1e300",
    "1.5e-7",
    "0.1",
    "123456789012345678",
    "-0.0",
    "inf",
    "-inf",
    "3.0",
    "1e17",
    "1e16",
    "12345.678",
    "0.30000000000000004",
    "1e-300",
    "2.5e-5",
    "5e-324",
    "1.7976931348623157e308",
    "-1.5",
    "0.0001",
    "-2.5e-20",
];

/// Increments, each added to zero.
const INCREMENTS: &[&str] = &[
    "1.5e-7",
    "0.1",
    "-0.0",
    "3.0",
    "1e17",
    "5e-324",
    "2.5e-5",
    "-1.2345678901234567e-10",
    "10.5",
    "1e20",
    "0x1p-2",
    "1e4900",
];

/// (stored value, increment) pairs whose sums need a long double's 64-bit
/// mantissa or range, and texts only C's `strtold` reads.
const LONG_DOUBLE_SUMS: &[(&str, &str)] = &[
    ("0.1", "0.2"),
    ("123456789012345678", "1"),
    ("1e308", "1e308"),
    ("1e400", "1e400"),
    ("0x10", "1"),
    ("5", ".5"),
    ("-0.0", "-0.0"),
    ("-1e-20", "0"),
    ("1e5000", "0"),
    ("1e4932", "1e4932"),
    ("1", "1e"),
    ("1", "inf"),
];

fn cases() -> Vec<Vec<String>> {
    let mut cases = Vec::new();
    let words = |s: &[&str]| s.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    cases.push(words(&["DEL", "z", "f", "h"]));
    for (i, score) in SCORES.iter().enumerate() {
        let member = format!("m{i}");
        cases.push(words(&["ZADD", "z", score, &member]));
        cases.push(words(&["ZSCORE", "z", &member]));
        cases.push(words(&["ZINCRBY", "zi", score, &member]));
    }
    cases.push(words(&["ZRANGE", "z", "0", "-1", "WITHSCORES"]));
    cases.push(words(&["ZMSCORE", "z", "m0", "m4", "m1"]));
    cases.push(words(&["ZSCAN", "z", "0", "COUNT", "100"]));
    cases.push(words(&["ZINCRBY", "z", "1e300", "m2"]));
    cases.push(words(&["ZPOPMIN", "z", "3"]));
    // Each from zero: sums that need a long double's 64-bit mantissa differ.
    for step in INCREMENTS {
        cases.push(words(&["DEL", "f", "h"]));
        cases.push(words(&["INCRBYFLOAT", "f", step]));
        cases.push(words(&["HINCRBYFLOAT", "h", "x", step]));
    }
    for (stored, step) in LONG_DOUBLE_SUMS {
        cases.push(words(&["SET", "f", stored]));
        cases.push(words(&["INCRBYFLOAT", "f", step]));
        cases.push(words(&["HSET", "h", "x", stored]));
        cases.push(words(&["HINCRBYFLOAT", "h", "x", step]));
    }
    cases.push(words(&["DEL", "f", "h"]));
    for step in ["10.5", "0.1", "-5"] {
        cases.push(words(&["INCRBYFLOAT", "f", step]));
        cases.push(words(&["HINCRBYFLOAT", "h", "x", step]));
    }
    cases.push(words(&["DEL", "z", "zi", "f", "h"]));
    // Texts C's strtod reads differently from Rust's parser.
    for score in [
        "1e400", "-1e400", "1e-400", "0x10", "0x1p-2", " 1", "infinity",
    ] {
        cases.push(words(&["ZADD", "z", score, score]));
    }
    cases.push(words(&["ZADD", "z", "5", "five", "1e300", "big"]));
    for min in [
        "", " 5", "5 ", "(", "1e400", "(0x10", "1e-400", "nan", "infinity",
    ] {
        cases.push(words(&["ZRANGEBYSCORE", "z", min, "+inf"]));
        cases.push(words(&["ZCOUNT", "z", "-inf", min]));
    }
    cases.push(words(&["ZUNIONSTORE", "zu", "1", "z", "WEIGHTS", "0x2"]));
    cases.push(words(&["ZUNIONSTORE", "zu", "1", "z", "WEIGHTS", "1e400"]));
    cases.push(words(&["GEOADD", "g", "0x1", "1", "m"]));
    cases.push(words(&["GEOADD", "g", "1", "1e-400", "m"]));
    cases.push(words(&["DEL", "z", "zu", "g"]));
    // Blocking timeouts: long double seconds rounded up to milliseconds
    // (each of these answers at once or within a millisecond).
    for timeout in [
        "-1", "abc", " 1", "9.3e15", "1e20", "inf", "0x1p-20", "0.0001", "1e-400", "1e5000",
    ] {
        cases.push(words(&["BLPOP", "nolist", timeout]));
        cases.push(words(&["BZPOPMIN", "nozset", timeout]));
    }
    cases
}

#[test]
fn doubles_print_as_redis_prints_them() {
    replies_match_redis(&cases());
}
