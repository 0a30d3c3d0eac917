//! Property tests driving a session directly: arbitrary bytes and random
//! truncations of valid requests never panic, and buffered input stays
//! bounded.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;

use bytes::BytesMut;
use parking_lot::RwLock;
use proptest::prelude::*;
use strata_kv::journal::Journal;
use strata_kv::{Keyspace, KeyspaceConfig, ManualClock};
use strata_resp::RespProtocol;
use strata_service::{Clients, Durability, Flow, Protocol, RuntimeSettings, ServerInfo, Session};

pub(crate) fn protocol(requirepass: Option<&str>) -> (RespProtocol, Arc<Clients>) {
    protocol_with(requirepass, None)
}

/// [`protocol`] whose keyspace journals into `persistence`'s journal and
/// whose replies wait for its durability (`sync` mode).
pub(crate) fn protocol_with(
    requirepass: Option<&str>,
    persistence: Option<(Arc<dyn Journal>, Arc<dyn Durability>)>,
) -> (RespProtocol, Arc<Clients>) {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let config = KeyspaceConfig {
        memory_limit: 64 << 20,
        max_item_size: 64 * 1024,
        shards: 2,
        ..KeyspaceConfig::default()
    };
    let keyspace = Keyspace::new(config, clock);
    let settings = RuntimeSettings {
        bind: "127.0.0.1".parse().expect("ip"),
        memcache_port: None,
        resp_port: Some(6379),
        threads: 1,
        data_dir: String::new(),
        max_connections: AtomicUsize::new(10),
        requirepass: RwLock::new(requirepass.map(str::to_string)),
        verbosity: AtomicU32::new(0),
    };
    let mut info = ServerInfo::new("test", settings);
    if let Some((journal, durability)) = persistence {
        keyspace.attach_journal(journal).ok().expect("a journal");
        info = info.with_durability(durability);
    }
    let info = Arc::new(info);
    let clients = Arc::new(Clients::default());
    (RespProtocol::new(keyspace, info, clients.clone()), clients)
}

pub(crate) fn open(protocol: &RespProtocol, clients: &Clients) -> impl Session {
    let addr: SocketAddr = "127.0.0.1:1".parse().expect("addr");
    protocol.open(clients.register(addr, addr))
}

/// Feeds `chunks` one at a time as the driver would; checks the bound the
/// driver relies on.
fn feed(session: &mut impl Session, chunks: &[Vec<u8>], max_input: usize) {
    let mut input = BytesMut::new();
    let mut output = BytesMut::new();
    for chunk in chunks {
        input.extend_from_slice(chunk);
        let flow = session.process(&mut input, &mut output);
        output.clear();
        if flow == Flow::Close {
            return;
        }
        assert!(
            input.len() <= max_input,
            "buffered {} > {}",
            input.len(),
            max_input
        );
    }
}

