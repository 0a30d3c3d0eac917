//! The write commands the crash tests send, and what each does to the keys
//! it touches: the model every recovered key is checked against.
//!
//! Commands go through either front end ([`Protocol`]); the memcached
//! protocol carries only SET, DEL, INCRBY (of an existing non-negative
//! counter, by a non-negative delta), APPEND (to an existing key), EXPIRE
//! and PERSIST (`touch`).
//!
//! Expiries are always [`LONG_TTL_SECS`] away, so no key expires during a
//! test and "has an expiry" is the only part of a TTL the model tracks.

use std::collections::BTreeMap;
use std::fmt;

use super::resp::{abbreviate, encode, Command, Reply};

/// Seconds of every expiry the tests set (about 11 days).
pub const LONG_TTL_SECS: u64 = 1_000_000;

/// What a key holds, as far as a client can observe it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct KeyState {
    /// The string value; `None` when the key does not exist.
    pub value: Option<Vec<u8>>,
    /// Whether the key has an expiry. Always false for a missing key.
    pub expiring: bool,
}

impl KeyState {
    /// A key holding `value` without expiry.
    pub fn holding(value: Vec<u8>) -> KeyState {
        KeyState {
            value: Some(value),
            expiring: false,
        }
    }

    /// Whether the key exists.
    pub fn exists(&self) -> bool {
        self.value.is_some()
    }
}

impl fmt::Debug for KeyState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            None => write!(f, "(absent)"),
            Some(value) if self.expiring => write!(f, "{} +ttl", abbreviate(value)),
            Some(value) => write!(f, "{}", abbreviate(value)),
        }
    }
}

/// The front end a command goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Resp,
    Memcache,
}

/// A write command.
#[derive(Clone)]
pub enum Op {
    /// `SET key value [EX LONG_TTL_SECS]`.
    Set {
        key: String,
        value: Vec<u8>,
        expire: bool,
    },
    /// `MSET key value [key value ...]`, keys distinct.
    MSet { pairs: Vec<(String, Vec<u8>)> },
    /// `DEL key`.
    Del { key: String },
    /// `INCRBY key delta`; the key is absent or holds an integer.
    IncrBy { key: String, delta: i64 },
    /// `APPEND key chunk`.
    Append { key: String, chunk: Vec<u8> },
    /// `EXPIRE key LONG_TTL_SECS`.
    Expire { key: String },
    /// `PERSIST key`.
    Persist { key: String },
    /// `RENAME from to`; `from` exists and differs from `to`.
    Rename { from: String, to: String },
}

impl Op {
    /// The command's bytes on the wire.
    pub fn request(&self, protocol: Protocol) -> Vec<u8> {
        match protocol {
            Protocol::Resp => encode(&self.command()),
            Protocol::Memcache => self.memcache_request(),
        }
    }

    /// The command as sent over RESP.
    pub fn command(&self) -> Command {
        let b = |s: &str| s.as_bytes().to_vec();
        match self {
            Op::Set { key, value, expire } => {
                let mut command = vec![b("SET"), b(key), value.clone()];
                if *expire {
                    command.extend([b("EX"), b(&LONG_TTL_SECS.to_string())]);
                }
                command
            }
            Op::MSet { pairs } => {
                let mut command = vec![b("MSET")];
                for (key, value) in pairs {
                    command.extend([b(key), value.clone()]);
                }
                command
            }
            Op::Del { key } => vec![b("DEL"), b(key)],
            Op::IncrBy { key, delta } => vec![b("INCRBY"), b(key), b(&delta.to_string())],
            Op::Append { key, chunk } => vec![b("APPEND"), b(key), chunk.clone()],
            Op::Expire { key } => vec![b("EXPIRE"), b(key), b(&LONG_TTL_SECS.to_string())],
            Op::Persist { key } => vec![b("PERSIST"), b(key)],
            Op::Rename { from, to } => vec![b("RENAME"), b(from), b(to)],
        }
    }

