//! strata-memcache's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-memcache --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "auth.rs"]
mod auth;
#[path = "bad_input.rs"]
mod bad_input;
#[path = "classic.rs"]
mod classic;
#[path = "client_crate.rs"]
mod client_crate;
#[path = "decoder_fuzz.rs"]
mod decoder_fuzz;
#[path = "decoder_split.rs"]
mod decoder_split;
#[path = "expiry.rs"]
mod expiry;
#[path = "item_size_limit.rs"]
mod item_size_limit;
#[path = "meta.rs"]
mod meta;
#[path = "session_fuzz.rs"]
mod session_fuzz;
#[path = "stats_classes.rs"]
mod stats_classes;
