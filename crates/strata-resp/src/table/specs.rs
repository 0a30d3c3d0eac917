//! The building blocks of the command table's rows: [`spec`] (one row,
//! no subcommands), key specifications ([`at`], [`from`] and the shared
//! ones, Redis 7's `begin_search`/`find_keys` in short), and the command
//! flags and ACL categories rows share. A leaf: constants only.

use crate::command::{Command, CommandSpec, KeySpec, Search};

#[allow(clippy::too_many_arguments)]
#[rustfmt::skip]
pub(super) const fn spec(
    name: &'static str,
    command: Command,
    arity: i32,
    flags: &'static [&'static str],
    keys: &'static [KeySpec],
    categories: &'static [&'static str],
    group: &'static str,
    since: &'static str,
    summary: &'static str,
) -> CommandSpec {
    CommandSpec { name, command, arity, flags, keys, categories, group, since, summary, subcommands: &[], tips: &[] }
}

impl CommandSpec {
    /// This row with Redis 7's command tips (`COMMAND INFO`'s eighth field).
    pub(super) const fn tips(self, tips: &'static [&'static str]) -> CommandSpec {
        CommandSpec { tips, ..self }
    }
}

/// The key argument at `begin` only.
pub(super) const fn at(flags: &'static [&'static str], begin: i32) -> KeySpec {
    KeySpec {
        flags,
        begin,
        last: 0,
        step: 1,
        keynum: false,
        notes: None,
        search: Search::Index,
    }
}

/// Every argument from `begin` on, `step` apart.
pub(super) const fn from(flags: &'static [&'static str], begin: i32, step: i32) -> KeySpec {
    KeySpec {
        flags,
        begin,
        last: -1,
        step,
        keynum: false,
        notes: None,
        search: Search::Index,
    }
}

/// Keys counted by the argument at `begin` (Redis's `keynum`: the keys
/// follow the count, one apart).
pub(super) const fn keynum(flags: &'static [&'static str], begin: i32) -> KeySpec {
    KeySpec {
        flags,
        begin,
        last: 0,
        step: 1,
        keynum: true,
        notes: None,
        search: Search::Index,
    }
}

/// Keys after `keyword` (searched from `startfrom`): `last`, one apart,
/// `limit` as Redis's range. Reported only (see [`Search::Keyword`]).
pub(super) const fn keyword(
    flags: &'static [&'static str],
    keyword: &'static str,
    startfrom: i32,
    last: i32,
    limit: i32,
) -> KeySpec {
    KeySpec {
        flags,
        begin: 0,
        last,
        step: 1,
        keynum: false,
        notes: None,
        search: Search::Keyword {
            keyword,
            startfrom,
            limit,
        },
    }
}

/// Keys no specification can place. Reported only.
pub(super) const fn unknown(flags: &'static [&'static str]) -> KeySpec {
    KeySpec {
        flags,
        begin: 0,
        last: 0,
        step: 0,
        keynum: false,
        notes: None,
        search: Search::Unknown,
    }
}

pub(super) const NO_KEYS: &[KeySpec] = &[];
pub(super) const RO: &[KeySpec] = &[at(&["RO"], 1)];
pub(super) const RO_ACCESS: &[KeySpec] = &[at(&["RO", "access"], 1)];
pub(super) const RW_ACCESS_UPDATE: &[KeySpec] = &[at(&["RW", "access", "update"], 1)];
pub(super) const RW_ACCESS_DELETE: &[KeySpec] = &[at(&["RW", "access", "delete"], 1)];
pub(super) const RW_UPDATE: &[KeySpec] = &[at(&["RW", "update"], 1)];
pub(super) const RW_INSERT: &[KeySpec] = &[at(&["RW", "insert"], 1)];
pub(super) const RW_DELETE: &[KeySpec] = &[at(&["RW", "delete"], 1)];
pub(super) const OW_UPDATE: &[KeySpec] = &[at(&["OW", "update"], 1)];
pub(super) const OW_INSERT: &[KeySpec] = &[at(&["OW", "insert"], 1)];
/// SET reads the old value only with its GET option (see `acl::checks`).
pub(super) const SET_KEY: &[KeySpec] = &[at(&["RW", "access", "update", "variable_flags"], 1)
    .noted("RW and ACCESS due to the optional `GET` argument")];
pub(super) const GETEX_KEY: &[KeySpec] =
    &[at(&["RW", "access", "update"], 1).noted("RW and UPDATE because it changes the TTL")];
