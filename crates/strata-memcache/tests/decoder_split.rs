//! A property of the memcached text decoder that `decoder_fuzz.rs` (never
//! panics on mutated input) does not check: a valid pipeline of storage and
//! retrieval commands decodes to the same frames (command line and data
//! block) whether fed whole or split at any byte boundary.
//! More cases with `STRATA_TEST_FULL=1`.

use proptest::prelude::*;
use strata_memcache::codec::{self, Block, Frame};
use strata_memcache::Command;

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

/// A request line and its data block, if the command carries one.
type Decoded = (Vec<u8>, Option<Vec<u8>>);

/// Decodes every complete request at the front of `buf`, draining it.
fn drain(buf: &mut Vec<u8>, out: &mut Vec<Decoded>) {
    loop {
        let (text, consumed) = match codec::next_line(buf, 2048) {
            Frame::Incomplete => return,
            Frame::TooLong => panic!("valid line refused as too long"),
            Frame::Line { text, consumed } => (text.to_vec(), consumed),
        };
        let cmd = Command::parse(&text).expect("valid command");
        let mut total = consumed;
        let mut data = None;
        if let Some(len) = cmd.data_len() {
            match codec::data_block(&buf[consumed..], len) {
                Block::Incomplete => return,
                Block::Complete { data: block, .. } => {
                    data = Some(block.to_vec());
                    total += len + 2;
                }
            }
        }
        out.push((text, data));
        buf.drain(..total);
    }
}

fn decode(input: &[u8], ends: &[usize]) -> Vec<Decoded> {
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let mut fed = 0;
    for &end in ends.iter().chain(std::iter::once(&input.len())) {
        buf.extend_from_slice(&input[fed..end]);
        fed = end;
        drain(&mut buf, &mut out);
    }
    assert!(buf.is_empty(), "bytes left undecoded");
    out
}

fn request() -> impl Strategy<Value = Vec<u8>> {
    let key = "[a-z0-9]{1,12}";
    let data = prop::collection::vec(any::<u8>(), 0..40);
    prop_oneof![
        (key, data).prop_map(|(k, d)| {
            let mut r = format!("set {k} 5 0 {}\r\n", d.len()).into_bytes();
            r.extend_from_slice(&d);
            r.extend_from_slice(b"\r\n");
            r
        }),
        key.prop_map(|k| format!("get {k} {k}x\r\n").into_bytes()),
        key.prop_map(|k| format!("mg {k} v f t\r\n").into_bytes()),
        key.prop_map(|k| format!("incr {k} 7\r\n").into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128, 2048), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn split_at_every_boundary_decodes_the_same(
        requests in prop::collection::vec(request(), 1..6),
    ) {
        let input: Vec<u8> = requests.concat();
        let whole = decode(&input, &[]);
        prop_assert_eq!(whole.len(), requests.len());
        for cut in 0..=input.len() {
            prop_assert_eq!(&decode(&input, &[cut]), &whole);
        }
        let every: Vec<usize> = (0..=input.len()).collect();
        prop_assert_eq!(&decode(&input, &every), &whole);
    }
}
