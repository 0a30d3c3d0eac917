//! Bounded fuzzing of the RESP decoder, in the quick suite: random bytes
//! and mutated valid requests (bit flips, inserted, deleted and duplicated
//! bytes, truncations, splices), multibulk and inline, fed in random
//! chunks to `RequestParser` as the session feeds it, then looked up in
//! the command table. Nothing may panic, a request's arguments lie within
//! the buffer, and an incomplete request never consumes. The session-level
//! properties are in `session_fuzz.rs`. Longer runs:
//! `STRATA_FUZZ_CASES=100000 cargo test -p strata-resp --test integration decoder_fuzz::`.

use proptest::prelude::*;
use strata_resp::codec::{Limits, Parsed, RequestParser};
use strata_resp::command::lookup;

use crate::common::fuzz_cases as cases;

const SEEDS: &[&[u8]] = &[
    b"*1\r\n$4\r\nPING\r\n",
    b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n",
    b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
    b"*5\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\nf\r\n$1\r\nv\r\n$0\r\n\r\n",
    b"*4\r\n$6\r\nLRANGE\r\n$1\r\nl\r\n$1\r\n0\r\n$2\r\n-1\r\n",
    b"*6\r\n$4\r\nZADD\r\n$1\r\nz\r\n$2\r\nNX\r\n$3\r\n1.5\r\n$1\r\nm\r\n$3\r\ninf\r\n",
    b"*3\r\n$4\r\nEVAL\r\n$8\r\nreturn 1\r\n$1\r\n0\r\n",
    b"*2\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n",
    b"*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$1\r\nx\r\n",
    b"PING\r\n",
    b"SET k \"quoted \\x41 value\" EX 10\r\n",
    b"GET 'single'\n",
    b"\r\n\r\n",
    b"*-1\r\n",
    b"*0\r\n",
];

fn limits(authenticated: bool) -> Limits {
    Limits {
        max_bulk: 4096,
        authenticated,
    }
}

/// Feeds `input` in pieces cut at `cuts` (indexes into it), as reads
/// arrive, and decodes every request that completes.
fn decode_all(input: &[u8], cuts: &[prop::sample::Index], authenticated: bool) {
    let mut ends: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
    ends.push(input.len());
    ends.sort_unstable();
    let mut parser = RequestParser::new();
    let mut buf: Vec<u8> = Vec::new();
    let mut fed = 0;
    for end in ends {
        buf.extend_from_slice(&input[fed..end]);
        fed = end;
        loop {
            match parser.parse(&buf, limits(authenticated)) {
                Ok(Parsed::Request { consumed }) => {
                    assert!(
                        consumed > 0 && consumed <= buf.len(),
                        "request past the buffer"
                    );
                    let args = parser.args(&buf);
                    if !args.is_empty() {
                        if let Some(spec) = lookup(args.get(0)) {
                            let _ = spec.arity_ok(args.len());
                        }
                    }
                    // Every argument is a range of the buffer (or the
                    // inline copy): reading one outside it panics here.
                    for arg in args.iter_from(0) {
                        std::hint::black_box(arg);
                    }
                    buf.drain(..consumed);
                }
                Ok(Parsed::Nothing { consumed }) => {
                    assert!(consumed > 0 && consumed <= buf.len());
                    buf.drain(..consumed);
                }
                Ok(Parsed::Incomplete) => break,
                // A protocol error closes the connection.
                Err(_) => return,
            }
        }
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

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(2048, 20480), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(
        input in prop::collection::vec(any::<u8>(), 0..512),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        authenticated in any::<bool>(),
    ) {
        decode_all(&input, &cuts, authenticated);
    }

    #[test]
    fn mutated_requests_never_panic(
        seed in 0..SEEDS.len(),
        steps in prop::collection::vec(step(), 1..12),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        authenticated in any::<bool>(),
    ) {
        decode_all(&mutate(SEEDS[seed], &steps, SEEDS), &cuts, authenticated);
    }

    #[test]
    fn mutated_pipelines_never_panic(
        picks in prop::collection::vec(0..SEEDS.len(), 1..8),
        steps in prop::collection::vec(step(), 1..16),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let pipeline: Vec<u8> = picks.iter().flat_map(|&i| SEEDS[i].iter().copied()).collect();
        decode_all(&mutate(&pipeline, &steps, SEEDS), &cuts, true);
    }
}

#[test]
fn every_seed_decodes() {
    for seed in SEEDS {
        decode_all(seed, &[], true);
    }
}