pub(super) const XADD_KEY: &[KeySpec] = &[at(&["RW", "update"], 1)
    .noted("UPDATE instead of INSERT because of the optional trimming feature")];
pub(super) const PFCOUNT_KEYS: &[KeySpec] = &[from(&["RW", "access"], 1, 1).noted(
    "RW because it may change the internal representation of the key, and propagate to replicas",
)];
pub(super) const GEORADIUS_KEYS: &[KeySpec] = &[
    at(&["RO", "access"], 1),
    keyword(&["OW", "update"], "STORE", 6, 0, 0),
    keyword(&["OW", "update"], "STOREDIST", 6, 0, 0),
];
pub(super) const GEORADIUSBYMEMBER_KEYS: &[KeySpec] = &[
    at(&["RO", "access"], 1),
    keyword(&["OW", "update"], "STORE", 5, 0, 0),
    keyword(&["OW", "update"], "STOREDIST", 5, 0, 0),
];
pub(super) const MIGRATE_KEYS: &[KeySpec] = &[
    at(&["RW", "access", "delete"], 3),
    keyword(&["RW", "access", "delete", "incomplete"], "KEYS", -2, -1, 0),
];
const SORT_BY_GET: KeySpec = unknown(&["RO", "access"]).noted("For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort");
pub(super) const SORT_KEYS: &[KeySpec] = &[
    at(&["RO", "access"], 1),
    SORT_BY_GET,
    unknown(&["OW", "update"]).noted("For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array"),
];
pub(super) const SORT_RO_KEYS: &[KeySpec] = &[at(&["RO", "access"], 1), SORT_BY_GET];
pub(super) const XREAD_KEYS: &[KeySpec] = &[keyword(&["RO", "access"], "STREAMS", 1, -1, 2)];
pub(super) const XREADGROUP_KEYS: &[KeySpec] = &[keyword(&["RO", "access"], "STREAMS", 4, -1, 2)];
/// `SINTERSTORE`'s destination is RW in Redis (its siblings' are OW).
pub(super) const SINTERSTORE_KEYS: &[KeySpec] =
    &[at(&["RW", "update"], 1), from(&["RO", "access"], 2, 1)];
/// `SPUBLISH`'s shard channel; `SSUBSCRIBE`'s and `SUNSUBSCRIBE`'s.
pub(super) const SHARD_CHANNEL: &[KeySpec] = &[at(&["not_key"], 1)];
pub(super) const SHARD_CHANNELS: &[KeySpec] = &[from(&["not_key"], 1, 1)];
pub(super) const ALL_RO: &[KeySpec] = &[from(&["RO"], 1, 1)];
pub(super) const ALL_RO_ACCESS: &[KeySpec] = &[from(&["RO", "access"], 1, 1)];
pub(super) const ALL_RM_DELETE: &[KeySpec] = &[from(&["RM", "delete"], 1, 1)];
pub(super) const PAIRS_OW_UPDATE: &[KeySpec] = &[from(&["OW", "update"], 1, 2)];
pub(super) const PAIRS_OW_INSERT: &[KeySpec] = &[from(&["OW", "insert"], 1, 2)];
/// BITFIELD writes only with SET or INCRBY.
pub(super) const BITFIELD_KEY: &[KeySpec] = &[at(&["RW", "access", "update", "variable_flags"], 1)
    .noted("This command allows both access and modification of the key")];
/// BITOP: the destination, then the sources.
pub(super) const BITOP_KEYS: &[KeySpec] =
    &[at(&["OW", "update"], 2), from(&["RO", "access"], 3, 1)];
/// PFCOUNT may rewrite a key's cached cardinality: read-write, as Redis's.
/// PFMERGE: the destination (also read), then the sources.
pub(super) const PFMERGE_KEYS: &[KeySpec] = &[
    at(&["RW", "access", "insert"], 1),
    from(&["RO", "access"], 2, 1),
];
/// GEOSEARCHSTORE: the destination, then the source.
pub(super) const GEOSEARCHSTORE_KEYS: &[KeySpec] =
    &[at(&["OW", "update"], 1), at(&["RO", "access"], 2)];
/// LCS: its two keys, read.
pub(super) const TWO_RO_ACCESS: &[KeySpec] = &[KeySpec {
    flags: &["RO", "access"],
    begin: 1,
    last: 1,
    step: 1,
    keynum: false,
    notes: None,
    search: Search::Index,
}];
pub(super) const RENAME: &[KeySpec] =
    &[at(&["RW", "access", "delete"], 1), at(&["OW", "update"], 2)];
