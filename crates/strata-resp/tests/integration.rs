//! strata-resp's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-resp --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "acl.rs"]
mod acl;
#[path = "acl_connections.rs"]
mod acl_connections;
#[path = "bitmaps.rs"]
mod bitmaps;
#[path = "client_controls.rs"]
mod client_controls;
#[path = "client_eviction.rs"]
mod client_eviction;
#[path = "client_kill.rs"]
mod client_kill;
#[path = "cluster.rs"]
mod cluster;
#[path = "cluster_slots.rs"]
mod cluster_slots;
#[path = "collections_client.rs"]
mod collections_client;
#[path = "command_keys.rs"]
mod command_keys;
#[path = "command_tips.rs"]
mod command_tips;
#[path = "connection.rs"]
mod connection;
#[path = "conversion_race.rs"]
mod conversion_race;
#[path = "databases.rs"]
mod databases;
#[path = "debug.rs"]
mod debug;
#[path = "decoder_fuzz.rs"]
mod decoder_fuzz;
#[path = "decoder_split.rs"]
mod decoder_split;
#[path = "digest_diff.rs"]
mod digest_diff;
#[path = "doubles.rs"]
mod doubles;
#[path = "dump_restore.rs"]
mod dump_restore;
#[path = "functions.rs"]
mod functions;
#[path = "geo.rs"]
mod geo;
#[path = "handed_pops.rs"]
mod handed_pops;
#[path = "hash_model.rs"]
mod hash_model;
#[path = "hyperloglog.rs"]
mod hyperloglog;
#[path = "keys.rs"]
mod keys;
#[path = "keyspace_events.rs"]
mod keyspace_events;
#[path = "large_memory.rs"]
mod large_memory;
#[path = "list_model.rs"]
mod list_model;
#[path = "lolwut.rs"]
mod lolwut;
#[path = "memory.rs"]
mod memory;
#[path = "memory_latency.rs"]
mod memory_latency;
#[path = "migrate.rs"]
mod migrate;
#[path = "monitor.rs"]
mod monitor;
#[path = "mpop_algebra.rs"]
mod mpop_algebra;
#[path = "object.rs"]
mod object;
#[path = "protocol.rs"]
mod protocol;
#[path = "pubsub.rs"]
mod pubsub;
#[path = "rdb_snapshot.rs"]
mod rdb_snapshot;
#[path = "redis_client.rs"]
mod redis_client;
#[path = "scripting.rs"]
mod scripting;
#[path = "scripting_flags.rs"]
mod scripting_flags;
#[path = "scripting_libs.rs"]
mod scripting_libs;
#[path = "scripting_limits.rs"]
mod scripting_limits;
#[path = "scripting_resp3.rs"]
mod scripting_resp3;
#[path = "scripting_sandbox.rs"]
mod scripting_sandbox;
#[path = "server.rs"]
mod server;
#[path = "session_fuzz.rs"]
mod session_fuzz;
#[path = "set_model.rs"]
mod set_model;
#[path = "slowlog.rs"]
mod slowlog;
#[path = "sort_lcs.rs"]
mod sort_lcs;
#[path = "sort_lcs_diff.rs"]
mod sort_lcs_diff;
#[path = "sort_lcs_store.rs"]
mod sort_lcs_store;
#[path = "standalone.rs"]
mod standalone;
#[path = "stream_diff.rs"]
mod stream_diff;
#[path = "stream_groups.rs"]
mod stream_groups;
#[path = "stream_groups_claims.rs"]
mod stream_groups_claims;
#[path = "stream_groups_info.rs"]
mod stream_groups_info;
#[path = "stream_large.rs"]
mod stream_large;
#[path = "stream_pel.rs"]
mod stream_pel;
#[path = "stream_pel_diff.rs"]
mod stream_pel_diff;
#[path = "streams.rs"]
mod streams;
#[path = "strings.rs"]
mod strings;
#[path = "tracking.rs"]
mod tracking;
#[path = "tracking_scripts.rs"]
mod tracking_scripts;
#[path = "transactions.rs"]
mod transactions;
#[path = "zset_model.rs"]
mod zset_model;
#[path = "zset_score_shapes.rs"]
mod zset_score_shapes;
