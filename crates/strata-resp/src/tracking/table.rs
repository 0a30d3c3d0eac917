//! [`Tracking`]: the clients that track, their options, and the keys each
//! default-mode client read since they last changed; [`ConnTracking`], a
//! connection's own part. Decides who hears of a change; `deliver` writes
//! the messages. A leaf.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

/// Redis's default `tracking-table-max-keys`.
pub const DEFAULT_MAX_KEYS: usize = 1_000_000;

/// A client's `CLIENT TRACKING ON` options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Where its messages go (0: to itself).
    pub redirect: u64,
    /// Hears of every change under its prefixes, remembers no reads.
    pub bcast: bool,
    /// `BCAST`'s prefixes (none: every key).
    pub prefixes: Vec<Box<[u8]>>,
    /// Remembers only reads after `CLIENT CACHING YES`.
    pub optin: bool,
    /// Remembers reads except after `CLIENT CACHING NO`.
    pub optout: bool,
    /// Not told of its own changes.
    pub noloop: bool,
}

/// A tracking connection's own state: its options, and `CLIENT CACHING`'s
/// answer for the next command.
#[derive(Debug, Clone, Default)]
pub struct ConnTracking {
    /// As given to `CLIENT TRACKING ON` (prefixes accumulated).
    pub options: Options,
    /// `CLIENT CACHING YES` (`Some(true)`) or `NO`, for the next command.
    pub caching: Option<bool>,
}

/// One message to send: to `client` (or its redirect), the changed keys
/// (`None`: everything, after a flush).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The tracking client.
    pub client: u64,
    /// Its redirect (0: none).
    pub redirect: u64,
    /// The keys (`None`: all, a flush).
    pub keys: Option<Vec<Box<[u8]>>>,
}

#[derive(Debug, Default)]
struct Table {
    clients: HashMap<u64, Options>,
    /// Default mode: key -> clients that read it since its last change.
    keys: HashMap<Box<[u8]>, Vec<u64>>,
    /// Keys in the order first remembered, for the bound (entries whose
    /// key was invalidated since are stale, and compacted away before they
    /// outnumber the keys twice).
    order: VecDeque<Box<[u8]>>,
    /// Pairs of key and client in `keys`.
    items: usize,
}

/// Every tracking client of one front end.
#[derive(Debug)]
pub struct Tracking {
    /// Clients with tracking on: the engine reports changes while not 0.
    on: AtomicUsize,
    max_keys: AtomicUsize,
    table: Mutex<Table>,
}

impl Default for Tracking {
    fn default() -> Self {
        Tracking {
            on: AtomicUsize::new(0),
            max_keys: AtomicUsize::new(DEFAULT_MAX_KEYS),
            table: Mutex::default(),
        }
    }
}

impl Tracking {
    /// Whether any client tracks (one relaxed load).
    pub fn any(&self) -> bool {
        self.on.load(Ordering::Relaxed) > 0
    }

    /// Turns tracking on for `client` with `options` (replacing earlier
    /// options, its prefixes added to those it had); `report(true)` is
    /// called under the table's lock, so it and `disable`'s calls keep
    /// their order. Returns the options now in force.
    pub fn enable(&self, client: u64, mut options: Options, report: impl FnOnce(bool)) -> Options {
        let mut table = self.table.lock();
        if let Some(old) = table.clients.get(&client) {
            for p in &old.prefixes {
                if !options.prefixes.contains(p) {
                    options.prefixes.push(p.clone());
                }
            }
        }
        // In byte order, as Redis's radix tree lists them.
        options.prefixes.sort();
        table.clients.insert(client, options.clone());
        self.on.store(table.clients.len(), Ordering::Relaxed);
        report(true);
        options
    }

    /// Turns tracking off for `client`, calling `report(false)` (under the
    /// lock) when it was the last. Its remembered reads are dropped
    /// lazily, when their keys change.
    pub fn disable(&self, client: u64, report: impl FnOnce(bool)) {
        let mut table = self.table.lock();
        table.clients.remove(&client);
        self.on.store(table.clients.len(), Ordering::Relaxed);
        if table.clients.is_empty() {
            report(false);
        }
    }

    /// Sets `tracking-table-max-keys` (0: no bound).
    pub fn set_max_keys(&self, max: usize) {
        self.max_keys.store(max, Ordering::Relaxed);
    }

    /// `tracking-table-max-keys`.
    pub fn max_keys(&self) -> usize {
        self.max_keys.load(Ordering::Relaxed)
    }