pub(super) const RENAMENX: &[KeySpec] =
    &[at(&["RW", "access", "delete"], 1), at(&["OW", "insert"], 2)];

pub(super) const READ_FAST: &[&str] = &["readonly", "fast"];
pub(super) const WRITE: &[&str] = &["write"];
pub(super) const WRITE_FAST: &[&str] = &["write", "fast"];
pub(super) const WRITE_OOM: &[&str] = &["write", "denyoom"];
pub(super) const WRITE_OOM_FAST: &[&str] = &["write", "denyoom", "fast"];
pub(super) const TRANSACTION: &[&str] = &["noscript", "loading", "stale", "fast", "allow_busy"];
pub(super) const CONNECTION_NO_AUTH: &[&str] = &[
    "noscript",
    "loading",
    "stale",
    "fast",
    "no_auth",
    "allow_busy",
];

pub(super) const STRING_READ_FAST: &[&str] = &["@read", "@string", "@fast"];
pub(super) const STRING_WRITE_FAST: &[&str] = &["@write", "@string", "@fast"];
pub(super) const STRING_WRITE_SLOW: &[&str] = &["@write", "@string", "@slow"];
pub(super) const KEYSPACE_READ_FAST: &[&str] = &["@keyspace", "@read", "@fast"];
pub(super) const KEYSPACE_WRITE_FAST: &[&str] = &["@keyspace", "@write", "@fast"];
pub(super) const KEYSPACE_WRITE_SLOW: &[&str] = &["@keyspace", "@write", "@slow"];
pub(super) const KEYSPACE_READ_SLOW: &[&str] = &["@keyspace", "@read", "@slow"];
pub(super) const KEYSPACE_FLUSH: &[&str] = &["@keyspace", "@write", "@slow", "@dangerous"];
/// `RESTORE`: a keyspace write Redis flags dangerous, as the flushes.
pub(super) const KEYSPACE_WRITE_DANGEROUS: &[&str] = KEYSPACE_FLUSH;
pub(super) const FAST_CONNECTION: &[&str] = &["@fast", "@connection"];
pub(super) const FAST_TRANSACTION: &[&str] = &["@fast", "@transaction"];
pub(super) const ADMIN: &[&str] = &["admin", "noscript", "loading", "stale"];
pub(super) const ADMIN_LOADING: &[&str] = &["admin", "loading", "stale"];
pub(super) const ADMIN_CATEGORIES: &[&str] = &["@admin", "@slow", "@dangerous"];
pub(super) const CLIENT_FLAGS: &[&str] = &["noscript", "loading", "stale"];
pub(super) const SLOW_CONNECTION: &[&str] = &["@slow", "@connection"];
pub(super) const SLOW: &[&str] = &["@slow"];
pub(super) const STALE: &[&str] = &["stale"];
pub(super) const CLUSTER_ADMIN: &[&str] = &["admin", "stale", "no_async_loading"];
pub(super) const CLUSTER_CONNECTION: &[&str] = &["loading", "stale", "fast"];
pub(super) const HASH_READ_FAST: &[&str] = &["@read", "@hash", "@fast"];
pub(super) const HASH_READ_SLOW: &[&str] = &["@read", "@hash", "@slow"];
pub(super) const HASH_WRITE_FAST: &[&str] = &["@write", "@hash", "@fast"];
pub(super) const LIST_READ_FAST: &[&str] = &["@read", "@list", "@fast"];
pub(super) const LIST_READ_SLOW: &[&str] = &["@read", "@list", "@slow"];
pub(super) const LIST_WRITE_FAST: &[&str] = &["@write", "@list", "@fast"];
pub(super) const LIST_WRITE_SLOW: &[&str] = &["@write", "@list", "@slow"];
pub(super) const LIST_BLOCKING: &[&str] = &["@write", "@list", "@slow", "@blocking"];
pub(super) const SORT_WRITE: &[&str] = &[
    "@write",
    "@set",
    "@sortedset",
    "@list",
    "@slow",
    "@dangerous",
];
pub(super) const SORT_READ: &[&str] = &[
    "@read",
    "@set",
    "@sortedset",
    "@list",
    "@slow",
    "@dangerous",
];
pub(super) const SET_READ_FAST: &[&str] = &["@read", "@set", "@fast"];
pub(super) const SET_READ_SLOW: &[&str] = &["@read", "@set", "@slow"];
pub(super) const SET_WRITE_FAST: &[&str] = &["@write", "@set", "@fast"];
pub(super) const SET_WRITE_SLOW: &[&str] = &["@write", "@set", "@slow"];
pub(super) const STORE_FROM: &[KeySpec] =
    &[at(&["OW", "update"], 1), from(&["RO", "access"], 2, 1)];
