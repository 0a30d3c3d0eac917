//! The command table: one row per command the front end implements, sorted
//! by name for binary search. `COMMAND`, `COMMAND INFO`, `COMMAND DOCS` and
//! `COMMAND COUNT` report exactly these rows, so what clients discover is
//! what is implemented. Flags, arities, key specifications and categories
//! are Redis 7's; ACL rules (`+@read`, `%W~pattern`) are checked against
//! the same rows, so what `COMMAND INFO` says is what ACLs enforce.

use crate::command::{Command, CommandSpec, KeySpec};

#[allow(clippy::too_many_arguments)]
#[rustfmt::skip]
const fn spec(
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
    CommandSpec { name, command, arity, flags, keys, categories, group, since, summary, subcommands: &[] }
}

use crate::commands::hash::Op as H;
use crate::commands::list::Op as L;
use crate::commands::sets::Op as S;
use crate::commands::zset::Op as Z;
use Command as C;

/// The key argument at `begin` only.
const fn at(flags: &'static [&'static str], begin: i32) -> KeySpec {
    KeySpec {
        flags,
        begin,
        last: 0,
        step: 1,
    }
}

/// Every argument from `begin` on, `step` apart.
const fn from(flags: &'static [&'static str], begin: i32, step: i32) -> KeySpec {
    KeySpec {
        flags,
        begin,
        last: -1,
        step,
    }
}

const NO_KEYS: &[KeySpec] = &[];
const RO: &[KeySpec] = &[at(&["RO"], 1)];
const RO_ACCESS: &[KeySpec] = &[at(&["RO", "access"], 1)];
const RW_ACCESS_UPDATE: &[KeySpec] = &[at(&["RW", "access", "update"], 1)];
const RW_ACCESS_DELETE: &[KeySpec] = &[at(&["RW", "access", "delete"], 1)];
const RW_UPDATE: &[KeySpec] = &[at(&["RW", "update"], 1)];
const RW_INSERT: &[KeySpec] = &[at(&["RW", "insert"], 1)];
const RW_DELETE: &[KeySpec] = &[at(&["RW", "delete"], 1)];
const OW_UPDATE: &[KeySpec] = &[at(&["OW", "update"], 1)];
const OW_INSERT: &[KeySpec] = &[at(&["OW", "insert"], 1)];
/// SET reads the old value only with its GET option (see `acl::checks`).
const SET_KEY: &[KeySpec] = &[at(&["RW", "access", "update", "variable_flags"], 1)];
const ALL_RO: &[KeySpec] = &[from(&["RO"], 1, 1)];
const ALL_RO_ACCESS: &[KeySpec] = &[from(&["RO", "access"], 1, 1)];
const ALL_RM_DELETE: &[KeySpec] = &[from(&["RM", "delete"], 1, 1)];
const PAIRS_OW_UPDATE: &[KeySpec] = &[from(&["OW", "update"], 1, 2)];
const PAIRS_OW_INSERT: &[KeySpec] = &[from(&["OW", "insert"], 1, 2)];
const RENAME: &[KeySpec] = &[at(&["RW", "access", "delete"], 1), at(&["OW", "update"], 2)];
const RENAMENX: &[KeySpec] = &[at(&["RW", "access", "delete"], 1), at(&["OW", "insert"], 2)];

const READ_FAST: &[&str] = &["readonly", "fast"];
const WRITE: &[&str] = &["write"];
const WRITE_FAST: &[&str] = &["write", "fast"];
const WRITE_OOM: &[&str] = &["write", "denyoom"];
const WRITE_OOM_FAST: &[&str] = &["write", "denyoom", "fast"];
const TRANSACTION: &[&str] = &["noscript", "loading", "stale", "fast", "allow_busy"];
const CONNECTION_NO_AUTH: &[&str] = &[
    "noscript",
    "loading",
    "stale",
    "fast",
    "no_auth",
    "allow_busy",
];