    /// `client` read `keys`: it hears of their next change. Returns the
    /// invalidations of keys forgotten to stay within the bound.
    pub(crate) fn remember<'k>(
        &self,
        client: u64,
        keys: impl Iterator<Item = &'k [u8]>,
    ) -> Vec<Message> {
        let mut table = self.table.lock();
        for key in keys {
            let clients = table.keys.entry(key.into()).or_default();
            if clients.contains(&client) {
                continue;
            }
            let new_key = clients.is_empty();
            clients.push(client);
            table.items += 1;
            if new_key {
                table.order.push_back(key.into());
            }
        }
        // Keys invalidated since leave stale entries: keep them few.
        if table.order.len() > 2 * table.keys.len() + 1024 {
            let Table { order, keys, .. } = &mut *table;
            let mut seen = std::collections::HashSet::new();
            order.retain(|k| keys.contains_key(k) && seen.insert(k.clone()));
        }
        let max = self.max_keys();
        let mut evicted = Vec::new();
        while max > 0 && table.keys.len() > max {
            let Some(oldest) = table.order.pop_front() else {
                break;
            };
            evicted.extend(invalidate(&mut table, &oldest, 0));
        }
        evicted
    }

    /// `key` changed (made by client `by`, 0: none): the messages to send.
    pub(crate) fn changed(&self, key: &[u8], by: u64) -> Vec<Message> {
        let mut table = self.table.lock();
        let mut out = invalidate(&mut table, key, by);
        for (&client, options) in &table.clients {
            let heard = options.bcast
                && !(options.noloop && client == by)
                && (options.prefixes.is_empty()
                    || options.prefixes.iter().any(|p| key.starts_with(p)));
            if heard {
                out.push(Message {
                    client,
                    redirect: options.redirect,
                    keys: Some(vec![key.into()]),
                });
            }
        }
        out
    }

    /// Everything went: every tracking client hears it once; nothing stays
    /// remembered.
    pub(crate) fn flushed(&self) -> Vec<Message> {
        let mut table = self.table.lock();
        table.keys.clear();
        table.order.clear();
        table.items = 0;
        table
            .clients
            .iter()
            .map(|(&client, o)| Message {
                client,
                redirect: o.redirect,
                keys: None,
            })
            .collect()
    }

    /// `(tracking clients, remembered keys, key-client pairs, prefixes)`
    /// for `INFO`.
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let table = self.table.lock();
        let prefixes = table.clients.values().map(|o| o.prefixes.len()).sum();
        (table.clients.len(), table.keys.len(), table.items, prefixes)
    }
}

/// Forgets `key` and returns a message for each default-mode client that
/// read it and still tracks (but `by` if it asked for `NOLOOP`).
fn invalidate(table: &mut Table, key: &[u8], by: u64) -> Vec<Message> {
    let Some(readers) = table.keys.remove(key) else {
        return Vec::new();
    };
    table.items -= readers.len();
    readers
        .into_iter()
        .filter_map(|client| {
            let options = table.clients.get(&client)?;
            let quiet = options.bcast || (options.noloop && client == by);
            (!quiet).then(|| Message {
                client,
                redirect: options.redirect,
                keys: Some(vec![key.into()]),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(messages: &[Message]) -> Vec<(u64, Vec<&[u8]>)> {
        messages
            .iter()
            .map(|m| {
                let keys = m.keys.iter().flatten().map(|k| &k[..]).collect();
                (m.client, keys)
            })
            .collect()
    }

    #[test]
    fn a_read_key_is_invalidated_once_for_its_readers() {
        let t = Tracking::default();
        t.enable(1, Options::default(), |_| {});
        t.enable(
            2,
            Options {
                noloop: true,
                ..Options::default()
            },
            |_| {},
        );
        t.remember(1, [&b"k"[..]].into_iter());
        t.remember(2, [&b"k"[..]].into_iter());
        let messages = t.changed(b"k", 2);
        assert_eq!(
            keys(&messages),
            [(1, vec![&b"k"[..]])],
            "2 made the change, NOLOOP"
        );
        assert!(t.changed(b"k", 0).is_empty(), "forgotten after one change");
        assert_eq!(t.counts(), (2, 0, 0, 0));
    }

    #[test]
    fn bcast_hears_changes_under_its_prefixes() {
        let t = Tracking::default();
        let prefixes = vec![Box::from(&b"user:"[..])];
        t.enable(
            7,
            Options {
                bcast: true,
                prefixes,
                ..Options::default()
            },
            |_| {},
        );
        assert_eq!(keys(&t.changed(b"user:1", 0)), [(7, vec![&b"user:1"[..]])]);
        assert!(t.changed(b"order:1", 0).is_empty());
        // Re-enabling adds prefixes.
        let more = vec![Box::from(&b"order:"[..])];
        t.enable(
            7,
            Options {
                bcast: true,
                prefixes: more,
                ..Options::default()
            },
            |_| {},
        );
        assert_eq!(t.changed(b"order:1", 0).len(), 1);
    }

    #[test]
    fn the_table_keeps_to_its_bound_and_a_flush_tells_everyone() {
        let t = Tracking::default();
        t.set_max_keys(2);
        t.enable(1, Options::default(), |_| {});
        t.remember(1, [&b"a"[..], b"b"].into_iter());
        let evicted = t.remember(1, [&b"c"[..]].into_iter());
        assert_eq!(keys(&evicted), [(1, vec![&b"a"[..]])], "the oldest goes");
        assert_eq!(t.counts().1, 2);
        t.disable(1, |_| {});
        assert!(
            t.changed(b"b", 0).is_empty(),
            "a client that stopped hears nothing"
        );
        t.enable(3, Options::default(), |_| {});
        assert_eq!(
            t.flushed(),
            [Message {
                client: 3,
                redirect: 0,
                keys: None
            }]
        );
    }
}
