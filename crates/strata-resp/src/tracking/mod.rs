//! Redis's client-side caching (`CLIENT TRACKING`): the server remembers
//! which client read which key and tells it when the key changes, so the
//! client may keep a copy meanwhile.
//!
//! - Default mode: a tracking client's read-only commands remember their
//!   keys (with `OPTIN`, only the command after `CLIENT CACHING YES`; with
//!   `OPTOUT`, all but the one after `CLIENT CACHING NO`). The first change
//!   of such a key invalidates it for every client that read it, and
//!   forgets it: they must read it again to hear of the next change.
//! - `BCAST`: the client hears of every change of a key under one of its
//!   prefixes (all keys without one), remembering nothing.
//! - Scripts (`EVAL`, `EVALSHA`, `FCALL` and their `_RO` forms), as Redis
//!   7.0 does: each read-only command a script runs (whatever its
//!   outcome) remembers the *calling* command's declared keys (`numkeys`)
//!   for the caller, in its mode and with its `CLIENT CACHING` answer,
//!   not the keys the script's command names; the script command itself
//!   remembers nothing, `_RO` forms included. (Redis 7.2 remembers the
//!   keys of the command run instead.)
//! - `NOLOOP`: not of the changes it made itself. `REDIRECT id`: the
//!   messages go to that client instead (RESP2 clients read them there as
//!   `__redis__:invalidate` messages); a RESP3 client hears `invalidate`
//!   pushes on its own connection.
//!
//! Changes come from the engine ([`strata_kv::ChangeObserver`]), so
//! writes through the memcached port, expiry and eviction invalidate too;
//! a flush sends one `invalidate` with a null key list. The engine reports
//! changes only while some client tracks. The table of remembered keys is
//! bounded by `tracking-table-max-keys` (Redis's default, 1,000,000): past
//! it, the oldest remembered key is invalidated to make room, as Redis
//! evicts one.
//!
//! Lock order: a shard (the engine reports with it held), then the table,
//! then the peers' registry and a mailbox; nothing here calls the engine.

mod current;
mod deliver;
pub mod table;

pub use current::{current, running, Running};
pub use deliver::{Invalidator, INVALIDATE_CHANNEL};
pub use table::{ConnTracking, Options, Tracking, DEFAULT_MAX_KEYS};

use crate::args::Args;
use crate::connection::Connection;
use crate::key_args::key_args;
use crate::shared::Shared;
use crate::spec::{Command, CommandSpec};

/// Turns tracking on for `conn` (the engine reports changes from the first
/// tracking client on).
pub fn enable(shared: &Shared, conn: &mut Connection, options: Options) {
    let keyspace = &shared.keyspace;
    let options = shared
        .tracking
        .enable(conn.client.id, options, |on| keyspace.report_changes(on));
    conn.peer
        .set_tracking_redirect(i64::try_from(options.redirect).unwrap_or(i64::MAX));
    conn.tracking = Some(ConnTracking {
        options,
        caching: None,
    });
}

/// Turns tracking off for `conn` (the engine stops reporting after the
/// last tracking client).
pub fn disable(shared: &Shared, conn: &mut Connection) {
    if conn.tracking.take().is_some() {
        conn.peer.set_tracking_redirect(-1);
        let keyspace = &shared.keyspace;
        shared
            .tracking
            .disable(conn.client.id, |on| keyspace.report_changes(on));
    }
}

/// After a tracking connection's command ran (`ok`: without an error):
/// a read-only command's keys are remembered as its mode says, and
/// `CLIENT CACHING`'s answer is used up (by any command but itself).
pub fn after_command(
    shared: &Shared,
    conn: &mut Connection,
    spec: &'static CommandSpec,
    args: &Args<'_>,
    ok: bool,
) {
    let Some(tracking) = conn.tracking.as_mut() else {
        return;
    };
    let spec = spec.effective(args).unwrap_or(spec);
    if spec.command == Command::Client && spec.name == "client|caching" {
        return;
    }
    let caching = tracking.caching.take();
    if !ok || !wanted(tracking, caching) || !spec.flags.contains(&"readonly") {
        return;
    }
    // A script's keys are remembered by the commands it runs.
    if spec.runs_script() {
        return;
    }
    let keys = key_args(spec, args).unwrap_or_default();
    let evicted = shared
        .tracking
        .remember(conn.client.id, keys.iter().map(|&(i, _)| args.get(i)));
    deliver::send(shared, evicted);
}

/// After a script of a tracking connection ran `spec` (`redis.call` or
/// `pcall`, failed or not): when it is read-only, the script command's
/// declared keys `script_keys` are remembered for the caller, as Redis
/// 7.0's `call()` remembers its script caller's keys. `CLIENT CACHING`'s
/// answer stays for the rest of the script (the script command uses it up).
pub fn after_script_command(
    shared: &Shared,
    conn: &Connection,
    spec: &'static CommandSpec,
    script_keys: &[&[u8]],
) {
    let Some(tracking) = conn.tracking.as_ref() else {
        return;
    };
    if !wanted(tracking, tracking.caching) || !spec.flags.contains(&"readonly") {
        return;
    }
    let evicted = shared
        .tracking
        .remember(conn.client.id, script_keys.iter().copied());
    deliver::send(shared, evicted);
}

/// Whether a default-mode read is remembered with `caching` the
/// `CLIENT CACHING` answer in force: `OPTIN` only after `YES`, `OPTOUT`
/// unless after `NO`; never in `BCAST` mode (it remembers nothing).
fn wanted(tracking: &ConnTracking, caching: Option<bool>) -> bool {
    let options = &tracking.options;
    !options.bcast
        && match (options.optin, options.optout) {
            (true, _) => caching == Some(true),
            (_, true) => caching != Some(false),
            _ => true,
        }
}
