//! Codec tests: fixed replies of both protocols, malformed input, and a property test that
//! feeds valid reply streams split at arbitrary points.

use proptest::prelude::*;

use super::{Protocol, ProtocolError, Reply, ReplyKind};

fn parse_all(protocol: Protocol, bytes: &[u8]) -> Vec<ReplyKind> {
    let mut pos = 0;
    let mut kinds = Vec::new();
    while pos < bytes.len() {
        let reply = protocol.parse_reply(&bytes[pos..]).unwrap().unwrap();
        kinds.push(reply.kind);
        pos += reply.len;
    }
    kinds
}

#[test]
fn encodes_requests() {
    let mut out = Vec::new();
    Protocol::Memcache.encode_set(&mut out, b"key:7", b"abc");
    Protocol::Memcache.encode_get(&mut out, b"key:7");
    Protocol::Memcache.encode_flush(&mut out);
    assert_eq!(out, b"set key:7 0 0 3\r\nabc\r\nget key:7\r\nflush_all\r\n");

    out.clear();
    Protocol::Resp.encode_set(&mut out, b"k1", b"value");
    Protocol::Resp.encode_get(&mut out, b"k1");
    Protocol::Resp.encode_flush(&mut out);
    assert_eq!(
        out,
        &b"*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$5\r\nvalue\r\n*2\r\n$3\r\nGET\r\n$2\r\nk1\r\n*1\r\n$8\r\nFLUSHALL\r\n"[..]
    );
}

#[test]
fn memcache_replies_are_classified() {
    use ReplyKind::*;
    let stream = b"STORED\r\nEND\r\nVALUE key:1 0 5\r\nhe\r\no\r\nEND\r\n\
        VALUE a 1 1 99\r\nx\r\nVALUE b 2 0\r\n\r\nEND\r\nERROR\r\n\
        CLIENT_ERROR bad data chunk\r\nSERVER_ERROR out of memory\r\nNOT_STORED\r\n42\r\nOK\r\n";
    assert_eq!(
        parse_all(Protocol::Memcache, stream),
        [Success, Miss, Hit, Hit, Error, Error, Error, Miss, Success, Success]
    );
}

#[test]
fn resp_replies_are_classified() {
    use ReplyKind::*;
    let stream = b"+OK\r\n-ERR wrong\r\n:12\r\n:-3\r\n$-1\r\n$5\r\nhe\r\no\r\n$0\r\n\r\n\
        *-1\r\n*0\r\n*2\r\n$1\r\na\r\n*1\r\n:1\r\n_\r\n";
    assert_eq!(
        parse_all(Protocol::Resp, stream),
        [Success, Error, Success, Success, Miss, Hit, Hit, Miss, Success, Success, Miss]
    );
}

#[test]
fn malformed_replies_are_rejected() {
    let memcache = |b: &[u8]| Protocol::Memcache.parse_reply(b);
    let resp = |b: &[u8]| Protocol::Resp.parse_reply(b);
    assert!(matches!(
        memcache(b"HELLO\r\n"),
        Err(ProtocolError::UnexpectedLine(_))
    ));
    assert!(matches!(
        memcache(b"VALUE k 0 x\r\n"),
        Err(ProtocolError::BadNumber(_))
    ));
    assert!(matches!(
        memcache(b"VALUE k 0\r\n"),
        Err(ProtocolError::UnexpectedLine(_))
    ));
    assert_eq!(
        memcache(b"VALUE k 0 2\r\nabcd"),
        Err(ProtocolError::MissingCrlf)
    );
    assert!(matches!(
        memcache(b"VALUE k 0 1\r\na\r\nSTORED\r\n"),
        Err(ProtocolError::UnexpectedLine(_))
    ));
    assert_eq!(resp(b"?x\r\n"), Err(ProtocolError::UnknownType(b'?')));
    assert!(matches!(resp(b"$-2\r\n"), Err(ProtocolError::BadNumber(_))));
    assert!(matches!(resp(b":1x\r\n"), Err(ProtocolError::BadNumber(_))));
    assert_eq!(resp(b"$1\r\nab\r\n"), Err(ProtocolError::MissingCrlf));
    assert_eq!(resp(&b"*1\r\n".repeat(40)), Err(ProtocolError::TooDeep));
    assert_eq!(
        resp(&[b'+'; super::MAX_LINE + 2]),
        Err(ProtocolError::LineTooLong)
    );
}

#[test]
fn large_value_header_alone_is_incomplete() {
    let header = b"$1000000\r\n";
    assert_eq!(Protocol::Resp.parse_reply(header), Ok(None));
    assert_eq!(
        Protocol::Memcache.parse_reply(b"VALUE k 0 1000000\r\nabc"),
        Ok(None)
    );
}

fn data() -> impl Strategy<Value = Vec<u8>> {
    // Payloads deliberately include CR, LF and protocol keywords.
    prop::collection::vec(
        prop_oneof![any::<u8>(), Just(b'\r'), Just(b'\n'), Just(b'E')],
        0..40,
    )
}

