//! strata-log's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-log --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "async_mode.rs"]
mod async_mode;
#[path = "corruption.rs"]
mod corruption;
#[path = "durability_change.rs"]
mod durability_change;
#[path = "faults.rs"]
mod faults;
#[path = "format_fixture.rs"]
mod format_fixture;
#[path = "fs.rs"]
mod fs;
#[path = "full_disk.rs"]
mod full_disk;
#[path = "group_commit.rs"]
mod group_commit;
#[path = "on_demand.rs"]
mod on_demand;
#[path = "power_cut.rs"]
mod power_cut;
#[path = "rotation.rs"]
mod rotation;
#[path = "slow_sync.rs"]
mod slow_sync;
