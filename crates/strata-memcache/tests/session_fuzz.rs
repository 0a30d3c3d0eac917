//! Property tests of the session state machine, without sockets: random
//! bytes and random cuts/concatenations of valid and damaged commands never
//! panic, never leave more than the largest request buffered, and give the
//! same replies however the input is split into reads.

use std::sync::Arc;

use bytes::BytesMut;
use proptest::prelude::*;
use strata_kv::{Clock, Keyspace, KeyspaceConfig, ManualClock};
use strata_memcache::auth_file::AuthFile;
use strata_memcache::MemcacheProtocol;
use strata_service::{Clients, Flow, Protocol, RuntimeSettings, ServerInfo, Session};

const MAX_ITEM: usize = 512;
/// What the driver would allow: `driver_config().max_input`.
fn max_input(protocol: &MemcacheProtocol) -> usize {
    protocol.driver_config().max_input
}

fn protocol() -> MemcacheProtocol {
    protocol_with(None)
}

/// A front end whose clients must log in as `alice` / `secret`.
fn protocol_with_auth() -> MemcacheProtocol {
    let auth = AuthFile::parse(b"alice:secret\n", std::path::Path::new("auth")).unwrap();
    protocol_with(Some(auth))
}

fn protocol_with(auth: Option<AuthFile>) -> MemcacheProtocol {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let config = KeyspaceConfig {
        max_item_size: MAX_ITEM,
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let keyspace = Keyspace::new(config, clock as Arc<dyn Clock>);
    let settings = RuntimeSettings {
        bind: "127.0.0.1".parse().unwrap(),
        memcache_port: Some(11211),
        resp_port: None,
        threads: 1,
        data_dir: "/tmp".into(),
        max_connections: 10.into(),
        requirepass: parking_lot::RwLock::new(None),
        verbosity: 0.into(),
    };
    let info = Arc::new(ServerInfo::new("test", settings));
    MemcacheProtocol::with_auth(keyspace, info, Arc::new(Clients::default()), auth)
}

/// Feeds `chunks` one read at a time, as the driver does; returns the
/// replies and whether the session asked to close.
fn feed(protocol: &MemcacheProtocol, chunks: &[&[u8]]) -> (Vec<u8>, bool) {
    let clients = Clients::default();
    let client = clients.register(
        "127.0.0.1:1".parse().unwrap(),
        "127.0.0.1:2".parse().unwrap(),
    );
    let mut session = protocol.open(client);
    let mut input = BytesMut::new();
    let mut output = BytesMut::new();
    let limit = max_input(protocol);
    for chunk in chunks {
        input.extend_from_slice(chunk);
        let flow = session.process(&mut input, &mut output);
        if flow == Flow::Close {
            return (output.to_vec(), true);
        }
        assert!(
            input.len() <= limit,
            "{} bytes left buffered (limit {limit})",
            input.len()
        );
    }
    (output.to_vec(), false)
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("n".to_string()),
        "[a-z]{1,3}"
    ]
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..100).prop_map(|n| n.to_string()),
        Just("-1".to_string()),
        Just("abc".to_string()),
        Just("18446744073709551616".to_string()),
        Just("4294967296".to_string()),
    ]
}

fn meta_flags() -> impl Strategy<Value = String> {
    let flag = prop_oneof![
        Just("v"),
        Just("k"),
        Just("c"),
        Just("f"),
        Just("t"),
        Just("s"),
        Just("q"),
        Just("O1"),
        Just("T10"),
        Just("N5"),
        Just("R5"),
        Just("I"),
        Just("x"),
        Just("MA"),
        Just("MD"),
        Just("ME"),
        Just("C1"),
        Just("D2"),
        Just("J7"),
        Just("b"),
        Just("Z"),
        Just("F3"),
    ];
    prop::collection::vec(flag, 0..6).prop_map(|f| f.join(" "))
}

/// One request: a command line and, for storage commands, a data block
/// whose announced length may be wrong.
fn request() -> impl Strategy<Value = Vec<u8>> {
    let data = prop::collection::vec(any::<u8>(), 0..40);
    prop_oneof![
        (
            prop_oneof![
                Just("set"),
                Just("add"),
                Just("replace"),
                Just("append"),
                Just("prepend")
            ],
            key(),
            number(),
            number(),
            data.clone(),
            -2i32..3,
            any::<bool>()
        )
            .prop_map(|(cmd, k, flags, exp, d, skew, noreply)| {
                let len = (d.len() as i32 + skew).max(0);
                let nr = if noreply { " noreply" } else { "" };
                let mut v = format!("{cmd} {k} {flags} {exp} {len}{nr}\r\n").into_bytes();
                v.extend_from_slice(&d);
                v.extend_from_slice(b"\r\n");
                v
            }),
        (
            key(),
            prop::collection::vec(any::<u8>(), MAX_ITEM..MAX_ITEM + 100)
        )
            .prop_map(|(k, d)| {
                let mut v = format!("set {k} 0 0 {}\r\n", d.len()).into_bytes();
                v.extend_from_slice(&d);
                v.extend_from_slice(b"\r\n");
                v
            }),
        (key(), number(), data.clone()).prop_map(|(k, cas, d)| {
            let mut v = format!("cas {k} 0 0 {} {cas}\r\n", d.len()).into_bytes();
            v.extend_from_slice(&d);
            v.extend_from_slice(b"\r\n");
            v
        }),
        (key(), meta_flags(), data).prop_map(|(k, f, d)| {
            let mut v = format!("ms {k} {} {f}\r\n", d.len()).into_bytes();
            v.extend_from_slice(&d);
            v.extend_from_slice(b"\r\n");
            v
        }),
        (
            prop_oneof![Just("get"), Just("gets"), Just("gat 10"), Just("gats 0")],
            prop::collection::vec(key(), 0..4)
        )
            .prop_map(|(cmd, keys)| format!("{cmd} {}\r\n", keys.join(" ")).into_bytes()),
        (
            prop_oneof![Just("incr"), Just("decr"), Just("touch"), Just("delete")],
            key(),
            number()
        )
            .prop_map(|(cmd, k, n)| format!("{cmd} {k} {n}\r\n").into_bytes()),
        (
            prop_oneof![Just("mg"), Just("md"), Just("ma"), Just("me")],
            key(),
            meta_flags()
        )
            .prop_map(|(cmd, k, f)| format!("{cmd} {k} {f}\r\n").into_bytes()),
        prop_oneof![
            Just(b"mn\r\n".to_vec()),
            Just(b"version\r\n".to_vec()),
            Just(b"flush_all\r\n".to_vec()),
            Just(b"verbosity 1\r\n".to_vec()),
            Just(b"stats detail on\r\n".to_vec()),
            Just(b"bogus\r\n".to_vec()),
            Just(b"\n".to_vec()),
        ],
    ]
}

