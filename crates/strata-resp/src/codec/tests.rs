//! Codec unit tests: every split point, inline quoting, limits.

use super::*;

const LIMITS: Limits = Limits {
    max_bulk: 1024,
    authenticated: true,
};

fn parse_all(input: &[u8], limits: Limits) -> Result<Vec<Vec<Vec<u8>>>, ProtocolError> {
    let mut parser = RequestParser::new();
    let mut requests = Vec::new();
    let mut pos = 0;
    loop {
        match parser.parse(&input[pos..], limits)? {
            Parsed::Incomplete => return Ok(requests),
            Parsed::Nothing { consumed } => pos += consumed,
            Parsed::Request { consumed } => {
                let args = parser.args(&input[pos..]);
                requests.push(args.iter_from(0).map(<[u8]>::to_vec).collect());
                pos += consumed;
            }
        }
    }
}

fn words(request: &[&str]) -> Vec<Vec<u8>> {
    request.iter().map(|s| s.as_bytes().to_vec()).collect()
}

#[test]
fn multibulk() {
    let input = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nva\r\nl\r\n*1\r\n$4\r\nPING\r\n";
    let parsed = parse_all(input, LIMITS);
    let expected = vec![
        vec![b"SET".to_vec(), b"k".to_vec(), b"va\r\nl".to_vec()],
        words(&["PING"]),
    ];
    assert_eq!(parsed, Ok(expected));
}

/// Feeding a pipeline one prefix at a time (as a socket might deliver it)
/// yields exactly the same requests, whatever the split points.
#[test]
fn every_split_point() {
    let input: &[u8] =
        b"*2\r\n$3\r\nGET\r\n$3\r\nfoo\r\nPING\r\n*0\r\n\r\necho \"a b\" 'c'\r\n*1\r\n$0\r\n\r\n";
    let whole = parse_all(input, LIMITS).unwrap_or_default();
    assert_eq!(whole.len(), 4);
    for split in 0..=input.len() {
        let mut parser = RequestParser::new();
        let mut got = Vec::new();
        let mut pos = 0;
        // Deliver the first `split` bytes, then everything.
        for available in [split, input.len()] {
            loop {
                let window = &input[pos..available.max(pos)];
                match parser.parse(window, LIMITS) {
                    Ok(Parsed::Incomplete) => break,
                    Ok(Parsed::Nothing { consumed }) => pos += consumed,
                    Ok(Parsed::Request { consumed }) => {
                        let args = parser.args(window);
                        got.push(args.iter_from(0).map(<[u8]>::to_vec).collect::<Vec<_>>());
                        pos += consumed;
                    }
                    Err(err) => panic!("split {split}: {err}"),
                }
            }
        }
        assert_eq!(got, whole, "split at {split}");
    }
}

#[test]
fn byte_at_a_time_resumes_without_rescanning() {
    let input = b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$10\r\n0123456789\r\n";
    let mut parser = RequestParser::new();
    for end in 0..input.len() {
        assert_eq!(
            parser.parse(&input[..end], LIMITS),
            Ok(Parsed::Incomplete),
            "at {end}"
        );
    }
    assert_eq!(
        parser.parse(input, LIMITS),
        Ok(Parsed::Request {
            consumed: input.len()
        })
    );
    assert_eq!(parser.args(input).get(2), b"0123456789");
}

#[test]
fn inline_quoting() {
    let cases: &[(&[u8], &[&[u8]])] = &[
        (b"set a b\r\n", &[b"set", b"a", b"b"]),
        (b"  set   a\tb  \n", &[b"set", b"a", b"b"]),
        (b"echo \"a\\x41\\n\\t\\q\"\r\n", &[b"echo", b"aA\n\tq"]),
        (b"echo 'it\\'s\\n'\r\n", &[b"echo", b"it's\\n"]),
        (b"echo \"\"\r\n", &[b"echo", b""]),
        (b"echo \"\\x4\"\r\n", &[b"echo", b"x4"]),
        (b"echo a\"b c\" d\r\n", &[b"echo", b"ab c", b"d"]),
        (b"ping\rfoo\r\n", &[b"ping", b"foo"]),
    ];
    for (line, expected) in cases {
        let parsed = parse_all(line, LIMITS);
        let expected: Vec<Vec<u8>> = expected.iter().map(|a| a.to_vec()).collect();
        assert_eq!(
            parsed,
            Ok(vec![expected]),
            "{:?}",
            String::from_utf8_lossy(line)
        );
    }
}

