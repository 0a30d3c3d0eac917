//! Every type against a real Redis, state and replies: seeded random
//! writes on a few keys per type (some collide, so `WRONGTYPE` comes up;
//! collections grow past the packed encodings into Strata's chunked ones
//! and shrink back) sent to Strata and to `redis-server`,
//! each reply compared, and the whole dataset compared with `DEBUG
//! DIGEST` (Redis's SHA-1 of every key, type, element and TTL flag) every
//! few commands. A differing digest names the keys whose `DEBUG
//! DIGEST-VALUE` differs. Only deterministic commands are sent (explicit
//! stream identifiers, no random picks); the second seed runs with
//! packed-encoding limits of a few elements. `STRATA_FUZZ_CASES` sets
//! the number of commands per seed.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use strata_resp::protected::Protected;

use crate::common::random_writes::{command, KEYS};
use crate::common::{self, Client, Value};

/// Packed-encoding limits (Redis 7.0's names) that make collections
/// convert at a few elements.
const SMALL_ENCODINGS: [(&str, &str); 6] = [
    ("hash-max-listpack-entries", "4"),
    ("hash-max-listpack-value", "8"),
    ("zset-max-listpack-entries", "4"),
    ("zset-max-listpack-value", "8"),
    ("set-max-intset-entries", "4"),
    ("list-max-listpack-size", "4"),
];

fn send(c: &mut Client, cmd: &[String]) -> Value {
    let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
    c.cmd(&args)
}

/// Fails naming the keys whose value digests differ.
fn assert_same_data(redis: &mut Client, strata: &mut Client, history: &[String]) {
    let digest = |c: &mut Client| c.cmd(&["DEBUG", "DIGEST"]);
    let (want, got) = (digest(redis), digest(strata));
    if want == got {
        return;
    }
    let differing: Vec<&str> = KEYS
        .iter()
        .copied()
        .filter(|k| {
            let value = |c: &mut Client| c.cmd(&["DEBUG", "DIGEST-VALUE", k]);
            value(redis) != value(strata)
        })
        .collect();
    let tail = &history[history.len().saturating_sub(30)..];
    panic!(
        "the datasets differ (keys {differing:?}); last commands:\n{}",
        tail.join("\n")
    );
}

#[test]
fn random_writes_leave_the_same_data_as_redis() {
    let Some(peer) = common::peer::spawn_redis_with(&["--enable-debug-command", "yes"]) else {
        panic!("redis-server is needed for this comparison (scripts/test installs it)");
    };
    let server = common::start_debug(Protected::Yes);
    let mut redis = peer.client();
    let mut strata = Client::connect(&server);
    let cases = common::fuzz_cases(1_500, 20_000) as usize;
    let mut history: Vec<String> = Vec::new();
    for seed in 0..2u64 {
        let mut rng = SmallRng::seed_from_u64(0xd16e57 + seed);
        let mut next_ms = 0;
        for c in [&mut redis, &mut strata] {
            assert_eq!(c.cmd(&["FLUSHALL"]), Value::ok());
            // The second seed converts at tiny sizes, back and forth.
            if seed == 1 {
                for (param, value) in SMALL_ENCODINGS {
                    assert_eq!(c.cmd(&["CONFIG", "SET", param, value]), Value::ok());
                }
            }
        }
        history.clear();
        for i in 0..cases {
            let cmd = command(&mut rng, &mut next_ms);
            history.push(cmd.join(" "));
            let want = send(&mut redis, &cmd);
            let got = send(&mut strata, &cmd);
            assert_eq!(
                got,
                want,
                "seed {seed}, command {i}: `{}`; before it:\n{}",
                cmd.join(" "),
                history[history.len().saturating_sub(20)..].join("\n")
            );
            if i % 100 == 99 {
                assert_same_data(&mut redis, &mut strata, &history);
            }
        }
        assert_same_data(&mut redis, &mut strata, &history);
    }
}
