//! The commands, one file per command or tight family. Each file owns its
//! parser (words to a typed request, with memcached's exact refusals) and
//! its execution against the keyspace.
//!
//! Commands never do I/O: they append replies to the output buffer. They
//! read the clock only through the keyspace, and count what `stats` reports
//! in [`crate::stats`].

pub mod cache_memlimit;
pub mod delete;
pub mod flush_all;
pub mod get;
pub mod incr;
pub mod meta_arithmetic;
pub mod meta_debug;
pub mod meta_delete;
pub mod meta_flags;
pub mod meta_get;
pub mod meta_noop;
pub mod meta_set;
pub mod stats;
pub mod stats_classes;
pub mod storage;
pub mod touch;
pub mod verbosity;
pub mod version;

use bytes::BytesMut;
use strata_kv::Store;
use strata_service::Flow;

use crate::command::Command;
use crate::reply::{self, Error};
use crate::shared::Shared;

/// Runs `cmd`; `data` is its data block (empty for commands without one).
pub fn execute(cmd: Command<'_>, data: &[u8], shared: &Shared, out: &mut BytesMut) -> Flow {
    match cmd {
        Command::Retrieve(c) => c.execute(shared, out),
        Command::Store(c) => c.execute(data, shared, out),
        Command::Delete(c) => c.execute(shared, out),
        Command::Arithmetic(c) => c.execute(shared, out),
        Command::Touch(c) => c.execute(shared, out),
        Command::FlushAll(c) => c.execute(shared, out),
        Command::Version => version::execute(shared, out),
        Command::Verbosity(c) => c.execute(shared, out),
        Command::CacheMemlimit(c) => c.execute(shared, out),
        Command::Quit => return Flow::Close,
        Command::Stats(c) => c.execute(shared, out),
        Command::MetaGet(c) => c.execute(shared, out),
        Command::MetaSet(c) => c.execute(data, shared, out),
        Command::MetaDelete(c) => c.execute(shared, out),
        Command::MetaArithmetic(c) => c.execute(shared, out),
        Command::MetaNoop => meta_noop::execute(out),
        Command::MetaDebug(c) => c.execute(shared, out),
    }
    Flow::Continue
}

/// Answers a storage command whose data block exceeds the item size limit
/// (its bytes are discarded by the session). Like memcached, a refused
/// `set` or `ms` also removes the key's current item, so stale data does
/// not outlive a failed update.
pub fn refuse_too_large(cmd: &Command<'_>, shared: &Shared, out: &mut BytesMut) {
    shared.stats.store_too_large.incr();
    match cmd {
        Command::Store(s) => {
            if s.is_set() {
                // Best effort: with a failed log the delete is refused too.
                let _ = shared.keyspace.store().delete(s.key);
            }
            reply::error(out, Error::TooLarge, s.noreply);
        }
        Command::MetaSet(s) => {
            let _ = shared.keyspace.store().delete(&s.flags.key);
            reply::error(out, Error::TooLarge, false);
        }
        _ => {}
    }
}

/// Answers a storage command whose data block was not followed by `\r\n`:
/// nothing is stored. Classic `noreply` hides even this; meta commands
/// always report it.
pub fn bad_data_chunk(cmd: &Command<'_>, out: &mut BytesMut) {
    let hidden = matches!(cmd, Command::Store(s) if s.noreply);
    reply::error(out, Error::BadDataChunk, hidden);
}
