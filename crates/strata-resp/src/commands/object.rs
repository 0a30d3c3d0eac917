//! `OBJECT ENCODING | FREQ | IDLETIME | REFCOUNT | HELP`.
//!
//! Encodings are what Strata stores: a collection is packed (`listpack`;
//! a set of few integers `intset`) or large (a hash's or set's chunk
//! records: `hashtable`, see `encodings.rs`; a sorted set's: `skiplist`); strings are named as Redis
//! names them: a string written whole by its content (`int`, `embstr` up
//! to 44 bytes, `raw`), one edited in place (APPEND to an existing key,
//! SETRANGE, SETBIT, BITFIELD's writes, BITOP's result) `raw` until it is
//! written whole again, INCRBYFLOAT's result `embstr` (never `int`) until
//! it is written again (the engine keeps the mark, `StringForm`).
//! `IDLETIME` answers the
//! seconds since the key was last read or written, from the engine's
//! per-item access records (as Redis does under a non-LFU policy; the
//! records start at the restart after one). Strata's eviction is not LFU,
//! so `FREQ` answers Redis's error for a non-LFU policy.

use strata_kv::large::{is_head, is_list_head};
use strata_kv::{Store, StringForm, ValueKind};

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::encodings::PackedLimits;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>.",
    "HELP",
    "    Print this help.",
];

/// A set's encoding: `hashtable` when large, `intset` when packed with
/// only integers (no more than `set-max-intset-entries`), else `listpack`.
fn set_encoding(value: &[u8], limits: PackedLimits) -> &'static str {
    if is_head(value) {
        return "hashtable";
    }
    match strata_kv::collection::decode(value) {
        Some(members) if limits.intset(members.len(), &members) => "intset",
        _ => "listpack",
    }
}

/// Longest string Redis keeps as `embstr`.
const EMBSTR_MAX: usize = 44;

/// `OBJECT <subcommand>`.
pub fn object<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("object", &args)?;
    if sub.name == "object|help" {
        write_help(out, HELP);
        return Ok(());
    }
    let key = args.get(2);
    let Some(kind) = ctx.store.kind(key) else {
        out.null();
        return Ok(());
    };
    match sub.name {
        "object|encoding" => {
            let encoding = encoding(ctx, key, kind);
            out.bulk(encoding.as_bytes());
        }
        "object|refcount" => out.integer(1),
        "object|freq" => return Err(CollectionError::NoLfu.into()),
        _ => match ctx.store.access(key) {
            Some(access) => out.integer(access.idle_secs as i64),
            None => out.null(),
        },
    }
    Ok(())
}

/// The encoding `OBJECT ENCODING` names for the value at `key`, a `kind`
/// (`DEBUG OBJECT` shows it too).
pub(crate) fn encoding<S: Store>(
    ctx: &mut Ctx<'_, S>,
    key: &[u8],
    kind: ValueKind,
) -> &'static str {
    match kind {
        ValueKind::String => ctx
            .store
            .peek(key, |item| string_encoding(item.value, item.form))
            .unwrap_or("raw"),
        // A large hash: Redis's hashtable (chunk records).
        ValueKind::Hash => match ctx.store.peek(key, |item| is_head(item.value)) {
            Some(true) => "hashtable",
            _ => "listpack",
        },
        // A large list: Redis's quicklist (chunk records).
        ValueKind::List => match ctx.store.peek(key, |item| is_list_head(item.value)) {
            Some(true) => "quicklist",
            _ => "listpack",
        },
        ValueKind::Set => {
            let limits = ctx.shared.encodings.set_limits();
            ctx.store
                .peek(key, |item| set_encoding(item.value, limits))
                .unwrap_or("listpack")
        }
        // A large sorted set: Redis's skiplist (buckets and an
        // order tree of chunk records).
        ValueKind::SortedSet => match ctx.store.peek(key, |item| is_head(item.value)) {
            Some(true) => "skiplist",
            _ => "listpack",
        },
        ValueKind::Stream => "stream",
    }
}

fn string_encoding(value: &[u8], form: StringForm) -> &'static str {
    if form == StringForm::Edited {
        "raw"
    } else if form == StringForm::Whole && value.len() <= 20 && parse_i64(value).is_some() {
        "int"
    } else if value.len() <= EMBSTR_MAX {
        "embstr"
    } else {
        "raw"
    }
}