const STRING_READ_FAST: &[&str] = &["@read", "@string", "@fast"];
const STRING_WRITE_FAST: &[&str] = &["@write", "@string", "@fast"];
const STRING_WRITE_SLOW: &[&str] = &["@write", "@string", "@slow"];
const KEYSPACE_READ_FAST: &[&str] = &["@keyspace", "@read", "@fast"];
const KEYSPACE_WRITE_FAST: &[&str] = &["@keyspace", "@write", "@fast"];
const KEYSPACE_WRITE_SLOW: &[&str] = &["@keyspace", "@write", "@slow"];
const KEYSPACE_READ_SLOW: &[&str] = &["@keyspace", "@read", "@slow"];
const KEYSPACE_FLUSH: &[&str] = &["@keyspace", "@write", "@slow", "@dangerous"];
const FAST_CONNECTION: &[&str] = &["@fast", "@connection"];
const FAST_TRANSACTION: &[&str] = &["@fast", "@transaction"];
const ADMIN: &[&str] = &["admin", "noscript", "loading", "stale"];
const ADMIN_LOADING: &[&str] = &["admin", "loading", "stale"];
const ADMIN_CATEGORIES: &[&str] = &["@admin", "@slow", "@dangerous"];
const CLIENT_FLAGS: &[&str] = &["noscript", "loading", "stale"];
const SLOW_CONNECTION: &[&str] = &["@slow", "@connection"];
const SLOW: &[&str] = &["@slow"];
const HASH_READ_FAST: &[&str] = &["@read", "@hash", "@fast"];
const HASH_READ_SLOW: &[&str] = &["@read", "@hash", "@slow"];
const HASH_WRITE_FAST: &[&str] = &["@write", "@hash", "@fast"];
const LIST_READ_FAST: &[&str] = &["@read", "@list", "@fast"];
const LIST_READ_SLOW: &[&str] = &["@read", "@list", "@slow"];
const LIST_WRITE_FAST: &[&str] = &["@write", "@list", "@fast"];
const LIST_WRITE_SLOW: &[&str] = &["@write", "@list", "@slow"];
const LIST_BLOCKING: &[&str] = &["@write", "@list", "@slow", "@blocking"];
const SET_READ_FAST: &[&str] = &["@read", "@set", "@fast"];
const SET_READ_SLOW: &[&str] = &["@read", "@set", "@slow"];
const SET_WRITE_FAST: &[&str] = &["@write", "@set", "@fast"];
const SET_WRITE_SLOW: &[&str] = &["@write", "@set", "@slow"];
const STORE_FROM: &[KeySpec] = &[at(&["OW", "update"], 1), from(&["RO", "access"], 2, 1)];
const NUMKEYS: &[KeySpec] = &[KeySpec {
    flags: &["RO", "access"],
    begin: 2,
    last: -1,
    step: 1,
}];
const ZSET_READ_FAST: &[&str] = &["@read", "@sortedset", "@fast"];
const ZSET_READ_SLOW: &[&str] = &["@read", "@sortedset", "@slow"];
const ZSET_WRITE_FAST: &[&str] = &["@write", "@sortedset", "@fast"];
const ZSET_WRITE_SLOW: &[&str] = &["@write", "@sortedset", "@slow"];
const ZSET_BLOCKING: &[&str] = &["@write", "@sortedset", "@fast", "@blocking"];
const ZSTORE: &[KeySpec] = &[
    at(&["OW", "update"], 1),
    KeySpec {
        flags: &["RO", "access"],
        begin: 3,
        last: -1,
        step: 1,
    },
];
const ZRANGESTORE: &[KeySpec] = &[at(&["OW", "update"], 1), at(&["RO", "access"], 2)];
const MOVE: &[KeySpec] = &[at(&["RW", "access", "delete"], 1), at(&["RW", "insert"], 2)];
const BLOCKING_POP: &[KeySpec] = &[KeySpec {
    flags: &["RW", "access", "delete"],
    begin: 1,
    last: -2,
    step: 1,
}];
const HELP_FLAGS: &[&str] = &["loading", "stale"];
const PUBSUB: &[&str] = &["pubsub", "noscript", "loading", "stale"];
const PUBLISH: &[&str] = &["pubsub", "loading", "stale", "fast", "may_replicate"];
const EVAL: &[&str] = &[
    "noscript",
    "skip_monitor",
    "may_replicate",
    "no_mandatory_keys",
    "stale",
];
const EVAL_RO: &[&str] = &[
    "noscript",
    "skip_monitor",
    "no_mandatory_keys",
    "stale",
    "readonly",
];
const SCRIPTING: &[&str] = &["@slow", "@scripting"];
const SCRIPTING_WRITE: &[&str] = &["@write", "@slow", "@scripting"];
const PUBSUB_SLOW: &[&str] = &["@pubsub", "@slow"];

