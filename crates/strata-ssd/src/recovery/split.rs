//! The rebuild scan split among worker threads: the engine's index is
//! partitioned (by key hash into shards), so each worker owns a part and
//! builds it alone, without locks.
//!
//! Blocks are read, checked and cut as by [`Recovery::scan`]; on each
//! reader thread the engine's router sends every entry to the worker that
//! owns its key, with a tag (the key's hash, computed once), or to every
//! worker (a flush marker). Each worker is handed every block in ascending
//! sequence and visits its share in append order, so the entries of a key
//! reach its worker in the order [`Recovery::scan`] would visit them, and a
//! part comes out as a single-threaded scan would have built it.
//!
//! Each worker also counts the live bytes of what it keeps in its own
//! [`LiveTally`] (marking a key's record, unmarking the record it
//! supersedes or a tombstone removes, clearing at a flush marker), so no
//! pass over the rebuilt index is needed to mark live entries: the tallies
//! are added to the block table when the scan ends.

use std::sync::{mpsc, Arc};

use super::blocks::ReadBlock;
use super::state::Recovery;
use super::tally::LiveTally;
use crate::config::IndexHome;
use crate::error::SsdError;
use crate::loc::BlockLoc;

/// Blocks queued for each worker (besides the one it visits).
const WORKER_QUEUE: usize = 2;
/// How many entries ahead of the one visited a worker is told of (see
/// `ahead` in [`Recovery::scan_split`]): enough to cover a cache miss with
/// the visits in between.
const LOOK_AHEAD: usize = 8;

/// Where the router sends one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// `None`: every worker.
    worker: Option<usize>,
    tag: u64,
}

impl Route {
    /// To worker `worker` (the last one if out of range), carrying `tag`.
    pub const fn to(worker: usize, tag: u64) -> Route {
        Route {
            worker: Some(worker),
            tag,
        }
    }

    /// To every worker (tag 0).
    pub const fn everyone() -> Route {
        Route {
            worker: None,
            tag: 0,
        }
    }
}

/// One entry handed to a worker.
#[derive(Debug, Clone, Copy)]
pub struct SplitEntry<'a> {
    /// Where the entry is.
    pub loc: BlockLoc,
    /// Its kind (the engine's).
    pub kind: u8,
    /// Its payload.
    pub payload: &'a [u8],
    /// What the router attached.
    pub tag: u64,
}

/// A block and each worker's share of its entries: (index in the parsed
/// entries, tag).
struct SplitBlock {
    block: u32,
    read: ReadBlock,
    shares: Vec<Vec<(u32, u64)>>,
}

impl Recovery {
    /// Scans every entry as [`scan`](Self::scan) does, with one worker
    /// thread per element of `states`: `route(kind, payload)`, on the
    /// reader threads, says which worker visits each entry, and
    /// `visit(state, tally, entry)` runs on that worker with its state and
    /// tally (see the module documentation). Before each visit, `ahead(state,
    /// tag)` gets the tag of the entry a few places further in the
    /// worker's share, so the worker can start loading what that entry will
    /// touch (its index slot) while it visits the ones before. When every block is read, the
    /// tallies are added as by [`add_tally`](Self::add_tally): the entries
    /// they count are live. Then [`set_live`](Self::set_live) may mark more
    /// (the tombstones the engine keeps) before [`finish`](Self::finish).
    ///
    /// Once only, and not after [`scan`](Self::scan); only for a device
    /// whose index is [`IndexHome::Rebuilt`]. On an error (a read, damage
    /// at or below the durable frontier, a worker that panicked, a tally
    /// out of the blocks' bounds) the states may hold part of the entries.
    pub fn scan_split<S: Send>(
        &mut self,
        states: &mut [S],
        route: impl Fn(u8, &[u8]) -> Route + Sync,
        visit: impl Fn(&mut S, &mut LiveTally, SplitEntry<'_>) + Sync,
        ahead: impl Fn(&S, u64) + Sync,
    ) -> Result<(), SsdError> {
        if self.config.index_home != IndexHome::Rebuilt {
            return Err(SsdError::Misuse(
                "scanning a device whose index is persistent (it holds no tombstones)",
            ));
        }
        if self.scanned {
            return Err(SsdError::Misuse("a split scan after another scan"));
        }
        let workers = states.len();
        if workers == 0 {
            return Err(SsdError::Misuse("a split scan without workers"));
        }
        let tallies: Vec<LiveTally> = (0..workers).map(|_| self.tally_now()).collect();
        let prepare = |read: &ReadBlock| share_out(read, workers, &route);
        let visit = &visit;
        let ahead = &ahead;
        let (read, tallies) = std::thread::scope(|scope| {
            let mut senders = Vec::with_capacity(workers);
            let mut handles = Vec::with_capacity(workers);
            for (w, (state, mut tally)) in states.iter_mut().zip(tallies).enumerate() {
                let (sender, receiver) = mpsc::sync_channel::<Arc<SplitBlock>>(WORKER_QUEUE);
                senders.push(sender);
                handles.push(scope.spawn(move || {
                    for split in receiver {
                        let read = &split.read;
                        let share = &split.shares[w];
                        for &(_, tag) in share.iter().take(LOOK_AHEAD) {
                            ahead(state, tag);
                        }
                        for (j, &(i, tag)) in share.iter().enumerate() {
                            if let Some(&(_, later)) = share.get(j + LOOK_AHEAD) {
                                ahead(state, later);
                            }
                            let (offset, entry) = &read.parsed.entries[i as usize];
                            let loc = BlockLoc {
                                block: split.block,
                                offset: *offset,
                            };
                            let entry = SplitEntry {
                                loc,
                                kind: entry.kind,
                                payload: &read.image[entry.payload.clone()],
                                tag,
                            };
                            visit(state, &mut tally, entry);
                        }
                    }
                    tally
                }));
            }
            let read = self.read_blocks_with(false, &prepare, |block, read, shares| {
                let split = Arc::new(SplitBlock {
                    block,
                    read,
                    shares,
                });
                for sender in &senders {
                    sender.send(split.clone()).map_err(|_| worker_died())?;
                }
                Ok(())
            });
            drop(senders);
            let tallies: Result<Vec<LiveTally>, SsdError> = handles
                .into_iter()
                .map(|h| h.join().map_err(|_| worker_died()))
                .collect();
            (read, tallies)
        });
        read?;
        for tally in tallies? {
            self.add_tally(tally)?;
        }
        Ok(())
    }
}

/// Each worker's share of the entries of `read`.
fn share_out(
    read: &ReadBlock,
    workers: usize,
    route: &impl Fn(u8, &[u8]) -> Route,
) -> Vec<Vec<(u32, u64)>> {
    let mut shares = vec![Vec::new(); workers];
    let expected = read.parsed.entries.len() / workers + 16;
    for share in &mut shares {
        share.reserve(expected);
    }
    for (i, (_, entry)) in read.parsed.entries.iter().enumerate() {
        let routed = route(entry.kind, &read.image[entry.payload.clone()]);
        match routed.worker {
            Some(w) => shares[w.min(workers - 1)].push((i as u32, routed.tag)),
            None => {
                for share in &mut shares {
                    share.push((i as u32, routed.tag));
                }
            }
        }
    }
    shares
}

/// A worker thread panicked.
fn worker_died() -> SsdError {
    SsdError::io(
        "rebuilding",
        std::io::Error::other("a rebuild worker thread panicked"),
    )
}
