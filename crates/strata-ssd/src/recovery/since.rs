//! Reading what was appended since a position, after an adoption: an
//! engine whose persistent index names an entry that did not reach the
//! device (appended within the flush window before a crash) looks here for
//! the newest entry of that key that did, without a full scan.

use super::blocks::{read_in_order, ScanItem};
use super::state::{corrupt, Recovery};
use crate::error::SsdError;
use crate::loc::BlockLoc;
use crate::position::Position;
use crate::user::StoreUser;

impl Recovery {
    /// Calls `visitor(position, loc, kind, payload)` for every entry of
    /// the primary user at or after `from` that is on the device, in
    /// append order. Only after
    /// [`adopt`](Self::adopt) (or [`scan`](Self::scan)), whose cuts of torn
    /// tails it keeps. It reads the blocks whose sequence is at least
    /// `from`'s: for a `from` taken from [`SsdStore::synced_position`]
    /// shortly before a crash, the blocks of the last flush window or two.
    /// Damage in a block at or below the durable frontier is
    /// [`SsdError::Corrupt`].
    ///
    /// [`SsdStore::synced_position`]: crate::SsdStore::synced_position
    pub fn visit_since(
        &self,
        from: Position,
        mut visitor: impl FnMut(Position, BlockLoc, u8, &[u8]),
    ) -> Result<(), SsdError> {
        if !self.scanned {
            return Err(SsdError::Misuse("visit_since before adopt or scan"));
        }
        let items: Vec<ScanItem> = self
            .found
            .iter()
            .filter(|f| f.header.seq >= from.seq() && f.header.owner == StoreUser::KV.code())
            .map(|f| ScanItem {
                block: f.block,
                seq: f.header.seq,
                // Where adopt cut a torn tail, if it did.
                used: self.table.used(f.block),
            })
            .collect();
        let frontier = self.frontier;
        read_in_order(
            &*self.device,
            &self.geometry,
            self.nonce,
            &items,
            self.config.rebuild_threads,
            &|_| (),
            |i, read, ()| {
                let item = &items[i];
                if let Some((offset, reason)) = read.parsed.bad {
                    if item.seq <= frontier {
                        return Err(corrupt(item.block, offset, reason));
                    }
                }
                for (offset, entry) in &read.parsed.entries {
                    let position = Position::new(item.seq, *offset);
                    if position < from {
                        continue;
                    }
                    let loc = BlockLoc {
                        block: item.block,
                        offset: *offset,
                    };
                    visitor(
                        position,
                        loc,
                        entry.kind,
                        &read.image[entry.payload.clone()],
                    );
                }
                Ok(())
            },
        )
    }
}