    /// Applies the command to `states` (a missing entry is an absent key):
    /// returns the new states of the keys it touches and the reply the
    /// server must give over `protocol`.
    pub fn apply(
        &self,
        states: &BTreeMap<String, KeyState>,
        protocol: Protocol,
    ) -> (Vec<(String, KeyState)>, Reply) {
        let (changes, reply) = self.apply_resp(states);
        if protocol == Protocol::Resp {
            return (changes, reply);
        }
        let existed = |key: &str| states.get(key).is_some_and(KeyState::exists);
        let status = |text: &str| Reply::Simple(text.into());
        let reply = match self {
            Op::Set { .. } => status("STORED"),
            Op::Append { key, .. } => {
                assert!(existed(key), "memcached APPEND of a present key only");
                status("STORED")
            }
            Op::Del { key } if existed(key) => status("DELETED"),
            Op::Expire { key } | Op::Persist { key } if existed(key) => status("TOUCHED"),
            Op::Del { .. } | Op::Expire { .. } | Op::Persist { .. } => status("NOT_FOUND"),
            Op::IncrBy { key, delta } => {
                assert!(existed(key) && *delta >= 0, "memcached incr of a counter");
                reply
            }
            Op::MSet { .. } | Op::Rename { .. } => panic!("{self:?} has no memcached form"),
        };
        (changes, reply)
    }

    fn memcache_request(&self) -> Vec<u8> {
        let storage = |verb: &str, key: &str, exptime: u64, data: &[u8]| {
            let mut bytes = format!("{verb} {key} 0 {exptime} {}\r\n", data.len()).into_bytes();
            bytes.extend_from_slice(data);
            bytes.extend_from_slice(b"\r\n");
            bytes
        };
        match self {
            Op::Set { key, value, expire } => {
                let exptime = if *expire { LONG_TTL_SECS } else { 0 };
                storage("set", key, exptime, value)
            }
            Op::Append { key, chunk } => storage("append", key, 0, chunk),
            Op::Del { key } => format!("delete {key}\r\n").into_bytes(),
            Op::IncrBy { key, delta } => format!("incr {key} {delta}\r\n").into_bytes(),
            Op::Expire { key } => format!("touch {key} {LONG_TTL_SECS}\r\n").into_bytes(),
            Op::Persist { key } => format!("touch {key} 0\r\n").into_bytes(),
            Op::MSet { .. } | Op::Rename { .. } => panic!("{self:?} has no memcached form"),
        }
    }

    fn apply_resp(&self, states: &BTreeMap<String, KeyState>) -> (Vec<(String, KeyState)>, Reply) {
        let state = |key: &str| states.get(key).cloned().unwrap_or_default();
        match self {
            Op::Set { key, value, expire } => {
                let new = KeyState {
                    value: Some(value.clone()),
                    expiring: *expire,
                };
                (vec![(key.clone(), new)], Reply::ok())
            }
            Op::MSet { pairs } => {
                let new = pairs
                    .iter()
                    .map(|(key, value)| (key.clone(), KeyState::holding(value.clone())))
                    .collect();
                (new, Reply::ok())
            }
            Op::Del { key } => {
                let existed = state(key).exists();
                (vec![(key.clone(), KeyState::default())], count(existed))
            }
            Op::IncrBy { key, delta } => {
                let old = state(key);
                let current: i64 = old.value.as_ref().map_or(0, |v| {
                    String::from_utf8_lossy(v)
                        .parse()
                        .expect("counters hold integers")
                });
                let sum = current + delta;
                let new = KeyState {
                    value: Some(sum.to_string().into_bytes()),
                    expiring: old.expiring,
                };
                (vec![(key.clone(), new)], Reply::Integer(sum))
            }
            Op::Append { key, chunk } => {
                let mut new = state(key);
                let value = new.value.get_or_insert_with(Vec::new);
                value.extend_from_slice(chunk);
                let len = value.len() as i64;
                (vec![(key.clone(), new)], Reply::Integer(len))
            }
            Op::Expire { key } => {
                let mut new = state(key);
                new.expiring = new.exists();
                let changed = new.exists();
                (vec![(key.clone(), new)], count(changed))
            }
            Op::Persist { key } => {
                let mut new = state(key);
                let changed = new.expiring;
                new.expiring = false;
                (vec![(key.clone(), new)], count(changed))
            }
            Op::Rename { from, to } => {
                let moved = state(from);
                assert!(moved.exists() && from != to, "RENAME of a present key only");
                let new = vec![(from.clone(), KeyState::default()), (to.clone(), moved)];
                (new, Reply::ok())
            }
        }
    }
}

fn count(yes: bool) -> Reply {
    Reply::Integer(i64::from(yes))
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let command = self.command();
        let name = String::from_utf8_lossy(&command[0]);
        write!(f, "{name}")?;
        for arg in &command[1..] {
            write!(f, " {}", abbreviate(arg))?;
        }
        Ok(())
    }
}
