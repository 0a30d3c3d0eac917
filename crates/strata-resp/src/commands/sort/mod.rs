//! `SORT` and `SORT_RO` (Redis 7.2's `sortCommandGeneric`), step by step:
//! the options are parsed ([`args`]), the key is read ([`load`]), the
//! entries are weighed (the elements or what `BY` finds, [`pattern`],
//! [`score`]) and sorted ([`order`]) unless kept in their native order,
//! and the `LIMIT` window is replied (each element, or what each `GET`
//! pattern finds) or stored as a list ([`destination`]).
//!
//! Atomicity: a command whose patterns read other keys (a sorting `BY`, a
//! `GET` naming a key) holds every shard while it runs, as their keys
//! come from the data; one that only stores holds the shards of its two
//! keys; a plain read reads its one key. Inside `EXEC` or a script every
//! shard is already held.

mod args;
mod destination;
mod load;
mod order;
mod pattern;
mod score;

pub use args::Form;

use std::borrow::Cow;

use strata_kv::Store;

use self::args::Request;
use self::load::Loaded;
use self::order::How;
use crate::acl::User;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::atomic::{atomically, Atomic};
use crate::encodings::ListLimit;
use crate::notify;
use crate::reply::{RespError, SortError};
use crate::writer::ReplyWriter;

/// Whether `user` may read every key (Redis's
/// `ACLUserCheckCmdWithUnrestrictedKeyAccess` with `CMD_KEY_ACCESS`:
/// `allkeys`, `~*` or `%R~*`); the command itself was already allowed.
fn full_key_access(user: &User) -> bool {
    user.all_keys || user.keys.iter().any(|p| p.read && p.pattern == b"*")
}

/// The command's work, run with what it needs held.
struct Sorting<'a> {
    request: Request<'a>,
    /// Run from a script (Redis's `CLIENT_SCRIPT`).
    script: bool,
    limit: ListLimit,
}

/// What the command answers.
enum Outcome {
    /// Without `STORE`: the window's elements or `GET` results.
    Rows(Vec<Option<Vec<u8>>>),
    /// With `STORE`: the length of the list stored.
    /// The length stored and whether the destination existed before.
    Stored(usize, bool),
}

/// Weighs the entries as `loaded` says: what `BY` finds (an entry whose
/// pattern finds nothing keeps weight 0, or sorts first with `ALPHA`), or
/// the element itself. Every entry is weighed, as in Redis, before a
/// weight that is not a number refuses the command.
fn weigh<S: Store>(store: &mut S, loaded: &mut Loaded) -> Result<(), RespError> {
    let mut not_double = false;
    for entry in &mut loaded.entries {
        let value = match &loaded.by {
            Some(by) => pattern::fetch(store, by, &entry.element)?,
            None => Some(Cow::Borrowed(&entry.element[..])),
        };
        let Some(value) = value else {
            continue;
        };
        if loaded.alpha {
            if loaded.by.is_some() {
                entry.by = Some(value.into_owned());
            }
            continue;
        }
        match score::weight(&value) {
            Some(w) => entry.score = w,
            None => not_double = true,
        }
    }
    match not_double {
        true => Err(SortError::NotDouble.into()),
        false => Ok(()),
    }
}

impl Atomic for Sorting<'_> {
    type Output = Result<Outcome, RespError>;

    fn run<S: Store>(self, store: &mut S) -> Self::Output {
        let request = &self.request;
        let mut loaded = load::load(store, request, self.script)?;
        if !loaded.dont_sort {
            weigh(store, &mut loaded)?;
            let how = How {
                desc: request.desc,
                alpha: loaded.alpha,
                by_pattern: loaded.by.is_some(),
                store: request.store.is_some(),
            };
            order::sort(&mut loaded.entries, how);
        }
        // The window lies within the entries (see `order::window`); an
        // empty one has `end < start`.
        let first = usize::try_from(loaded.start).unwrap_or(0);
        let count = usize::try_from(loaded.end - loaded.start + 1).unwrap_or(0);
        let window = loaded.entries.iter_mut().skip(first).take(count);
        // Rows grow with what is found, never reserved by a product of
        // counts (many `GET`s over a long list).
        let mut rows = Vec::with_capacity(count.min(4096));
        for entry in window {
            if request.gets.is_empty() {
                rows.push(Some(std::mem::take(&mut entry.element)));
            }
            for get in &request.gets {
                let found = pattern::fetch(store, get, &entry.element)?;
                rows.push(found.map(Cow::into_owned));
            }
        }
        let Some(destination) = request.store else {
            return Ok(Outcome::Rows(rows));
        };
        // A `GET` that found nothing stores an empty string.
        let elements: Vec<Vec<u8>> = rows.into_iter().map(Option::unwrap_or_default).collect();
        let existed = destination::replace(store, destination, self.limit, &elements)?;
        Ok(Outcome::Stored(elements.len(), existed))
    }
}

/// Runs `SORT` or `SORT_RO`.
pub fn sort<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let request = args::parse(&args, form, full_key_access(&ctx.conn.user))?;
    let (key, destination) = (request.key, request.store);
    let every_shard = request.reads_other_keys();
    let task = Sorting {
        request,
        script: ctx.conn.in_script,
        limit: ctx.shared.encodings.list_limit(),
    };
    let outcome = if every_shard && !ctx.store.is_exclusive() {
        ctx.shared.keyspace.exclusive(|store| task.run(store))
    } else if let Some(destination) = destination {
        atomically(ctx, &[key, destination], task)
    } else {
        task.run(ctx.store)
    }?;
    match outcome {
        Outcome::Rows(rows) => {
            out.array(rows.len());
            for row in &rows {
                match row {
                    Some(value) => out.bulk(value),
                    None => out.null(),
                }
            }
        }
        Outcome::Stored(len, existed) => {
            if let Some(destination) = destination {
                let event = (notify::LIST, "sortstore");
                notify::fire_stored(ctx, existed, len > 0, event, destination);
            }
            if let (Some(destination), true) = (destination, len > 0) {
                ctx.shared.waiters.pushed(destination);
            }
            out.integer(i64::try_from(len).unwrap_or(i64::MAX));
        }
    }
    Ok(())
}
