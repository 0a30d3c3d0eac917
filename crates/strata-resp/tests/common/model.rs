//! Helpers shared by the model tests (`*_model.rs`): reply accessors that
//! fail loudly on the wrong reply type; the encoding thresholds' set-up;
//! the key commands every collection type shares (DEL, COPY, RENAME)
//! applied to the model; the leak checks (chunk census, FLUSHALL,
//! expiry); and a journal that records the size of every record, with a
//! writer of large collections, so a test can check that a change to a
//! large collection logs a record that does not grow with it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rand::rngs::SmallRng;
use rand::Rng;
use strata_kv::journal::{Journal, Refusal};

use super::{Client, Server, Value};

/// The integer of an integer reply.
pub fn int(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        other => panic!("not an integer: {other:?}"),
    }
}

/// The text of a bulk reply; `None` for nil or any other reply.
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::Bulk(b) => Some(String::from_utf8(b.clone()).unwrap()),
        _ => None,
    }
}

/// The texts of an array of bulk replies.
pub fn strings(v: &Value) -> Vec<String> {
    v.array().iter().map(|e| text(e).unwrap()).collect()
}

/// A journal that keeps the size of every record.
#[derive(Default)]
pub struct Sizes(pub Mutex<Vec<usize>>);

impl Journal for Sizes {
    fn check(&self) -> Result<(), Refusal> {
        Ok(())
    }

    fn append(&self, body: &[u8]) -> Result<u64, String> {
        let mut sizes = self.0.lock().unwrap();
        sizes.push(body.len());
        Ok(sizes.len() as u64)
    }
}

/// A journal that keeps every record body, to replay into another keyspace
/// (a restart from the command log).
#[derive(Default)]
pub struct Records(pub Mutex<Vec<Vec<u8>>>);

impl Journal for Records {
    fn check(&self) -> Result<(), Refusal> {
        Ok(())
    }

    fn append(&self, body: &[u8]) -> Result<u64, String> {
        let mut records = self.0.lock().unwrap();
        records.push(body.to_vec());
        Ok(records.len() as u64)
    }
}

impl Records {
    /// Applies every record kept so far to `keyspace` (fresh, no journal),
    /// in order, as recovery does.
    pub fn replay_into(&self, keyspace: &strata_kv::Keyspace) {
        for body in self.0.lock().unwrap().iter() {
            let changes = strata_kv::journal::decode(body);
            let restored = keyspace.apply_changes(changes).expect("a record decodes");
            assert_eq!(restored.refused, 0);
        }
    }
}

/// `OBJECT ENCODING` of `key`.
pub fn encoding(c: &mut Client, key: &str) -> String {
    text(&c.cmd(&["OBJECT", "ENCODING", key])).unwrap()
}

/// Sets each threshold of `params` with `CONFIG SET`, and checks that
/// `CONFIG GET pattern` answers exactly them, in order.
pub fn configure(c: &mut Client, params: &[(&str, &str)], pattern: &str) {
    for (name, value) in params {
        assert_eq!(c.cmd(&["CONFIG", "SET", name, value]), Value::ok());
    }
    let got = strings(&c.cmd(&["CONFIG", "GET", pattern]));
    let want: Vec<&str> = params.iter().flat_map(|(n, v)| [*n, *v]).collect();
    assert_eq!(got, want);
}

/// No chunk orphaned or missing.
pub fn assert_chunks_whole(server: &Server) {
    let census = server.keyspace.chunk_census();
    assert_eq!((census.orphans, census.missing), (0, 0), "{census:?}");
}

/// After a check of every key: no chunk orphaned or missing, and `DBSIZE`
/// is the model's number of keys.
pub fn assert_whole(c: &mut Client, server: &Server, keys: usize) {
    assert_chunks_whole(server);
    assert_eq!(int(&c.cmd(&["DBSIZE"])), keys as i64);
}

/// `DEL key`, checked against and applied to the model's keys.
pub fn del<T>(c: &mut Client, keys: &mut BTreeMap<String, T>, key: &str) {
    let existed = keys.remove(key).is_some();
    assert_eq!(int(&c.cmd(&["DEL", key])), i64::from(existed));
}