#[rustfmt::skip]
static ACL_SUBCOMMANDS: &[CommandSpec] = &[
    spec("acl|cat", C::Acl, -2, CLIENT_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "List the ACL categories or the commands inside a category"),
    spec("acl|deluser", C::Acl, -3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Remove the specified ACL users and the associated rules"),
    spec("acl|dryrun", C::Acl, -4, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "7.0.0", "Returns whether the user can execute the given command without executing the command."),
    spec("acl|genpass", C::Acl, -2, CLIENT_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "Generate a pseudorandom secure password to use for ACL users"),
    spec("acl|getuser", C::Acl, 3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Get the rules for a specific ACL user"),
    spec("acl|help", C::Acl, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "Show helpful text about the different subcommands"),
    spec("acl|list", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "List the current ACL rules in ACL config file format"),
    spec("acl|load", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Reload the ACLs from the configured ACL file"),
    spec("acl|log", C::Acl, -2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "List latest events denied because of ACLs in place"),
    spec("acl|save", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Save the current ACL rules in the configured ACL file"),
    spec("acl|setuser", C::Acl, -3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Modify or create the rules for a specific ACL user"),
    spec("acl|users", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "List the username of all the configured ACL rules"),
    spec("acl|whoami", C::Acl, 2, CLIENT_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "Return the name of the user associated to the current connection"),
];

#[rustfmt::skip]
static CLIENT_SUBCOMMANDS: &[CommandSpec] = &[
    spec("client|getname", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "2.6.9", "Get the current connection name"),
    spec("client|help", C::Client, 2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "5.0.0", "Show helpful text about the different subcommands"),
    spec("client|id", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "5.0.0", "Returns the client ID for the current connection"),
    spec("client|info", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "6.2.0", "Returns information about the current client connection."),
    spec("client|list", C::Client, -2, ADMIN, NO_KEYS, &["@admin", "@slow", "@dangerous", "@connection"], "connection", "2.4.0", "Get the list of client connections"),
    spec("client|setinfo", C::Client, 4, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "7.2.0", "Set client or connection specific info"),
    spec("client|setname", C::Client, 3, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "2.6.9", "Set the current connection name"),
];

#[rustfmt::skip]
static COMMAND_SUBCOMMANDS: &[CommandSpec] = &[
    spec("command|count", C::Command, 2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "2.8.13", "Get total number of Redis commands"),
    spec("command|docs", C::Command, -2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "7.0.0", "Get array of specific Redis command documentation"),
    spec("command|getkeys", C::Command, -4, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "2.8.13", "Extract keys given a full Redis command"),
    spec("command|getkeysandflags", C::Command, -4, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "7.0.0", "Extract keys and access flags given a full Redis command"),
    spec("command|help", C::Command, 2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "5.0.0", "Show helpful text about the different subcommands"),
    spec("command|info", C::Command, -2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "2.8.13", "Get array of specific Redis command details, or all when no argument is given."),
    spec("command|list", C::Command, -2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "7.0.0", "Get an array of Redis command names"),
];

#[rustfmt::skip]
static CONFIG_SUBCOMMANDS: &[CommandSpec] = &[
    spec("config|get", C::Config, -3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.0.0", "Get the values of configuration parameters"),
    spec("config|help", C::Config, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "5.0.0", "Show helpful text about the different subcommands"),
    spec("config|resetstat", C::Config, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.0.0", "Reset the stats returned by INFO"),
    spec("config|rewrite", C::Config, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.8.0", "Rewrite the configuration file with the in memory configuration"),
    spec("config|set", C::Config, -4, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.0.0", "Set configuration parameters to the given values"),
];

#[rustfmt::skip]
static SLOWLOG_SUBCOMMANDS: &[CommandSpec] = &[
    spec("slowlog|get", C::SlowLog, -2, ADMIN_LOADING, NO_KEYS, ADMIN_CATEGORIES, "server", "2.2.12", "Get the slow log's entries"),
    spec("slowlog|help", C::SlowLog, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "6.2.0", "Show helpful text about the different subcommands"),
    spec("slowlog|len", C::SlowLog, 2, ADMIN_LOADING, NO_KEYS, ADMIN_CATEGORIES, "server", "2.2.12", "Get the slow log's length"),
    spec("slowlog|reset", C::SlowLog, 2, ADMIN_LOADING, NO_KEYS, ADMIN_CATEGORIES, "server", "2.2.12", "Clear all entries from the slow log"),
];

#[rustfmt::skip]
static PUBSUB_SUBCOMMANDS: &[CommandSpec] = &[
    spec("pubsub|channels", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "2.8.0", "List active channels"),
    spec("pubsub|help", C::PubSub, 2, HELP_FLAGS, NO_KEYS, SLOW, "pubsub", "6.2.0", "Show helpful text about the different subcommands"),
    spec("pubsub|numpat", C::PubSub, 2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "2.8.0", "Get the count of unique patterns pattern subscriptions"),
    spec("pubsub|numsub", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "2.8.0", "Get the count of subscribers for channels"),
    spec("pubsub|shardchannels", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "7.0.0", "List active shard channels"),
    spec("pubsub|shardnumsub", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "7.0.0", "Get the count of subscribers for shard channels"),
];

#[rustfmt::skip]
static SCRIPT_SUBCOMMANDS: &[CommandSpec] = &[
    spec("script|exists", C::Script, -3, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Check existence of scripts in the script cache."),
    spec("script|flush", C::Script, -2, &["noscript", "may_replicate"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Remove all the scripts from the script cache."),
    spec("script|help", C::Script, 2, HELP_FLAGS, NO_KEYS, SCRIPTING, "scripting", "5.0.0", "Show helpful text about the different subcommands"),
    spec("script|kill", C::Script, 2, &["noscript", "allow_busy"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Kill the script currently in execution."),
    spec("script|load", C::Script, 3, &["noscript", "stale"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Load the specified Lua script into the script cache."),
];

#[rustfmt::skip]
static FUNCTION_SUBCOMMANDS: &[CommandSpec] = &[
    spec("function|delete", C::Function, 3, &["noscript", "write"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Delete a function by name"),
    spec("function|dump", C::Function, 2, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Dump all functions into a serialized binary payload"),
    spec("function|flush", C::Function, -2, &["noscript", "write"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Deleting all functions"),
    spec("function|help", C::Function, 2, HELP_FLAGS, NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Show helpful text about the different subcommands"),
    spec("function|kill", C::Function, 2, &["noscript", "allow_busy"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Kill the function currently in execution."),
    spec("function|list", C::Function, -2, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "List information about all the functions"),
    spec("function|load", C::Function, -3, &["noscript", "write", "denyoom"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Create a function with the given arguments (name, code, description)"),
    spec("function|restore", C::Function, -3, &["noscript", "write", "denyoom"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Restore all the functions on the given payload"),
    spec("function|stats", C::Function, 2, &["noscript", "allow_busy"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Return information about the function currently running (name, description, duration)"),
];

#[rustfmt::skip]
static OBJECT_SUBCOMMANDS: &[CommandSpec] = &[
    spec("object|encoding", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "2.2.3", "Inspect the internal encoding of a Redis object"),
    spec("object|freq", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "4.0.0", "Get the logarithmic access frequency counter of a Redis object"),
    spec("object|help", C::Object, 2, HELP_FLAGS, NO_KEYS, KEYSPACE_READ_SLOW, "generic", "6.2.0", "Show helpful text about the different subcommands"),
    spec("object|idletime", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "2.2.3", "Get the time since a Redis object was last accessed"),
    spec("object|refcount", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "2.2.3", "Get the number of references to the value of the key"),
];

/// Every command, sorted by name.
#[rustfmt::skip]
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec { subcommands: ACL_SUBCOMMANDS, ..spec("acl", C::Acl, -2, &[], NO_KEYS, SLOW, "server", "6.0.0", "A container for Access List Control commands") },
    spec("append", C::Append, 3, WRITE_OOM_FAST, RW_INSERT, STRING_WRITE_FAST, "string", "2.0.0", "Append a value to a key"),
    spec("auth", C::Auth, -2, CONNECTION_NO_AUTH, NO_KEYS, FAST_CONNECTION, "connection", "1.0.0", "Authenticate to the server"),
    spec("bgsave", C::BgSave, -1, &["admin", "noscript", "no_async_loading"], NO_KEYS, ADMIN_CATEGORIES, "server", "1.0.0", "Asynchronously save the dataset to disk"),
    spec("blmove", C::List(L::BLMove), 6, &["write", "denyoom", "blocking"], MOVE, LIST_BLOCKING, "list", "6.2.0", "Pop an element from a list, push it to another list and return it; or block until one is available"),
    spec("blpop", C::List(L::BLPop), -3, &["write", "blocking"], BLOCKING_POP, LIST_BLOCKING, "list", "2.0.0", "Remove and get the first element in a list, or block until one is available"),
    spec("brpop", C::List(L::BRPop), -3, &["write", "blocking"], BLOCKING_POP, LIST_BLOCKING, "list", "2.0.0", "Remove and get the last element in a list, or block until one is available"),
    spec("brpoplpush", C::List(L::BRPopLPush), 4, &["write", "denyoom", "blocking"], MOVE, LIST_BLOCKING, "list", "2.2.0", "Pop an element from a list, push it to another list and return it; or block until one is available"),
    spec("bzpopmax", C::SortedSet(Z::BZPopMax), -3, &["write", "blocking", "fast"], BLOCKING_POP, ZSET_BLOCKING, "sorted-set", "5.0.0", "Remove and return the member with the highest score from one or more sorted sets, or block until one is available"),
    spec("bzpopmin", C::SortedSet(Z::BZPopMin), -3, &["write", "blocking", "fast"], BLOCKING_POP, ZSET_BLOCKING, "sorted-set", "5.0.0", "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available"),
    CommandSpec { subcommands: CLIENT_SUBCOMMANDS, ..spec("client", C::Client, -2, &[], NO_KEYS, &["@slow"], "connection", "2.4.0", "A container for client connection commands") },
    CommandSpec { subcommands: COMMAND_SUBCOMMANDS, ..spec("command", C::Command, -1, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "2.8.13", "Get array of Redis command details") },
    CommandSpec { subcommands: CONFIG_SUBCOMMANDS, ..spec("config", C::Config, -2, &[], NO_KEYS, &["@slow"], "server", "2.0.0", "A container for server configuration commands") },
    spec("copy", C::Copy, -3, WRITE_OOM, &[at(&["RO", "access"], 1), at(&["OW", "update"], 2)], KEYSPACE_WRITE_SLOW, "generic", "6.2.0", "Copy a key"),
    spec("dbsize", C::DbSize, 1, READ_FAST, NO_KEYS, KEYSPACE_READ_FAST, "server", "1.0.0", "Return the number of keys in the selected database"),
    spec("decr", C::Decr, 2, WRITE_OOM_FAST, RW_ACCESS_UPDATE, STRING_WRITE_FAST, "string", "1.0.0", "Decrement the integer value of a key by one"),
    spec("decrby", C::DecrBy, 3, WRITE_OOM_FAST, RW_ACCESS_UPDATE, STRING_WRITE_FAST, "string", "1.0.0", "Decrement the integer value of a key by the given number"),
    spec("del", C::Del, -2, WRITE, ALL_RM_DELETE, KEYSPACE_WRITE_SLOW, "generic", "1.0.0", "Delete a key"),
    spec("discard", C::Discard, 1, TRANSACTION, NO_KEYS, FAST_TRANSACTION, "transactions", "2.0.0", "Discard all commands issued after MULTI"),
    spec("echo", C::Echo, 2, &["loading", "stale", "fast"], NO_KEYS, FAST_CONNECTION, "connection", "1.0.0", "Echo the given string"),
    spec("eval", C::Eval, -3, EVAL, NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Execute a Lua script server side"),
    spec("eval_ro", C::EvalRo, -3, EVAL_RO, NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Execute a read-only Lua script server side"),
    spec("evalsha", C::EvalSha, -3, EVAL, NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Execute a Lua script server side"),
    spec("evalsha_ro", C::EvalShaRo, -3, EVAL_RO, NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Execute a read-only Lua script server side"),
    spec("exec", C::Exec, 1, &["noscript", "loading", "stale", "skip_slowlog"], NO_KEYS, &["@slow", "@transaction"], "transactions", "1.2.0", "Execute all commands issued after MULTI"),
    spec("exists", C::Exists, -2, READ_FAST, ALL_RO, KEYSPACE_READ_FAST, "generic", "1.0.0", "Determine if a key exists"),
    spec("expire", C::Expire, -3, WRITE_FAST, RW_UPDATE, KEYSPACE_WRITE_FAST, "generic", "1.0.0", "Set a key's time to live in seconds"),
    spec("expireat", C::ExpireAt, -3, WRITE_FAST, RW_UPDATE, KEYSPACE_WRITE_FAST, "generic", "1.2.0", "Set the expiration for a key as a UNIX timestamp"),
    spec("expiretime", C::ExpireTime, 2, READ_FAST, RO_ACCESS, KEYSPACE_READ_FAST, "generic", "7.0.0", "Get the expiration Unix timestamp for a key"),
    spec("fcall", C::FCall, -3, EVAL, NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Invoke a function"),
    spec("fcall_ro", C::FCallRo, -3, EVAL_RO, NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Invoke a read-only function"),
    spec("flushall", C::Flush, -1, WRITE, NO_KEYS, KEYSPACE_FLUSH, "server", "1.0.0", "Remove all keys from all databases"),
    spec("flushdb", C::Flush, -1, WRITE, NO_KEYS, KEYSPACE_FLUSH, "server", "1.0.0", "Remove all keys from the current database"),
    CommandSpec { subcommands: FUNCTION_SUBCOMMANDS, ..spec("function", C::Function, -2, &[], NO_KEYS, SLOW, "scripting", "7.0.0", "A container for function commands") },
    spec("get", C::Get, 2, READ_FAST, RO_ACCESS, STRING_READ_FAST, "string", "1.0.0", "Get the value of a key"),
    spec("getdel", C::GetDel, 2, WRITE_FAST, RW_ACCESS_DELETE, STRING_WRITE_FAST, "string", "6.2.0", "Get the value of a key and delete the key"),
    spec("getex", C::GetEx, -2, WRITE_FAST, RW_ACCESS_UPDATE, STRING_WRITE_FAST, "string", "6.2.0", "Get the value of a key and optionally set its expiration"),
    spec("getrange", C::GetRange, 4, &["readonly"], RO_ACCESS, &["@read", "@string", "@slow"], "string", "2.4.0", "Get a substring of the string stored at a key"),
    spec("getset", C::GetSet, 3, WRITE_OOM_FAST, RW_ACCESS_UPDATE, STRING_WRITE_FAST, "string", "1.0.0", "Set the string value of a key and return its old value"),
    spec("hdel", C::Hash(H::HDel), -3, WRITE_FAST, RW_DELETE, HASH_WRITE_FAST, "hash", "2.0.0", "Delete one or more hash fields"),
    spec("hello", C::Hello, -1, CONNECTION_NO_AUTH, NO_KEYS, FAST_CONNECTION, "connection", "6.0.0", "Handshake with Redis"),
    spec("hexists", C::Hash(H::HExists), 3, READ_FAST, RO, HASH_READ_FAST, "hash", "2.0.0", "Determine if a hash field exists"),
    spec("hget", C::Hash(H::HGet), 3, READ_FAST, RO_ACCESS, HASH_READ_FAST, "hash", "2.0.0", "Get the value of a hash field"),
    spec("hgetall", C::Hash(H::HGetAll), 2, &["readonly"], RO_ACCESS, HASH_READ_SLOW, "hash", "2.0.0", "Get all the fields and values in a hash"),
    spec("hincrby", C::Hash(H::HIncrBy), 4, WRITE_OOM_FAST, RW_ACCESS_UPDATE, HASH_WRITE_FAST, "hash", "2.0.0", "Increment the integer value of a hash field by the given number"),
    spec("hincrbyfloat", C::Hash(H::HIncrByFloat), 4, WRITE_OOM_FAST, RW_ACCESS_UPDATE, HASH_WRITE_FAST, "hash", "2.6.0", "Increment the float value of a hash field by the given amount"),
    spec("hkeys", C::Hash(H::HKeys), 2, &["readonly"], RO, HASH_READ_SLOW, "hash", "2.0.0", "Get all the fields in a hash"),
    spec("hlen", C::Hash(H::HLen), 2, READ_FAST, RO, HASH_READ_FAST, "hash", "2.0.0", "Get the number of fields in a hash"),
    spec("hmget", C::Hash(H::HMGet), -3, READ_FAST, RO_ACCESS, HASH_READ_FAST, "hash", "2.0.0", "Get the values of all the given hash fields"),
    spec("hmset", C::Hash(H::HMSet), -4, WRITE_OOM_FAST, RW_UPDATE, HASH_WRITE_FAST, "hash", "2.0.0", "Set multiple hash fields to multiple values"),
    spec("hrandfield", C::Hash(H::HRandField), -2, &["readonly"], RO_ACCESS, HASH_READ_SLOW, "hash", "6.2.0", "Get one or multiple random fields from a hash"),
    spec("hscan", C::Hash(H::HScan), -3, &["readonly"], RO_ACCESS, HASH_READ_SLOW, "hash", "2.8.0", "Incrementally iterate hash fields and associated values"),
    spec("hset", C::Hash(H::HSet), -4, WRITE_OOM_FAST, RW_UPDATE, HASH_WRITE_FAST, "hash", "2.0.0", "Set the string value of a hash field"),
    spec("hsetnx", C::Hash(H::HSetNx), 4, WRITE_OOM_FAST, RW_INSERT, HASH_WRITE_FAST, "hash", "2.0.0", "Set the value of a hash field, only if the field does not exist"),
    spec("hstrlen", C::Hash(H::HStrLen), 3, READ_FAST, RO, HASH_READ_FAST, "hash", "3.2.0", "Get the length of the value of a hash field"),
    spec("hvals", C::Hash(H::HVals), 2, &["readonly"], RO_ACCESS, HASH_READ_SLOW, "hash", "2.0.0", "Get all the values in a hash"),
    spec("incr", C::Incr, 2, WRITE_OOM_FAST, RW_ACCESS_UPDATE, STRING_WRITE_FAST, "string", "1.0.0", "Increment the integer value of a key by one"),
    spec("incrby", C::IncrBy, 3, WRITE_OOM_FAST, RW_ACCESS_UPDATE, STRING_WRITE_FAST, "string", "1.0.0", "Increment the integer value of a key by the given amount"),
    spec("incrbyfloat", C::IncrByFloat, 3, WRITE_OOM_FAST, RW_ACCESS_UPDATE, STRING_WRITE_FAST, "string", "2.6.0", "Increment the float value of a key by the given amount"),
    spec("info", C::Info, -1, HELP_FLAGS, NO_KEYS, &["@slow", "@dangerous"], "server", "1.0.0", "Get information and statistics about the server"),
    spec("keys", C::Keys, 2, &["readonly"], NO_KEYS, &["@keyspace", "@read", "@slow", "@dangerous"], "generic", "1.0.0", "Find all keys matching the given pattern"),
    spec("lastsave", C::LastSave, 1, &["loading", "stale", "fast"], NO_KEYS, &["@admin", "@fast", "@dangerous"], "server", "1.0.0", "Get the UNIX time stamp of the last successful save to disk"),
    spec("lindex", C::List(L::LIndex), 3, &["readonly"], RO_ACCESS, LIST_READ_SLOW, "list", "1.0.0", "Get an element from a list by its index"),
    spec("linsert", C::List(L::LInsert), 5, WRITE_OOM, RW_INSERT, LIST_WRITE_SLOW, "list", "2.2.0", "Insert an element before or after another element in a list"),
    spec("llen", C::List(L::LLen), 2, READ_FAST, RO, LIST_READ_FAST, "list", "1.0.0", "Get the length of a list"),
    spec("lmove", C::List(L::LMove), 5, WRITE_OOM, MOVE, LIST_WRITE_SLOW, "list", "6.2.0", "Pop an element from a list, push it to another list and return it"),
    spec("lpop", C::List(L::LPop), -2, WRITE_FAST, RW_ACCESS_DELETE, LIST_WRITE_FAST, "list", "1.0.0", "Remove and get the first elements in a list"),
    spec("lpos", C::List(L::LPos), -3, &["readonly"], RO_ACCESS, LIST_READ_SLOW, "list", "6.0.6", "Return the index of matching elements on a list"),
    spec("lpush", C::List(L::LPush), -3, WRITE_OOM_FAST, RW_INSERT, LIST_WRITE_FAST, "list", "1.0.0", "Prepend one or multiple elements to a list"),
    spec("lpushx", C::List(L::LPushX), -3, WRITE_OOM_FAST, RW_INSERT, LIST_WRITE_FAST, "list", "2.2.0", "Prepend an element to a list, only if the list exists"),
    spec("lrange", C::List(L::LRange), 4, &["readonly"], RO_ACCESS, LIST_READ_SLOW, "list", "1.0.0", "Get a range of elements from a list"),
    spec("lrem", C::List(L::LRem), 4, WRITE, RW_DELETE, LIST_WRITE_SLOW, "list", "1.0.0", "Remove elements from a list"),
    spec("lset", C::List(L::LSet), 4, WRITE_OOM, RW_UPDATE, LIST_WRITE_SLOW, "list", "1.0.0", "Set the value of an element in a list by its index"),
    spec("ltrim", C::List(L::LTrim), 4, WRITE, RW_DELETE, LIST_WRITE_SLOW, "list", "1.0.0", "Trim a list to the specified range"),
    spec("mget", C::MGet, -2, READ_FAST, ALL_RO_ACCESS, STRING_READ_FAST, "string", "1.0.0", "Get the values of all the given keys"),
    spec("mset", C::MSet, -3, WRITE_OOM, PAIRS_OW_UPDATE, STRING_WRITE_SLOW, "string", "1.0.1", "Set multiple keys to multiple values"),
    spec("msetnx", C::MSetNx, -3, WRITE_OOM, PAIRS_OW_INSERT, STRING_WRITE_SLOW, "string", "1.0.1", "Set multiple keys to multiple values, only if none of the keys exist"),
    spec("multi", C::Multi, 1, TRANSACTION, NO_KEYS, FAST_TRANSACTION, "transactions", "1.2.0", "Mark the start of a transaction block"),
    CommandSpec { subcommands: OBJECT_SUBCOMMANDS, ..spec("object", C::Object, -2, &[], NO_KEYS, SLOW, "generic", "2.2.3", "A container for object introspection commands") },
    spec("persist", C::Persist, 2, WRITE_FAST, RW_UPDATE, KEYSPACE_WRITE_FAST, "generic", "2.2.0", "Remove the expiration from a key"),
    spec("pexpire", C::PExpire, -3, WRITE_FAST, RW_UPDATE, KEYSPACE_WRITE_FAST, "generic", "2.6.0", "Set a key's time to live in milliseconds"),
    spec("pexpireat", C::PExpireAt, -3, WRITE_FAST, RW_UPDATE, KEYSPACE_WRITE_FAST, "generic", "2.6.0", "Set the expiration for a key as a UNIX timestamp specified in milliseconds"),
    spec("pexpiretime", C::PExpireTime, 2, READ_FAST, RO_ACCESS, KEYSPACE_READ_FAST, "generic", "7.0.0", "Get the expiration Unix timestamp for a key in milliseconds"),
    spec("ping", C::Ping, -1, &["fast"], NO_KEYS, FAST_CONNECTION, "connection", "1.0.0", "Ping the server"),
    spec("psetex", C::PSetEx, 4, WRITE_OOM, OW_UPDATE, STRING_WRITE_SLOW, "string", "2.6.0", "Set the value and expiration in milliseconds of a key"),
    spec("psubscribe", C::PSubscribe, -2, PUBSUB, NO_KEYS, PUBSUB_SLOW, "pubsub", "2.0.0", "Listen for messages published to channels matching the given patterns"),
    spec("pttl", C::PTtl, 2, READ_FAST, RO_ACCESS, KEYSPACE_READ_FAST, "generic", "2.6.0", "Get the time to live for a key in milliseconds"),
    spec("publish", C::Publish, 3, PUBLISH, NO_KEYS, &["@pubsub", "@fast"], "pubsub", "2.0.0", "Post a message to a channel"),
    CommandSpec { subcommands: PUBSUB_SUBCOMMANDS, ..spec("pubsub", C::PubSub, -2, &[], NO_KEYS, SLOW, "pubsub", "2.8.0", "A container for Pub/Sub commands") },
    spec("punsubscribe", C::PUnsubscribe, -1, PUBSUB, NO_KEYS, PUBSUB_SLOW, "pubsub", "2.0.0", "Stop listening for messages posted to channels matching the given patterns"),
    spec("quit", C::Quit, -1, CONNECTION_NO_AUTH, NO_KEYS, FAST_CONNECTION, "connection", "1.0.0", "Close the connection"),
    spec("randomkey", C::RandomKey, 1, &["readonly"], NO_KEYS, &["@keyspace", "@read", "@slow"], "generic", "1.0.0", "Return a random key from the keyspace"),
    spec("rename", C::Rename, 3, WRITE, RENAME, KEYSPACE_WRITE_SLOW, "generic", "1.0.0", "Rename a key"),
    spec("renamenx", C::RenameNx, 3, WRITE_FAST, RENAMENX, KEYSPACE_WRITE_FAST, "generic", "1.0.0", "Rename a key, only if the new key does not exist"),
    spec("reset", C::Reset, 1, CONNECTION_NO_AUTH, NO_KEYS, FAST_CONNECTION, "connection", "6.2.0", "Reset the connection"),
    spec("rpop", C::List(L::RPop), -2, WRITE_FAST, RW_ACCESS_DELETE, LIST_WRITE_FAST, "list", "1.0.0", "Remove and get the last elements in a list"),
    spec("rpoplpush", C::List(L::RPopLPush), 3, WRITE_OOM, MOVE, LIST_WRITE_SLOW, "list", "1.2.0", "Remove the last element in a list, prepend it to another list and return it"),
    spec("rpush", C::List(L::RPush), -3, WRITE_OOM_FAST, RW_INSERT, LIST_WRITE_FAST, "list", "1.0.0", "Append one or multiple elements to a list"),
    spec("rpushx", C::List(L::RPushX), -3, WRITE_OOM_FAST, RW_INSERT, LIST_WRITE_FAST, "list", "2.2.0", "Append an element to a list, only if the list exists"),
    spec("sadd", C::Sets(S::SAdd), -3, WRITE_OOM_FAST, RW_INSERT, SET_WRITE_FAST, "set", "1.0.0", "Add one or more members to a set"),
    spec("save", C::Save, 1, &["admin", "noscript", "no_async_loading", "no_multi"], NO_KEYS, ADMIN_CATEGORIES, "server", "1.0.0", "Synchronously save the dataset to disk"),
    spec("scan", C::Scan, -2, &["readonly"], NO_KEYS, &["@keyspace", "@read", "@slow"], "generic", "2.8.0", "Incrementally iterate the keys space"),
    spec("scard", C::Sets(S::SCard), 2, READ_FAST, RO, SET_READ_FAST, "set", "1.0.0", "Get the number of members in a set"),
    CommandSpec { subcommands: SCRIPT_SUBCOMMANDS, ..spec("script", C::Script, -2, &[], NO_KEYS, SLOW, "scripting", "2.6.0", "A container for Lua scripts management commands") },
    spec("sdiff", C::Sets(S::SDiff), -2, &["readonly"], ALL_RO_ACCESS, SET_READ_SLOW, "set", "1.0.0", "Subtract multiple sets"),
    spec("sdiffstore", C::Sets(S::SDiffStore), -3, WRITE_OOM, STORE_FROM, SET_WRITE_SLOW, "set", "1.0.0", "Subtract multiple sets and store the resulting set in a key"),
    spec("select", C::Select, 2, &["loading", "stale", "fast"], NO_KEYS, FAST_CONNECTION, "connection", "1.0.0", "Change the selected database for the current connection"),
    spec("set", C::Set, -3, WRITE_OOM, SET_KEY, STRING_WRITE_SLOW, "string", "1.0.0", "Set the string value of a key"),
    spec("setex", C::SetEx, 4, WRITE_OOM, OW_UPDATE, STRING_WRITE_SLOW, "string", "2.0.0", "Set the value and expiration of a key"),
    spec("setnx", C::SetNx, 3, WRITE_OOM_FAST, OW_INSERT, STRING_WRITE_FAST, "string", "1.0.0", "Set the value of a key, only if the key does not exist"),
    spec("setrange", C::SetRange, 4, WRITE_OOM, RW_UPDATE, STRING_WRITE_SLOW, "string", "2.2.0", "Overwrite part of a string at key starting at the specified offset"),
    spec("sinter", C::Sets(S::SInter), -2, &["readonly"], ALL_RO_ACCESS, SET_READ_SLOW, "set", "1.0.0", "Intersect multiple sets"),
    spec("sintercard", C::Sets(S::SInterCard), -3, &["readonly", "movablekeys"], NUMKEYS, SET_READ_SLOW, "set", "7.0.0", "Intersect multiple sets and return the cardinality of the result"),
    spec("sinterstore", C::Sets(S::SInterStore), -3, WRITE_OOM, STORE_FROM, SET_WRITE_SLOW, "set", "1.0.0", "Intersect multiple sets and store the resulting set in a key"),
    spec("sismember", C::Sets(S::SIsMember), 3, READ_FAST, RO, SET_READ_FAST, "set", "1.0.0", "Determine if a given value is a member of a set"),
    CommandSpec { subcommands: SLOWLOG_SUBCOMMANDS, ..spec("slowlog", C::SlowLog, -2, &[], NO_KEYS, SLOW, "server", "2.2.12", "A container for slow log commands") },
    spec("smembers", C::Sets(S::SMembers), 2, &["readonly"], RO_ACCESS, SET_READ_SLOW, "set", "1.0.0", "Get all the members in a set"),
    spec("smismember", C::Sets(S::SMIsMember), -3, READ_FAST, RO, SET_READ_FAST, "set", "6.2.0", "Returns the membership associated with the given elements for a set"),
    spec("smove", C::Sets(S::SMove), 4, WRITE_FAST, MOVE, SET_WRITE_FAST, "set", "1.0.0", "Move a member from one set to another"),
    spec("spop", C::Sets(S::SPop), -2, WRITE_FAST, RW_ACCESS_DELETE, SET_WRITE_FAST, "set", "1.0.0", "Remove and return one or multiple random members from a set"),
    spec("spublish", C::SPublish, 3, PUBLISH, NO_KEYS, &["@pubsub", "@fast"], "pubsub", "7.0.0", "Post a message to a shard channel"),
    spec("srandmember", C::Sets(S::SRandMember), -2, &["readonly"], RO_ACCESS, SET_READ_SLOW, "set", "1.0.0", "Get one or multiple random members from a set"),
    spec("srem", C::Sets(S::SRem), -3, WRITE_FAST, RW_DELETE, SET_WRITE_FAST, "set", "1.0.0", "Remove one or more members from a set"),
    spec("sscan", C::Sets(S::SScan), -3, &["readonly"], RO_ACCESS, SET_READ_SLOW, "set", "2.8.0", "Incrementally iterate Set elements"),
    spec("ssubscribe", C::SSubscribe, -2, PUBSUB, NO_KEYS, PUBSUB_SLOW, "pubsub", "7.0.0", "Listen for messages published to the given shard channels"),
    spec("strlen", C::StrLen, 2, READ_FAST, RO, STRING_READ_FAST, "string", "2.2.0", "Get the length of the value stored in a key"),
    spec("subscribe", C::Subscribe, -2, PUBSUB, NO_KEYS, PUBSUB_SLOW, "pubsub", "2.0.0", "Listen for messages published to the given channels"),
    spec("substr", C::GetRange, 4, &["readonly"], RO_ACCESS, &["@read", "@string", "@slow"], "string", "1.0.0", "Get a substring of the string stored at a key"),
    spec("sunion", C::Sets(S::SUnion), -2, &["readonly"], ALL_RO_ACCESS, SET_READ_SLOW, "set", "1.0.0", "Add multiple sets"),
    spec("sunionstore", C::Sets(S::SUnionStore), -3, WRITE_OOM, STORE_FROM, SET_WRITE_SLOW, "set", "1.0.0", "Add multiple sets and store the resulting set in a key"),
    spec("sunsubscribe", C::SUnsubscribe, -1, PUBSUB, NO_KEYS, PUBSUB_SLOW, "pubsub", "7.0.0", "Stop listening for messages posted to the given shard channels"),
    spec("time", C::Time, 1, &["loading", "stale", "fast"], NO_KEYS, &["@fast"], "server", "2.6.0", "Return the current server time"),
    spec("ttl", C::Ttl, 2, READ_FAST, RO_ACCESS, KEYSPACE_READ_FAST, "generic", "1.0.0", "Get the time to live for a key in seconds"),
    spec("type", C::Type, 2, READ_FAST, RO, KEYSPACE_READ_FAST, "generic", "1.0.0", "Determine the type stored at key"),
    spec("unlink", C::Del, -2, WRITE_FAST, ALL_RM_DELETE, KEYSPACE_WRITE_FAST, "generic", "4.0.0", "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking."),
    spec("unsubscribe", C::Unsubscribe, -1, PUBSUB, NO_KEYS, PUBSUB_SLOW, "pubsub", "2.0.0", "Stop listening for messages posted to the given channels"),
    spec("unwatch", C::Unwatch, 1, TRANSACTION, NO_KEYS, FAST_TRANSACTION, "transactions", "2.2.0", "Forget about all watched keys"),
    spec("watch", C::Watch, -2, TRANSACTION, ALL_RO, FAST_TRANSACTION, "transactions", "2.2.0", "Watch the given keys to determine execution of the MULTI/EXEC block"),
    spec("zadd", C::SortedSet(Z::ZAdd), -4, WRITE_OOM_FAST, RW_UPDATE, ZSET_WRITE_FAST, "sorted-set", "1.2.0", "Add one or more members to a sorted set, or update its score if it already exists"),
    spec("zcard", C::SortedSet(Z::ZCard), 2, READ_FAST, RO, ZSET_READ_FAST, "sorted-set", "1.2.0", "Get the number of members in a sorted set"),
    spec("zcount", C::SortedSet(Z::ZCount), 4, READ_FAST, RO_ACCESS, ZSET_READ_FAST, "sorted-set", "2.0.0", "Count the members in a sorted set with scores within the given values"),
    spec("zdiffstore", C::SortedSet(Z::ZDiffStore), -4, &["write", "denyoom", "movablekeys"], ZSTORE, ZSET_WRITE_SLOW, "sorted-set", "6.2.0", "Subtract multiple sorted sets and store the resulting sorted set in a new key"),
    spec("zincrby", C::SortedSet(Z::ZIncrBy), 4, WRITE_OOM_FAST, RW_ACCESS_UPDATE, ZSET_WRITE_FAST, "sorted-set", "1.2.0", "Increment the score of a member in a sorted set"),
    spec("zinterstore", C::SortedSet(Z::ZInterStore), -4, &["write", "denyoom", "movablekeys"], ZSTORE, ZSET_WRITE_SLOW, "sorted-set", "2.0.0", "Intersect multiple sorted sets and store the resulting sorted set in a new key"),
    spec("zlexcount", C::SortedSet(Z::ZLexCount), 4, READ_FAST, RO_ACCESS, ZSET_READ_FAST, "sorted-set", "2.8.9", "Count the number of members in a sorted set between a given lexicographical range"),
    spec("zmscore", C::SortedSet(Z::ZMScore), -3, READ_FAST, RO_ACCESS, ZSET_READ_FAST, "sorted-set", "6.2.0", "Get the score associated with the given members in a sorted set"),
    spec("zpopmax", C::SortedSet(Z::ZPopMax), -2, WRITE_FAST, RW_ACCESS_DELETE, ZSET_WRITE_FAST, "sorted-set", "5.0.0", "Remove and return members with the highest scores in a sorted set"),
    spec("zpopmin", C::SortedSet(Z::ZPopMin), -2, WRITE_FAST, RW_ACCESS_DELETE, ZSET_WRITE_FAST, "sorted-set", "5.0.0", "Remove and return members with the lowest scores in a sorted set"),
    spec("zrandmember", C::SortedSet(Z::ZRandMember), -2, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "6.2.0", "Get one or multiple random elements from a sorted set"),
    spec("zrange", C::SortedSet(Z::ZRange), -4, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "1.2.0", "Return a range of members in a sorted set"),
    spec("zrangebylex", C::SortedSet(Z::ZRangeByLex), -4, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "2.8.9", "Return a range of members in a sorted set, by lexicographical range"),
    spec("zrangebyscore", C::SortedSet(Z::ZRangeByScore), -4, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "1.0.5", "Return a range of members in a sorted set, by score"),
    spec("zrangestore", C::SortedSet(Z::ZRangeStore), -5, WRITE_OOM, ZRANGESTORE, ZSET_WRITE_SLOW, "sorted-set", "6.2.0", "Store a range of members from sorted set into another key"),
    spec("zrank", C::SortedSet(Z::ZRank), -3, READ_FAST, RO, ZSET_READ_FAST, "sorted-set", "2.0.0", "Determine the index of a member in a sorted set"),
    spec("zrem", C::SortedSet(Z::ZRem), -3, WRITE_FAST, RW_DELETE, ZSET_WRITE_FAST, "sorted-set", "1.2.0", "Remove one or more members from a sorted set"),
    spec("zremrangebylex", C::SortedSet(Z::ZRemRangeByLex), 4, WRITE, RW_DELETE, ZSET_WRITE_SLOW, "sorted-set", "2.8.9", "Remove all members in a sorted set between the given lexicographical range"),
    spec("zremrangebyrank", C::SortedSet(Z::ZRemRangeByRank), 4, WRITE, RW_DELETE, ZSET_WRITE_SLOW, "sorted-set", "2.0.0", "Remove all members in a sorted set within the given indexes"),
    spec("zremrangebyscore", C::SortedSet(Z::ZRemRangeByScore), 4, WRITE, RW_DELETE, ZSET_WRITE_SLOW, "sorted-set", "1.2.0", "Remove all members in a sorted set within the given scores"),
    spec("zrevrange", C::SortedSet(Z::ZRevRange), -4, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "1.2.0", "Return a range of members in a sorted set, by index, with scores ordered from high to low"),
    spec("zrevrangebylex", C::SortedSet(Z::ZRevRangeByLex), -4, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "2.8.9", "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings."),
    spec("zrevrangebyscore", C::SortedSet(Z::ZRevRangeByScore), -4, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "2.2.0", "Return a range of members in a sorted set, by score, with scores ordered from high to low"),
    spec("zrevrank", C::SortedSet(Z::ZRevRank), -3, READ_FAST, RO, ZSET_READ_FAST, "sorted-set", "2.0.0", "Determine the index of a member in a sorted set, with scores ordered from high to low"),
    spec("zscan", C::SortedSet(Z::ZScan), -3, &["readonly"], RO_ACCESS, ZSET_READ_SLOW, "sorted-set", "2.8.0", "Incrementally iterate sorted sets elements and associated scores"),
    spec("zscore", C::SortedSet(Z::ZScore), 3, READ_FAST, RO_ACCESS, ZSET_READ_FAST, "sorted-set", "1.2.0", "Get the score associated with the given member in a sorted set"),
    spec("zunionstore", C::SortedSet(Z::ZUnionStore), -4, &["write", "denyoom", "movablekeys"], ZSTORE, ZSET_WRITE_SLOW, "sorted-set", "2.0.0", "Add multiple sorted sets and store the resulting sorted set in a new key"),
];
