//! Reading back what a restarted server holds: each key's value and whether
//! it expires, every key name, and the `INFO persistence` fields.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;

use super::model::KeyState;
use super::resp::{Reply, RespConn};

/// Keys read per pipelined round trip.
const BATCH: usize = 256;

/// What the server holds, read over one connection.
pub struct Recovered {
    /// The state of every key asked for (absent keys included).
    pub states: BTreeMap<String, KeyState>,
    /// Every key name the server has (`KEYS *`).
    pub all_keys: BTreeSet<String>,
}

impl Recovered {
    /// Reads `keys` (GET and TTL each) and `KEYS *` from the server at
    /// `addr`. Panics on a connection error or an unexpected reply.
    pub fn read(addr: SocketAddr, keys: &BTreeSet<String>) -> Recovered {
        let mut conn = RespConn::connect(addr).expect("connect to read back");
        let mut states = BTreeMap::new();
        let keys: Vec<&String> = keys.iter().collect();
        for batch in keys.chunks(BATCH) {
            let commands: Vec<_> = batch
                .iter()
                .flat_map(|key| {
                    [
                        vec![b"GET".to_vec(), key.as_bytes().to_vec()],
                        vec![b"TTL".to_vec(), key.as_bytes().to_vec()],
                    ]
                })
                .collect();
            conn.send(&commands).expect("send GET/TTL");
            for key in batch {
                let value = conn.read_reply().expect("GET reply");
                let ttl = conn.read_reply().expect("TTL reply");
                states.insert((*key).clone(), key_state(key, value, ttl));
            }
        }
        let all_keys = match conn.call(&[b"KEYS", b"*"]).expect("KEYS reply") {
            Reply::Array(Some(items)) => items
                .into_iter()
                .map(|item| match item {
                    Reply::Bulk(Some(name)) => String::from_utf8(name).expect("UTF-8 key name"),
                    other => panic!("KEYS item {other:?}"),
                })
                .collect(),
            other => panic!("KEYS * replied {other:?}"),
        };
        Recovered { states, all_keys }
    }
}

fn key_state(key: &str, value: Reply, ttl: Reply) -> KeyState {
    match (value, ttl) {
        (Reply::Bulk(None), Reply::Integer(-2)) => KeyState::default(),
        (Reply::Bulk(Some(value)), Reply::Integer(ttl)) if ttl >= -1 => KeyState {
            value: Some(value),
            expiring: ttl >= 0,
        },
        (value, ttl) => panic!("key {key}: GET replied {value:?} and TTL {ttl:?}"),
    }
}

/// The `INFO persistence` fields of the server at `addr`.
pub fn persistence_info(addr: SocketAddr) -> BTreeMap<String, String> {
    info_section(addr, "persistence")
}

/// The fields of `INFO <section>` of the server at `addr`.
pub fn info_section(addr: SocketAddr, section: &str) -> BTreeMap<String, String> {
    let mut conn = RespConn::connect(addr).expect("connect for INFO");
    let text = match conn
        .call(&[b"INFO", section.as_bytes()])
        .expect("INFO reply")
    {
        Reply::Bulk(Some(text)) => String::from_utf8_lossy(&text).into_owned(),
        other => panic!("INFO {section} replied {other:?}"),
    };
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(field, value)| (field.to_owned(), value.trim().to_owned()))
        .collect()
}
