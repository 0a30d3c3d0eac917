//! `SYNC` and `PSYNC replicationid offset`: an RDB snapshot of the whole
//! dataset, for a connection that asked for one with `REPLCONF rdb-only
//! 1` (`redis-cli --rdb`, backup and migration tools). Strata does not
//! replicate, so a connection that wants a replication stream after the
//! snapshot is refused, saying so.
//!
//! The session runs it with the whole keyspace held (as a script), so the
//! snapshot is one instant of the data; other commands wait while it is
//! written, in memory, as an RDB file ([`FileWriter`]: function libraries,
//! then every key with its expiry, plain encodings every Redis 7 loads).
//! `PSYNC` first answers `+FULLRESYNC <run id> 0`; then the file goes as
//! `$<length>\r\n` and its bytes, and the connection closes after it, as
//! Redis closes an RDB-only replica.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::dump::read_value;
use crate::rdb::FileWriter;
use crate::reply::{ClientError, RespError};
use crate::shared::REDIS_VERSION;
use crate::writer::ReplyWriter;

/// Keys visited per scan step.
const STEP: usize = 1024;

/// `SYNC` (`psync` false) or `PSYNC`.
pub fn sync<S: Store>(
    ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    psync: bool,
) -> Result<(), RespError> {
    // PSYNC's replication id and offset do not matter: always a full
    // snapshot.
    let request = ctx.conn.snapshot;
    if !request.rdb_only {
        return Err(ClientError::SyncWithoutRdbOnly.into());
    }
    let file = snapshot(ctx, request.exclude_data, request.exclude_functions)?;
    if psync {
        out.simple(&format!("FULLRESYNC {} 0", ctx.shared.run_id));
    }
    // Replicas are not subject to client eviction in Redis: nor is a
    // connection taking its snapshot (it closes after it).
    ctx.conn.peer.set_no_evict(true);
    out.raw(format!("${}\r\n", file.len()).as_bytes());
    out.raw(&file);
    ctx.conn.close = true;
    Ok(())
}

/// The RDB file of the dataset (`ctx.store` holds the whole keyspace).
fn snapshot<S: Store>(
    ctx: &mut Ctx<'_, S>,
    exclude_data: bool,
    exclude_functions: bool,
) -> Result<Vec<u8>, RespError> {
    let now_secs = ctx.shared.keyspace.now_ms() / 1000;
    let used = ctx.shared.keyspace.stats().used_memory;
    let mut file = FileWriter::new(&[
        ("redis-ver", REDIS_VERSION.to_string()),
        ("redis-bits", "64".to_string()),
        ("ctime", now_secs.to_string()),
        ("used-mem", used.to_string()),
        ("aof-base", "0".to_string()),
    ]);
    if !exclude_functions {
        for library in ctx.shared.functions.libraries() {
            file.function(&library.code);
        }
    }
    if exclude_data {
        return Ok(file.finish());
    }
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut cursor = 0;
    loop {
        cursor = ctx
            .store
            .scan_keys(cursor, STEP, &mut |key| keys.push(key.to_vec()));
        if cursor == 0 {
            break;
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let mut entries = Vec::with_capacity(keys.len());
    for key in keys {
        let expires_at = ctx.store.expiry(&key).flatten();
        if let Some(value) = read_value(ctx.store, &key)? {
            entries.push((key, value, expires_at));
        }
    }
    let expiring = entries.iter().filter(|(_, _, at)| at.is_some()).count();
    file.database(entries.len() as u64, expiring as u64);
    for (key, value, expires_at) in &entries {
        file.key(key, value, *expires_at);
    }
    Ok(file.finish())
}