/// Requests, some truncated, glued together.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        (request(), any::<bool>(), any::<prop::sample::Index>()),
        1..16,
    )
    .prop_map(|reqs| {
        let mut out = Vec::new();
        for (req, truncate, at) in reqs {
            if truncate {
                out.extend_from_slice(&req[..at.index(req.len())]);
            } else {
                out.extend_from_slice(&req);
            }
        }
        out
    })
}

/// Requests of a connection that must log in: login attempts (right,
/// wrong, malformed, oversized) mixed with ordinary requests.
fn login_stream() -> impl Strategy<Value = Vec<u8>> {
    let login = prop_oneof![
        Just(b"set k 0 0 12\r\nalice secret\r\n".to_vec()),
        Just(b"set k 0 0 11\r\nalice wrong\r\n".to_vec()),
        Just(b"set k 0 0 5\r\nalice\r\n".to_vec()),
        Just(b"set k 0 0 5\r\nalicexx\r\n".to_vec()),
        Just(b"set k 0 0 5000\r\n".to_vec()),
        request(),
    ];
    prop::collection::vec(login, 1..10).prop_map(|parts| parts.concat())
}

fn split_at_cuts<'a>(bytes: &'a [u8], cuts: &[prop::sample::Index]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
    points.sort_unstable();
    let mut chunks = Vec::new();
    let mut start = 0;
    for p in points {
        chunks.push(&bytes[start..p]);
        start = p;
    }
    chunks.push(&bytes[start..]);
    chunks
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_and_stay_bounded(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..700), 0..12)) {
        let protocol = protocol();
        let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
        feed(&protocol, &refs);
    }

    #[test]
    fn replies_do_not_depend_on_how_input_is_split(bytes in stream(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12)) {
        // Two identical servers (same clock, CAS counters from the start).
        let whole = feed(&protocol(), &[&bytes]);
        let split = feed(&protocol(), &split_at_cuts(&bytes, &cuts));
        prop_assert_eq!(String::from_utf8_lossy(&whole.0), String::from_utf8_lossy(&split.0));
        prop_assert_eq!(whole.1, split.1);
    }

    #[test]
    fn unauthenticated_random_bytes_never_panic_and_stay_bounded(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..700), 0..12)) {
        let protocol = protocol_with_auth();
        let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
        feed(&protocol, &refs);
    }

    #[test]
    fn logins_do_not_depend_on_how_input_is_split(bytes in login_stream(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12)) {
        let whole = feed(&protocol_with_auth(), &[&bytes]);
        let split = feed(&protocol_with_auth(), &split_at_cuts(&bytes, &cuts));
        prop_assert_eq!(String::from_utf8_lossy(&whole.0), String::from_utf8_lossy(&split.0));
        prop_assert_eq!(whole.1, split.1);
    }
}

#[test]
fn a_gigabyte_announcement_is_never_buffered() {
    let protocol = protocol();
    let mut chunks: Vec<Vec<u8>> = vec![b"set k 0 0 1000000000\r\n".to_vec()];
    chunks.extend((0..64).map(|_| vec![b'z'; 64 * 1024]));
    let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
    let (out, closed) = feed(&protocol, &refs);
    assert!(!closed);
    assert_eq!(out, b"SERVER_ERROR object too large for cache\r\n");
}

#[test]
fn unterminated_lines_are_refused_at_the_limit() {
    let protocol = protocol();
    let (out, closed) = feed(&protocol, &[&[b'x'; 3000]]);
    assert!(closed);
    assert_eq!(out, b"CLIENT_ERROR line too long\r\n");
    // A multiget may be long, up to the request limit.
    let mut get = b"get".to_vec();
    while get.len() < 50_000 {
        get.extend_from_slice(b" key");
    }
    let (out, closed) = feed(&protocol, &[&get]);
    assert!(!closed && out.is_empty());
    let huge = vec![b'k'; max_input(&protocol) + 10];
    let mut get = b"get ".to_vec();
    get.extend_from_slice(&huge);
    let (out, closed) = feed(&protocol, &[&get]);
    assert!(closed);
    assert_eq!(out, b"CLIENT_ERROR line too long\r\n");
}
