//! Bounded fuzzing of the memcached text decoder, in the quick suite:
//! random bytes and mutated valid requests (bit flips, inserted, deleted
//! and duplicated bytes, truncations, splices) fed straight to the codec
//! and the command parser (`codec::next_line`, `Command::parse`,
//! `codec::data_block`). Nothing may panic, and every frame must lie within
//! the input. The session-level properties are in `session_fuzz.rs`.
//! Longer runs: `STRATA_FUZZ_CASES=100000 cargo test -p strata-memcache
//! --test integration decoder_fuzz::`.

use proptest::prelude::*;
use strata_memcache::codec::{self, Block, Frame};
use strata_memcache::Command;

const SEEDS: &[&[u8]] = &[
    b"get foo\r\n",
    b"gets a b c d\r\n",
    b"gat 100 k1 k2\r\n",
    b"set k 5 100 3\r\nabc\r\n",
    b"add k 0 0 3 noreply\r\nxyz\r\n",
    b"cas k 0 0 1 42\r\nz\r\n",
    b"append k 0 0 2\r\nhi\r\n",
    b"incr n 5\r\n",
    b"decr n 18446744073709551615\r\n",
    b"delete k 0 noreply\r\n",
    b"touch k 10\r\n",
    b"flush_all 10 noreply\r\n",
    b"verbosity 1\r\n",
    b"cache_memlimit 64\r\n",
    b"stats detail dump\r\n",
    b"version\r\nquit\r\n",
    b"mg k v f t c s k O123 q\r\n",
    b"ms k 3 T10 F5 I MS\r\nabc\r\n",
    b"ms a2V5 2 b\r\nhi\r\n",
    b"md k q I T30\r\n",
    b"ma k N10 J13 D2 MD v\r\n",
    b"mn\r\nme k\r\n",
];

fn decode_all(mut input: &[u8]) {
    // Each round consumes at least one byte, so this ends; the bound is a
    // guard, not a limit a real input reaches.
    for _ in 0..=input.len() {
        let (text, consumed) = match codec::next_line(input, 2048) {
            Frame::Incomplete | Frame::TooLong => return,
            Frame::Line { text, consumed } => (text, consumed),
        };
        assert!(
            consumed > 0 && consumed <= input.len(),
            "line past the input"
        );
        let rest = &input[consumed..];
        let _ = codec::Tokens::split(text).len();
        let mut next = rest;
        if let Ok(cmd) = Command::parse(text) {
            let _ = cmd.name();
            if let Some(len) = cmd.data_len() {
                match codec::data_block(rest, len) {
                    Block::Incomplete => return,
                    Block::Complete { data, .. } => {
                        assert_eq!(data.len(), len);
                        next = &rest[len + 2..];
                    }
                }
            }
        }
        input = next;
    }
}

/// Byte-level mutations of a seed input, as a coverage-guided fuzzer's
/// first stage applies them: each step flips a bit, inserts, deletes or
/// overwrites a byte, duplicates or drops a run, truncates, or splices
/// in another seed.
#[derive(Debug, Clone)]
enum Step {
    Flip(prop::sample::Index, u8),
    Insert(prop::sample::Index, u8),
    Delete(prop::sample::Index),
    Overwrite(prop::sample::Index, u8),
    Duplicate(prop::sample::Index, prop::sample::Index),
    Drop(prop::sample::Index, prop::sample::Index),
    Truncate(prop::sample::Index),
    Splice(prop::sample::Index, prop::sample::Index),
}

fn step() -> impl Strategy<Value = Step> {
    use prop::sample::Index;
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(i, b)| Step::Flip(i, b)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Step::Insert(i, b)),
        any::<Index>().prop_map(Step::Delete),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Step::Overwrite(i, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Step::Duplicate(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Step::Drop(a, b)),
        any::<Index>().prop_map(Step::Truncate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Step::Splice(a, b)),
    ]
}

/// `seed` with `steps` applied (`seeds` feeds splices).
fn mutate(seed: &[u8], steps: &[Step], seeds: &[&[u8]]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for step in steps {
        let len = data.len();
        let at = |i: &prop::sample::Index| if len == 0 { 0 } else { i.index(len) };
        match step {
            Step::Flip(i, bit) if len > 0 => {
                let p = at(i);
                data[p] ^= 1 << bit;
            }
            Step::Insert(i, b) => data.insert(if len == 0 { 0 } else { i.index(len + 1) }, *b),
            Step::Delete(i) if len > 0 => {
                data.remove(at(i));
            }
            Step::Overwrite(i, b) if len > 0 => {
                let p = at(i);
                data[p] = *b;
            }
            Step::Duplicate(a, b) if len > 0 => {
                let (x, y) = (at(a), at(b));
                let run = data[x.min(y)..=x.max(y)].to_vec();
                let p = x.max(y) + 1;
                data.splice(p..p, run);
            }
            Step::Drop(a, b) if len > 0 => {
                let (x, y) = (at(a), at(b));
                data.drain(x.min(y)..=x.max(y));
            }
            Step::Truncate(i) => data.truncate(if len == 0 { 0 } else { i.index(len + 1) }),
            Step::Splice(which, i) => {
                let other = seeds[which.index(seeds.len())];
                let p = if len == 0 { 0 } else { i.index(len + 1) };
                data.splice(p..p, other.iter().copied());
            }
            _ => {}
        }
    }
    data
}

/// Cases per property, by the test-scale scheme (README, "Tests"):
/// `STRATA_FUZZ_CASES=N` exactly N, else `full` under `STRATA_TEST_FULL`
/// (set and not `0`), else `quick`.
fn cases(quick: u32, full: u32) -> u32 {
    let long = std::env::var("STRATA_TEST_FULL").is_ok_and(|v| !v.is_empty() && v != "0");
    std::env::var("STRATA_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if long { full } else { quick })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(2048, 20480), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..512)) {
        decode_all(&input);
    }

    #[test]
    fn mutated_requests_never_panic(
        seed in 0..SEEDS.len(),
        steps in prop::collection::vec(step(), 1..12),
    ) {
        decode_all(&mutate(SEEDS[seed], &steps, SEEDS));
    }

    #[test]
    fn mutated_pipelines_never_panic(
        picks in prop::collection::vec(0..SEEDS.len(), 1..8),
        steps in prop::collection::vec(step(), 1..16),
    ) {
        let pipeline: Vec<u8> = picks.iter().flat_map(|&i| SEEDS[i].iter().copied()).collect();
        decode_all(&mutate(&pipeline, &steps, SEEDS));
    }
}

#[test]
fn every_seed_decodes_whole() {
    for seed in SEEDS {
        decode_all(seed);
        assert!(
            Command::parse(&seed[..seed.iter().position(|&b| b == b'\r').unwrap()]).is_ok(),
            "{}",
            String::from_utf8_lossy(seed)
        );
    }
}