/// `COPY key to` (with `REPLACE` half the time), checked against and
/// applied to the model's keys. The caller has checked `to != key`.
pub fn copy<T: Clone>(
    c: &mut Client,
    rng: &mut SmallRng,
    keys: &mut BTreeMap<String, T>,
    key: &str,
    to: &str,
) {
    let copied = keys.get(key).cloned();
    let replace = rng.gen_bool(0.5);
    let done = copied.is_some() && (replace || !keys.contains_key(to));
    let mut args = vec!["COPY", key, to];
    if replace {
        args.push("REPLACE");
    }
    assert_eq!(int(&c.cmd(&args)), i64::from(done));
    if done {
        keys.insert(to.to_string(), copied.unwrap());
    }
}

/// `RENAME key to`, checked against and applied to the model's keys (an
/// error when `key` is missing).
pub fn rename<T>(c: &mut Client, keys: &mut BTreeMap<String, T>, key: &str, to: &str) {
    match keys.remove(key) {
        Some(value) => {
            assert_eq!(c.cmd(&["RENAME", key, to]), Value::ok());
            keys.insert(to.to_string(), value);
        }
        None => assert!(matches!(c.cmd(&["RENAME", key, to]), Value::Error(_))),
    }
}

/// `FLUSHALL` takes every chunk with its collection.
pub fn flush_takes_chunks(c: &mut Client, server: &Server) {
    c.cmd(&["FLUSHALL"]);
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
}

/// `FLUSHALL`, then a collection of one chunk written by `write` at key
/// `e` expires, and its chunk goes with it.
pub fn flush_and_expiry_take_chunks(c: &mut Client, server: &Server, write: &[&str]) {
    flush_takes_chunks(c, server);
    c.cmd(write);
    c.cmd(&["PEXPIRE", "e", "100"]);
    assert_eq!(server.keyspace.chunk_census().chunks, 1);
    server.clock.advance_ms(200);
    assert_eq!(int(&c.cmd(&["EXISTS", "e"])), 0);
    server.keyspace.run_maintenance();
    assert_eq!(server.keyspace.chunk_census().chunks, 0);
}

/// A server whose keyspace journals into [`Sizes`], and a client.
pub fn journaled() -> (Server, Client, Arc<Sizes>) {
    let server = super::start();
    let sizes = Arc::new(Sizes::default());
    server.keyspace.attach_journal(sizes.clone()).ok().unwrap();
    let c = Client::connect(&server);
    (server, c, sizes)
}

/// A started server whose journal keeps every record ([`Records`], to
/// replay into another), and a client.
pub fn recorded() -> (Server, Client, Arc<Records>) {
    let server = super::start();
    let records = Arc::new(Records::default());
    server
        .keyspace
        .attach_journal(records.clone())
        .ok()
        .unwrap();
    let c = Client::connect(&server);
    (server, c, records)
}

/// Writes items `0..n` to `key` with `cmd`, 100 a command (`item` gives
/// an item's arguments), and checks the reply to batch `b` is `reply(b)`.
pub fn fill(
    c: &mut Client,
    cmd: &str,
    key: &str,
    n: u32,
    item: impl Fn(u32) -> Vec<String>,
    reply: impl Fn(u32) -> i64,
) {
    for batch in 0..n / 100 {
        let mut args = vec![cmd.to_string(), key.to_string()];
        args.extend((batch * 100..(batch + 1) * 100).flat_map(&item));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(int(&c.cmd(&args)), reply(batch));
    }
}

/// Sends `args`, checks that it logged exactly one record, and returns
/// the reply and that record's size.
pub fn one_record(c: &mut Client, sizes: &Sizes, args: &[&str]) -> (Value, usize) {
    let before = sizes.0.lock().unwrap().len();
    let reply = c.cmd(args);
    let sizes = sizes.0.lock().unwrap();
    assert_eq!(sizes.len(), before + 1, "one record: {args:?}");
    (reply, sizes[before])
}