fn encode(args: &[Vec<u8>]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        out.extend(format!("${}\r\n", arg.len()).into_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn command() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let names = prop::sample::select(vec![
        "GET",
        "SET",
        "DEL",
        "INCR",
        "INCRBYFLOAT",
        "APPEND",
        "SETRANGE",
        "GETRANGE",
        "EXPIRE",
        "TTL",
        "MULTI",
        "EXEC",
        "WATCH",
        "DISCARD",
        "SCAN",
        "KEYS",
        "MSET",
        "MGET",
        "HELLO",
        "CLIENT",
        "CONFIG",
        "INFO",
        "COMMAND",
        "GETEX",
        "RENAME",
        "AUTH",
        "PING",
        "FLUSHALL",
    ]);
    let arg = prop_oneof![
        prop::sample::select(vec![
            "k",
            "EX",
            "PX",
            "NX",
            "XX",
            "GET",
            "KEEPTTL",
            "0",
            "-1",
            "10",
            "1.5",
            "*",
            "3",
            "SETNAME",
            "LIST",
            "GET",
            "MATCH",
            "COUNT",
            "PERSIST",
            "9223372036854775807",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..20),
    ];
    (names, prop::collection::vec(arg, 0..6)).prop_map(|(name, mut args)| {
        args.insert(0, name.as_bytes().to_vec());
        args
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 1..20)) {
        let (protocol, clients) = protocol(None);
        let max = protocol.driver_config().max_input;
        let mut session = open(&protocol, &clients);
        feed(&mut session, &chunks, max);
    }

    #[test]
    fn random_bytes_unauthenticated(chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 1..10)) {
        let (protocol, clients) = protocol(Some("pw"));
        let max = protocol.driver_config().max_input;
        let mut session = open(&protocol, &clients);
        feed(&mut session, &chunks, max);
    }

    #[test]
    fn truncated_and_split_commands(cmds in prop::collection::vec(command(), 1..30), cut in any::<prop::sample::Index>(), splits in prop::collection::vec(any::<prop::sample::Index>(), 0..8)) {
        let mut stream: Vec<u8> = cmds.iter().flat_map(|c| encode(c)).collect();
        let keep = cut.index(stream.len() + 1);
        stream.truncate(keep);
        let mut points: Vec<usize> = splits.iter().map(|i| i.index(stream.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut last = 0;
        for p in points {
            chunks.push(stream[last..p].to_vec());
            last = p;
        }
        chunks.push(stream[last..].to_vec());
        let (protocol, clients) = protocol(None);
        let max = protocol.driver_config().max_input;
        let mut session = open(&protocol, &clients);
        feed(&mut session, &chunks, max);
    }

    #[test]
    fn inline_garbage(lines in prop::collection::vec("[ -~\"'\\\\\\t]{0,40}", 1..10)) {
        let stream: Vec<u8> = lines.iter().flat_map(|l| format!("{l}\r\n").into_bytes()).collect();
        let (protocol, clients) = protocol(None);
        let max = protocol.driver_config().max_input;
        let mut session = open(&protocol, &clients);
        feed(&mut session, &[stream], max);
    }
}

/// A request announcing more than it may is refused at its header: the
/// session closes instead of buffering toward the announced size.
#[test]
fn huge_announcements_close_without_buffering() {
    let (protocol, clients) = protocol(None);
    for header in [
        &b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$999999999\r\n"[..],
        b"*99999999\r\n",
    ] {
        let mut session = open(&protocol, &clients);
        let mut input = BytesMut::from(header);
        let mut output = BytesMut::new();
        assert_eq!(session.process(&mut input, &mut output), Flow::Close);
        assert!(output.starts_with(b"-ERR Protocol error"));
    }
}

/// Many small arguments inside one request that never completes: the
/// session closes once the query buffer limit is passed.
#[test]
fn endless_request_is_cut_at_the_query_limit() {
    let (protocol, clients) = protocol(None);
    // The query limit follows proto-max-bulk-len; at its 1 MiB minimum it
    // is the 64 MiB floor, under the driver's ceiling.
    protocol.set_proto_max_bulk_len(1 << 20);
    let max = protocol.query_limit();
    assert!(max < protocol.driver_config().max_input);
    let mut session = open(&protocol, &clients);
    let mut input = BytesMut::from(&b"*1000000\r\n"[..]);
    let mut output = BytesMut::new();
    let arg = b"$60000\r\n"
        .iter()
        .copied()
        .chain(std::iter::repeat_n(b'x', 60000))
        .chain(*b"\r\n")
        .collect::<Vec<u8>>();
    let mut closed = false;
    for _ in 0..(max / arg.len() + 10) {
        input.extend_from_slice(&arg);
        if session.process(&mut input, &mut output) == Flow::Close {
            closed = true;
            break;
        }
        assert!(input.len() <= max + arg.len());
    }
    assert!(closed);
}

/// A request announcing a bulk near `proto-max-bulk-len` reserves nothing
/// for it: the session keeps only what arrived, waiting for the rest.
#[test]
fn announced_bulk_is_not_allocated_up_front() {
    let (protocol, clients) = protocol(None);
    let mut session = open(&protocol, &clients);
    let mut input = BytesMut::from(&b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870000\r\nabc"[..]);
    let mut output = BytesMut::new();
    assert_eq!(session.process(&mut input, &mut output), Flow::Continue);
    assert!(output.is_empty());
    assert!(input.capacity() < 4096, "{}", input.capacity());
}