fn memcache_reply() -> impl Strategy<Value = (Vec<u8>, ReplyKind)> {
    let value_block =
        (1u32..1000, data(), prop::option::of(any::<u64>())).prop_map(|(flags, d, cas)| {
            let mut b = format!("VALUE key:{flags} {flags} {}", d.len()).into_bytes();
            if let Some(cas) = cas {
                b.extend_from_slice(format!(" {cas}").as_bytes());
            }
            b.extend_from_slice(b"\r\n");
            b.extend_from_slice(&d);
            b.extend_from_slice(b"\r\n");
            b
        });
    prop_oneof![
        Just((b"STORED\r\n".to_vec(), ReplyKind::Success)),
        Just((b"END\r\n".to_vec(), ReplyKind::Miss)),
        Just((b"ERROR\r\n".to_vec(), ReplyKind::Error)),
        "[a-z ]{0,20}".prop_map(|m| (
            format!("SERVER_ERROR {m}\r\n").into_bytes(),
            ReplyKind::Error
        )),
        any::<u64>().prop_map(|n| (format!("{n}\r\n").into_bytes(), ReplyKind::Success)),
        prop::collection::vec(value_block, 1..4).prop_map(|blocks| {
            let mut b = blocks.concat();
            b.extend_from_slice(b"END\r\n");
            (b, ReplyKind::Hit)
        }),
    ]
}

fn resp_value() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![
        "[a-zA-Z ]{0,20}".prop_map(|s| format!("+{s}\r\n").into_bytes()),
        "[a-zA-Z ]{0,20}".prop_map(|s| format!("-ERR {s}\r\n").into_bytes()),
        any::<i64>().prop_map(|n| format!(":{n}\r\n").into_bytes()),
        Just(b"$-1\r\n".to_vec()),
        data().prop_map(|d| [
            format!("${}\r\n", d.len()).into_bytes(),
            d,
            b"\r\n".to_vec()
        ]
        .concat()),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop::collection::vec(inner, 0..5).prop_map(|items| {
            [format!("*{}\r\n", items.len()).into_bytes(), items.concat()].concat()
        })
    })
}

fn resp_kind(reply: &[u8]) -> ReplyKind {
    match reply[0] {
        b'-' => ReplyKind::Error,
        b'$' if reply.starts_with(b"$-1") => ReplyKind::Miss,
        b'$' => ReplyKind::Hit,
        _ => ReplyKind::Success,
    }
}

/// Feeds `stream` in chunks ending at `cuts`, parsing greedily after every chunk as a client
/// does, and returns every framed reply.
fn feed_split(protocol: Protocol, stream: &[u8], cuts: &[usize]) -> Vec<Reply> {
    let mut ends: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    ends.push(stream.len());
    ends.sort_unstable();
    let (mut start, mut replies) = (0, Vec::new());
    for end in ends {
        while let Some(reply) = protocol
            .parse_reply(&stream[start..end])
            .expect("valid prefix rejected")
        {
            start += reply.len;
            replies.push(reply);
        }
    }
    assert_eq!(start, stream.len(), "trailing bytes left unparsed");
    replies
}

fn check_split(protocol: Protocol, replies: &[(Vec<u8>, ReplyKind)], cuts: &[usize]) {
    let stream = replies
        .iter()
        .flat_map(|(b, _)| b.iter().copied())
        .collect::<Vec<_>>();
    let got = feed_split(protocol, &stream, cuts);
    let want: Vec<Reply> = replies
        .iter()
        .map(|(b, kind)| Reply {
            kind: *kind,
            len: b.len(),
        })
        .collect();
    assert_eq!(got, want);
}

proptest! {
    #[test]
    fn memcache_split_stream(replies in prop::collection::vec(memcache_reply(), 1..8),
                             cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        check_split(Protocol::Memcache, &replies, &cuts);
    }

    #[test]
    fn resp_split_stream(values in prop::collection::vec(resp_value(), 1..8),
                         cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        let replies: Vec<_> = values.into_iter().map(|v| { let k = resp_kind(&v); (v, k) }).collect();
        check_split(Protocol::Resp, &replies, &cuts);
    }

    #[test]
    fn strict_prefixes_are_incomplete((reply, _) in memcache_reply(), value in resp_value()) {
        for cut in 0..reply.len() {
            prop_assert_eq!(Protocol::Memcache.parse_reply(&reply[..cut]), Ok(None));
        }
        for cut in 0..value.len() {
            prop_assert_eq!(Protocol::Resp.parse_reply(&value[..cut]), Ok(None));
        }
    }
}

#[test]
fn resp_payload_helpers() {
    use super::resp::{array_last_bulk, integer_value};
    assert_eq!(
        array_last_bulk(b"*2\r\n$3\r\nkey\r\n$5\r\nhello\r\n"),
        Some(&b"hello"[..])
    );
    assert_eq!(array_last_bulk(b"*-1\r\n"), None);
    assert_eq!(array_last_bulk(b"*0\r\n"), None);
    assert_eq!(array_last_bulk(b"*1\r\n:1\r\n"), None);
    assert_eq!(array_last_bulk(b"$5\r\nhello\r\n"), None);
    assert_eq!(integer_value(b":42\r\n"), Some(42));
    assert_eq!(integer_value(b"+OK\r\n"), None);
}
