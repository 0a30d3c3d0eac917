//! [`StoreUser`]: which engine owns a write block. One store on one device
//! serves several engines; each block belongs to exactly one of them, so
//! space is counted per user from the block table alone and one user's
//! defragmentation or rebuild never touches another's blocks.
//!
//! The *primary* user ([`StoreUser::KV`], code 0) appends entries one at a
//! time into the open block and rebuilds its index by scanning its blocks
//! (or adopts a persistent one). Every other user appends *runs*
//! ([`SsdStore::append_run`](crate::SsdStore::append_run)): whole blocks
//! written and sealed at once, whose locations the user keeps in a catalog
//! of its own and marks live again at restart
//! ([`Recovery::set_live`](crate::Recovery::set_live)). Blocks written
//! before users existed hold 0 where the owner is recorded: they are the
//! primary user's, as they were.

use std::fmt;

/// The engine a block belongs to: a code recorded in its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreUser(u16);

impl StoreUser {
    /// The key-value engine's records: the primary user.
    pub const KV: StoreUser = StoreUser(0);

    /// Search's persisted segment files (a `FileSet` per shard).
    pub const SEARCH: StoreUser = StoreUser(1);

    /// The highest code a block header may record.
    pub const MAX_CODE: u16 = 15;

    /// The user with `code`; `None` above [`MAX_CODE`](Self::MAX_CODE).
    pub fn from_code(code: u16) -> Option<StoreUser> {
        (code <= Self::MAX_CODE).then_some(StoreUser(code))
    }

    /// The code recorded in block headers.
    pub fn code(self) -> u16 {
        self.0
    }

    /// Whether this is the user whose entries a scan delivers.
    pub fn is_primary(self) -> bool {
        self == Self::KV
    }

    /// The name reports use (`kv`, `search`, else `user<code>`).
    pub fn name(self) -> String {
        match self {
            Self::KV => "kv".into(),
            Self::SEARCH => "search".into(),
            StoreUser(code) => format!("user{code}"),
        }
    }
}

impl fmt::Display for StoreUser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}
