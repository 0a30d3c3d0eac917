//! Properties of the RESP decoder that `decoder_fuzz.rs` (never panics on
//! mutated input) does not check: a valid multibulk pipeline decodes to the
//! same requests whether fed whole or split at any byte boundary, and a
//! declared bulk length over `max_bulk` (or over the unauthenticated limit)
//! is refused from its header line alone, before any data arrives.
//! More cases with `STRATA_TEST_FULL=1`.

use proptest::prelude::*;
use strata_resp::codec::{Limits, Parsed, ProtocolError, RequestParser};

use crate::common::fuzz_cases as cases;

const LIMITS: Limits = Limits {
    max_bulk: 4096,
    authenticated: true,
};

fn encode(request: &[Vec<u8>]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", request.len()).into_bytes();
    for arg in request {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Feeds `input` in pieces ending at `ends` and returns every request decoded.
fn decode(input: &[u8], ends: &[usize]) -> Vec<Vec<Vec<u8>>> {
    let mut parser = RequestParser::new();
    let mut buf = Vec::new();
    let mut requests = Vec::new();
    let mut fed = 0;
    for &end in ends.iter().chain(std::iter::once(&input.len())) {
        buf.extend_from_slice(&input[fed..end]);
        fed = end;
        loop {
            match parser.parse(&buf, LIMITS).expect("valid input") {
                Parsed::Request { consumed } => {
                    requests.push(parser.args(&buf).iter_from(0).map(<[u8]>::to_vec).collect());
                    buf.drain(..consumed);
                }
                Parsed::Nothing { consumed } => {
                    buf.drain(..consumed);
                }
                Parsed::Incomplete => break,
            }
        }
    }
    assert!(buf.is_empty(), "bytes left undecoded");
    requests
}

fn pipeline() -> impl Strategy<Value = Vec<Vec<Vec<u8>>>> {
    let arg = prop::collection::vec(any::<u8>(), 0..40);
    prop::collection::vec(prop::collection::vec(arg, 1..5), 1..5)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128, 2048), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn split_at_every_boundary_decodes_the_same(requests in pipeline()) {
        let input: Vec<u8> = requests.iter().flat_map(|r| encode(r)).collect();
        prop_assert_eq!(&decode(&input, &[]), &requests);
        for cut in 0..=input.len() {
            prop_assert_eq!(&decode(&input, &[cut]), &requests);
        }
        let every: Vec<usize> = (0..=input.len()).collect();
        prop_assert_eq!(&decode(&input, &every), &requests);
    }

    #[test]
    fn oversized_bulk_refused_from_its_header(
        excess in 1u64..u64::MAX / 2,
        authenticated in any::<bool>(),
    ) {
        let len = 4096 + excess;
        let input = format!("*2\r\n$3\r\nGET\r\n${len}\r\n");
        let limits = Limits { authenticated, ..LIMITS };
        let got = RequestParser::new().parse(input.as_bytes(), limits);
        prop_assert_eq!(got, Err(ProtocolError::InvalidBulkLength));
    }

    #[test]
    fn unauthenticated_bulk_limit_refused_from_its_header(len in 16 * 1024 + 1..64 * 1024i64) {
        let input = format!("*2\r\n$3\r\nGET\r\n${len}\r\n");
        let limits = Limits { max_bulk: 1 << 20, authenticated: false };
        let got = RequestParser::new().parse(input.as_bytes(), limits);
        prop_assert_eq!(got, Err(ProtocolError::UnauthenticatedBulkLength));
    }
}