#[test]
fn inline_unbalanced_quotes() {
    for line in [
        &b"echo \"abc\r\n"[..],
        b"echo \"abc\"def\r\n",
        b"echo a\"b c\"d\r\n",
        b"echo 'a'b\r\n",
        b"echo 'x\r\n",
    ] {
        assert_eq!(
            parse_all(line, LIMITS),
            Err(ProtocolError::UnbalancedQuotes),
            "{:?}",
            String::from_utf8_lossy(line)
        );
    }
}

#[test]
fn empty_lines_and_empty_multibulk_are_skipped() {
    assert_eq!(
        parse_all(b"\r\n\r\n  \r\n*0\r\n*-1\r\nPING\r\n", LIMITS),
        Ok(vec![words(&["PING"])])
    );
}

#[test]
fn protocol_errors() {
    let cases: &[(&[u8], ProtocolError)] = &[
        (b"*1\r\n+foo\r\n", ProtocolError::ExpectedBulk(b'+')),
        (b"*x\r\n", ProtocolError::InvalidMultibulkLength),
        (b"*1048577\r\n", ProtocolError::InvalidMultibulkLength),
        (b"*99999999999\r\n", ProtocolError::InvalidMultibulkLength),
        (b"*1\r\n$-1\r\n", ProtocolError::InvalidBulkLength),
        (b"*1\r\n$abc\r\n", ProtocolError::InvalidBulkLength),
        (b"*1\r\n$1025\r\n", ProtocolError::InvalidBulkLength),
    ];
    for (input, err) in cases {
        assert_eq!(
            parse_all(input, LIMITS),
            Err(*err),
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
    assert_eq!(
        ProtocolError::ExpectedBulk(b'+').to_string(),
        "expected '$', got '+'"
    );
}

/// A bulk header over the limit is refused as soon as the header arrives,
/// before any of the announced bytes: the buffer never has to hold them.
#[test]
fn oversized_bulk_refused_before_data() {
    let header = b"*2\r\n$3\r\nGET\r\n$600000000\r\n";
    assert_eq!(
        parse_all(header, LIMITS),
        Err(ProtocolError::InvalidBulkLength)
    );
    let big = Limits {
        max_bulk: 512 << 20,
        authenticated: true,
    };
    assert_eq!(
        parse_all(b"*1\r\n$536870913\r\n", big),
        Err(ProtocolError::InvalidBulkLength)
    );
}

#[test]
fn overlong_header_lines() {
    let mut mbulk = b"*".to_vec();
    mbulk.extend(std::iter::repeat_n(b'1', INLINE_MAX + 1));
    assert_eq!(
        parse_all(&mbulk, LIMITS),
        Err(ProtocolError::TooBigMultibulkCount)
    );
    let mut bulk = b"*1\r\n$".to_vec();
    bulk.extend(std::iter::repeat_n(b'1', INLINE_MAX + 1));
    assert_eq!(
        parse_all(&bulk, LIMITS),
        Err(ProtocolError::TooBigBulkCount)
    );
    let inline = vec![b'x'; INLINE_MAX + 1];
    assert_eq!(parse_all(&inline, LIMITS), Err(ProtocolError::TooBigInline));
    // Just under the limit: still waiting for the newline.
    let inline = vec![b'x'; INLINE_MAX];
    assert_eq!(parse_all(&inline, LIMITS), Ok(vec![]));
}

#[test]
fn unauthenticated_limits() {
    let limits = Limits {
        max_bulk: 1 << 20,
        authenticated: false,
    };
    assert_eq!(
        parse_all(b"*11\r\n", limits),
        Err(ProtocolError::UnauthenticatedMultibulkLength)
    );
    assert_eq!(
        parse_all(b"*1\r\n$16385\r\n", limits),
        Err(ProtocolError::UnauthenticatedBulkLength)
    );
    assert_eq!(
        parse_all(b"*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n", limits),
        Ok(vec![words(&["AUTH", "pw"])])
    );
}