pub(super) const NUMKEYS: &[KeySpec] = &[keynum(&["RO", "access"], 1)];
pub(super) const NUMKEYS_POP: &[KeySpec] = &[keynum(&["RW", "access", "delete"], 1)];
pub(super) const NUMKEYS_BLOCKING_POP: &[KeySpec] = &[keynum(&["RW", "access", "delete"], 2)];
pub(super) const STREAM_READ_FAST: &[&str] = &["@read", "@stream", "@fast"];
pub(super) const STREAM_READ_SLOW: &[&str] = &["@read", "@stream", "@slow"];
pub(super) const STREAM_WRITE_FAST: &[&str] = &["@write", "@stream", "@fast"];
pub(super) const STREAM_WRITE_SLOW: &[&str] = &["@write", "@stream", "@slow"];
pub(super) const STREAM_READ_BLOCKING: &[&str] = &["@read", "@stream", "@slow", "@blocking"];
pub(super) const STREAM_WRITE_BLOCKING: &[&str] = &["@write", "@stream", "@slow", "@blocking"];
pub(super) const ZSET_READ_FAST: &[&str] = &["@read", "@sortedset", "@fast"];
pub(super) const ZSET_READ_SLOW: &[&str] = &["@read", "@sortedset", "@slow"];
pub(super) const ZSET_WRITE_FAST: &[&str] = &["@write", "@sortedset", "@fast"];
pub(super) const ZSET_WRITE_SLOW: &[&str] = &["@write", "@sortedset", "@slow"];
pub(super) const ZSET_BLOCKING: &[&str] = &["@write", "@sortedset", "@fast", "@blocking"];
pub(super) const ZSTORE: &[KeySpec] = &[at(&["OW", "update"], 1), keynum(&["RO", "access"], 2)];
pub(super) const ZRANGESTORE: &[KeySpec] = &[at(&["OW", "update"], 1), at(&["RO", "access"], 2)];
pub(super) const MOVE: &[KeySpec] = &[at(&["RW", "access", "delete"], 1), at(&["RW", "insert"], 2)];
pub(super) const BLOCKING_POP: &[KeySpec] = &[KeySpec {
    flags: &["RW", "access", "delete"],
    begin: 1,
    last: -2,
    step: 1,
    keynum: false,
    notes: None,
    search: Search::Index,
}];
pub(super) const HELP_FLAGS: &[&str] = &["loading", "stale"];
pub(super) const PUBSUB: &[&str] = &["pubsub", "noscript", "loading", "stale"];
pub(super) const PUBLISH: &[&str] = &["pubsub", "loading", "stale", "fast", "may_replicate"];
/// Scripts' flags; `movablekeys` as Redis adds it for a `keynum` spec.
pub(super) const EVAL: &[&str] = &[
    "noscript",
    "skip_monitor",
    "may_replicate",
    "no_mandatory_keys",
    "stale",
    "movablekeys",
];
pub(super) const EVAL_RO: &[&str] = &[
    "noscript",
    "skip_monitor",
    "no_mandatory_keys",
    "stale",
    "readonly",
    "movablekeys",
];
/// A script's `numkeys` keys (checked against ACL key patterns before it
/// runs, as Redis checks them).
pub(super) const SCRIPT_RW_KEYS: &[KeySpec] = &[keynum(&["RW", "access", "update"], 2)
    .noted("We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")];
pub(super) const SCRIPT_RO_KEYS: &[KeySpec] = &[keynum(&["RO", "access"], 2)
    .noted("We cannot tell how the keys will be used so we assume the worst, RO and ACCESS")];
/// `EVALSHA`'s and `EVALSHA_RO`'s: the same, without the note.
pub(super) const EVALSHA_RW_KEYS: &[KeySpec] = &[keynum(&["RW", "access", "update"], 2)];
pub(super) const EVALSHA_RO_KEYS: &[KeySpec] = &[keynum(&["RO", "access"], 2)];
pub(super) const SCRIPTING: &[&str] = &["@slow", "@scripting"];
pub(super) const SCRIPTING_WRITE: &[&str] = &["@write", "@slow", "@scripting"];
pub(super) const PUBSUB_SLOW: &[&str] = &["@pubsub", "@slow"];
