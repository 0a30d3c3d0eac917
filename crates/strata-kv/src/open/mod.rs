//! Opening a keyspace from its tiers, above the keyspace: the persistent
//! arena's directory and each shard restored from it (`placed.rs`,
//! `restart.rs`), the SSD tier rebuilt by a scan split among workers
//! (`ssd_rebuild.rs`, `ssd_rebuild_part.rs`) or
//! adopted with its stubs (`ssd_adopt.rs`, `ssd_repair.rs`), and the
//! SSD tier's defragmentation, which moves records of a running keyspace
//! (`defrag.rs` empties a block, `reclaim.rs` says when and who).

mod defrag;
mod placed;
mod reclaim;
mod restart;
mod ssd;
mod ssd_adopt;
mod ssd_rebuild;
mod ssd_rebuild_part;
#[cfg(test)]
mod ssd_rebuild_tests;
mod ssd_repair;
