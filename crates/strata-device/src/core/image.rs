//! [`MemImage`]: bytes in memory that remember what was made durable, so a
//! test can cut the power and look at what a restart finds. The one crash
//! simulator of the crate: each file of a
//! [`MemDirectory`](crate::MemDirectory) is one, and so is a
//! [`MemBlockDevice`](crate::MemBlockDevice).
//!
//! Model: the bytes readers see now (`current`), the bytes a power cut
//! would leave (`durable`, as of the last `sync`), and the changes in
//! between, in order. Invariant: applying `unsynced` in order to `durable`
//! gives `current`. Never used for real data.

use super::SplitMix;

/// A change not yet covered by a `sync`.
enum Change {
    Write { offset: usize, bytes: Vec<u8> },
    SetLen(usize),
}

impl Change {
    fn apply(&self, content: &mut Vec<u8>) {
        match self {
            Change::Write { offset, bytes } => write_into(content, *offset, bytes),
            Change::SetLen(len) => content.resize(*len, 0),
        }
    }
}

/// Writes `bytes` at `offset`, extending `content` with zeros if needed.
fn write_into(content: &mut Vec<u8>, offset: usize, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    let end = offset + bytes.len();
    if content.len() < end {
        content.resize(end, 0);
    }
    content[offset..end].copy_from_slice(bytes);
}

/// What a torn power cut keeps of the unsynced changes: which of them, and
/// how finely the last one kept may be cut.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TornCut {
    /// A file in a filesystem: a random prefix of the changes, in order,
    /// the last kept write cut to a random prefix of its bytes.
    InOrderPrefix,
    /// A drive, which reorders its write cache: any subset of the writes
    /// (applied in their order), the last kept one cut to a prefix of its
    /// `sector`-byte sectors.
    AnySubset { sector: usize },
}

/// One simulated file or device.
#[derive(Default)]
pub(crate) struct MemImage {
    current: Vec<u8>,
    durable: Vec<u8>,
    unsynced: Vec<Change>,
}

impl MemImage {
    /// An image whose content is all durable (as found after a crash).
    pub(crate) fn all_durable(content: Vec<u8>) -> MemImage {
        MemImage {
            current: content.clone(),
            durable: content,
            unsynced: Vec::new(),
        }
    }

    /// The bytes readers see now.
    pub(crate) fn current(&self) -> &[u8] {
        &self.current
    }

    fn record(&mut self, change: Change) {
        change.apply(&mut self.current);
        self.unsynced.push(change);
    }

    /// Writes `bytes` at `offset` (extending with zeros), durable only
    /// after a [`sync`](Self::sync). An empty write changes nothing.
    pub(crate) fn write(&mut self, offset: usize, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.record(Change::Write {
                offset,
                bytes: bytes.to_vec(),
            });
        }
    }

    /// Truncates or extends (zeros) to `len`, durable after a `sync`.
    pub(crate) fn set_len(&mut self, len: usize) {
        self.record(Change::SetLen(len));
    }

    /// Makes every change so far durable.
    pub(crate) fn sync(&mut self) {
        let MemImage {
            durable, unsynced, ..
        } = self;
        for change in unsynced.drain(..) {
            change.apply(durable);
        }
    }

    /// Bytes written since the last `sync` (what a crash may lose).
    pub(crate) fn unsynced_bytes(&self) -> usize {
        self.unsynced
            .iter()
            .map(|change| match change {
                Change::Write { bytes, .. } => bytes.len(),
                Change::SetLen(_) => 0,
            })
            .sum()
    }

    /// XORs `mask` into the byte at `offset`, both now and in the durable
    /// state: bit rot, for corruption tests. Panics past the end.
    pub(crate) fn damage(&mut self, offset: usize, mask: u8) {
        self.current[offset] ^= mask;
        self.durable[offset] ^= mask;
    }

    /// The content a power cut leaves: the durable bytes only.
    pub(crate) fn after_crash(&self) -> Vec<u8> {
        self.durable.clone()
    }

    /// The content a killed process leaves: every change that reached the
    /// image, synced or not (the kernel keeps what it was handed).
    pub(crate) fn after_kill(&self) -> Vec<u8> {
        self.current.clone()
    }

    /// The content a power cut may leave on real storage: the durable
    /// bytes, then the unsynced changes `cut` keeps, the last one possibly
    /// torn. The same `rng` state on the same history gives the same result.
    pub(crate) fn after_torn_crash(&self, rng: &mut SplitMix, cut: TornCut) -> Vec<u8> {
        let mut content = self.durable.clone();
        let (kept, unit): (Vec<&Change>, usize) = match cut {
            TornCut::InOrderPrefix => {
                let n = rng.below(self.unsynced.len() as u64 + 1) as usize;
                (self.unsynced[..n].iter().collect(), 1)
            }
            TornCut::AnySubset { sector } => (
                self.unsynced.iter().filter(|_| rng.below(2) == 0).collect(),
                sector,
            ),
        };
        let Some((last, whole)) = kept.split_last() else {
            return content;
        };
        for change in whole {
            change.apply(&mut content);
        }
        match last {
            Change::Write { offset, bytes } if rng.below(2) == 0 => {
                let keep = rng.below((bytes.len() / unit) as u64) as usize * unit;
                write_into(&mut content, *offset, &bytes[..keep]);
            }
            change => change.apply(&mut content),
        }
        content
    }
}
