//! The subcommand rows of the container commands (`ACL`, `CLIENT`,
//! `CLUSTER`, `COMMAND`, `CONFIG`, `SLOWLOG`, `PUBSUB`, `SCRIPT`, `FUNCTION`,
//! `OBJECT`, `MEMORY`, `LATENCY`, `MODULE`, `XGROUP`, `XINFO`), each sorted by its
//! `container|sub` name, as `COMMAND DOCS` and ACL rules (`+config|get`)
//! see them.

use super::specs::*;
use crate::command::{Command, CommandSpec};
use crate::commands::stream::Op as X;
use Command as C;

#[rustfmt::skip]
pub(super) static ACL_SUBCOMMANDS: &[CommandSpec] = &[
    spec("acl|cat", C::Acl, -2, CLIENT_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "List the ACL categories or the commands inside a category"),
    spec("acl|deluser", C::Acl, -3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Remove the specified ACL users and the associated rules").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("acl|dryrun", C::Acl, -4, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "7.0.0", "Returns whether the user can execute the given command without executing the command."),
    spec("acl|genpass", C::Acl, -2, CLIENT_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "Generate a pseudorandom secure password to use for ACL users"),
    spec("acl|getuser", C::Acl, 3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Get the rules for a specific ACL user"),
    spec("acl|help", C::Acl, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "Show helpful text about the different subcommands"),
    spec("acl|list", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "List the current ACL rules in ACL config file format"),
    spec("acl|load", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Reload the ACLs from the configured ACL file"),
    spec("acl|log", C::Acl, -2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "List latest events denied because of ACLs in place"),
    spec("acl|save", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Save the current ACL rules in the configured ACL file").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("acl|setuser", C::Acl, -3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "Modify or create the rules for a specific ACL user").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("acl|users", C::Acl, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "6.0.0", "List the username of all the configured ACL rules"),
    spec("acl|whoami", C::Acl, 2, CLIENT_FLAGS, NO_KEYS, SLOW, "server", "6.0.0", "Return the name of the user associated to the current connection"),
];

#[rustfmt::skip]
pub(super) static CLIENT_SUBCOMMANDS: &[CommandSpec] = &[
    spec("client|caching", C::Client, 3, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "6.0.0", "Instruct the server about tracking or not keys in the next request"),
    spec("client|getname", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "2.6.9", "Get the current connection name"),
    spec("client|getredir", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "6.0.0", "Get tracking notifications redirection client ID if any"),
    spec("client|help", C::Client, 2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "5.0.0", "Show helpful text about the different subcommands"),
    spec("client|id", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "5.0.0", "Returns the client ID for the current connection"),
    spec("client|info", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "6.2.0", "Returns information about the current client connection.").tips(&["nondeterministic_output"]),
    spec("client|kill", C::Client, -3, ADMIN, NO_KEYS, &["@admin", "@slow", "@dangerous", "@connection"], "connection", "2.4.0", "Kill the connection of a client"),
    spec("client|list", C::Client, -2, ADMIN, NO_KEYS, &["@admin", "@slow", "@dangerous", "@connection"], "connection", "2.4.0", "Get the list of client connections").tips(&["nondeterministic_output"]),
    spec("client|no-evict", C::Client, 3, ADMIN, NO_KEYS, &["@admin", "@slow", "@dangerous", "@connection"], "connection", "7.0.0", "Set client eviction mode for the current connection"),
    spec("client|no-touch", C::Client, 3, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "7.2.0", "Controls whether commands sent by the client affect the LRU/LFU of accessed keys."),
    spec("client|pause", C::Client, -3, ADMIN, NO_KEYS, &["@admin", "@slow", "@dangerous", "@connection"], "connection", "3.0.0", "Stop processing commands from clients for some time"),
    spec("client|reply", C::Client, 3, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "3.2.0", "Instruct the server whether to reply to commands"),
    spec("client|setinfo", C::Client, 4, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "7.2.0", "Set client or connection specific info").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("client|setname", C::Client, 3, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "2.6.9", "Set the current connection name").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("client|tracking", C::Client, -3, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "6.0.0", "Enable or disable server assisted client side caching support"),
    spec("client|trackinginfo", C::Client, 2, CLIENT_FLAGS, NO_KEYS, SLOW_CONNECTION, "connection", "6.2.0", "Return information about server assisted client side caching for the current connection"),
    spec("client|unblock", C::Client, -3, ADMIN, NO_KEYS, &["@admin", "@slow", "@dangerous", "@connection"], "connection", "5.0.0", "Unblock a client blocked in a blocking command from a different connection"),
    spec("client|unpause", C::Client, 2, ADMIN, NO_KEYS, &["@admin", "@slow", "@dangerous", "@connection"], "connection", "6.2.0", "Resume processing of clients that were paused"),
];

#[rustfmt::skip]
pub(super) static CLUSTER_SUBCOMMANDS: &[CommandSpec] = &[
    spec("cluster|addslots", C::Cluster, -3, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Assign new hash slots to receiving node"),
    spec("cluster|addslotsrange", C::Cluster, -4, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "7.0.0", "Assign new hash slots to receiving node"),
    spec("cluster|bumpepoch", C::Cluster, 2, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Advance the cluster config epoch").tips(&["nondeterministic_output"]),
    spec("cluster|count-failure-reports", C::Cluster, 3, &["admin", "stale"], NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Return the number of failure reports active for a given node").tips(&["nondeterministic_output"]),
    spec("cluster|countkeysinslot", C::Cluster, 3, STALE, NO_KEYS, SLOW, "cluster", "3.0.0", "Return the number of local keys in the specified hash slot"),
    spec("cluster|delslots", C::Cluster, -3, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Set hash slots as unbound in receiving node"),
    spec("cluster|delslotsrange", C::Cluster, -4, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "7.0.0", "Set hash slots as unbound in receiving node"),
    spec("cluster|failover", C::Cluster, -2, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Forces a replica to perform a manual failover of its master."),
    spec("cluster|flushslots", C::Cluster, 2, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Delete a node's own slots information"),
    spec("cluster|forget", C::Cluster, 3, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Remove a node from the nodes table"),
    spec("cluster|getkeysinslot", C::Cluster, 4, STALE, NO_KEYS, SLOW, "cluster", "3.0.0", "Return local key names in the specified hash slot").tips(&["nondeterministic_output"]),
    spec("cluster|help", C::Cluster, 2, &["loading", "stale"], NO_KEYS, SLOW, "cluster", "5.0.0", "Show helpful text about the different subcommands"),
    spec("cluster|info", C::Cluster, 2, STALE, NO_KEYS, SLOW, "cluster", "3.0.0", "Provides info about Redis Cluster node state").tips(&["nondeterministic_output"]),
    spec("cluster|keyslot", C::Cluster, 3, STALE, NO_KEYS, SLOW, "cluster", "3.0.0", "Returns the hash slot of the specified key"),
    spec("cluster|links", C::Cluster, 2, STALE, NO_KEYS, SLOW, "cluster", "7.0.0", "Returns a list of all TCP links to and from peer nodes in cluster").tips(&["nondeterministic_output"]),
    spec("cluster|meet", C::Cluster, -4, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Force a node cluster to handshake with another node"),
    spec("cluster|myid", C::Cluster, 2, STALE, NO_KEYS, SLOW, "cluster", "3.0.0", "Return the node id"),
    spec("cluster|myshardid", C::Cluster, 2, STALE, NO_KEYS, SLOW, "cluster", "7.2.0", "Returns the shard ID of a node.").tips(&["nondeterministic_output"]),
    spec("cluster|nodes", C::Cluster, 2, STALE, NO_KEYS, SLOW, "cluster", "3.0.0", "Get Cluster config for the node").tips(&["nondeterministic_output"]),
    spec("cluster|replicas", C::Cluster, 3, &["admin", "stale"], NO_KEYS, ADMIN_CATEGORIES, "cluster", "5.0.0", "List replica nodes of the specified master node").tips(&["nondeterministic_output"]),
    spec("cluster|replicate", C::Cluster, 3, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Reconfigure a node as a replica of the specified master node"),
    spec("cluster|reset", C::Cluster, -2, &["admin", "noscript", "stale"], NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Reset a Redis Cluster node"),
    spec("cluster|saveconfig", C::Cluster, 2, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Forces the node to save cluster state on disk"),
    spec("cluster|set-config-epoch", C::Cluster, 3, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Set the configuration epoch in a new node"),
    spec("cluster|setslot", C::Cluster, -4, CLUSTER_ADMIN, NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "Bind a hash slot to a specific node"),
    spec("cluster|shards", C::Cluster, 2, &["loading", "stale"], NO_KEYS, SLOW, "cluster", "7.0.0", "Get array of cluster slots to node mappings").tips(&["nondeterministic_output"]),
    spec("cluster|slaves", C::Cluster, 3, &["admin", "stale"], NO_KEYS, ADMIN_CATEGORIES, "cluster", "3.0.0", "List replica nodes of the specified master node").tips(&["nondeterministic_output"]),
    spec("cluster|slots", C::Cluster, 2, &["loading", "stale"], NO_KEYS, SLOW, "cluster", "3.0.0", "Get array of Cluster slot to node mappings").tips(&["nondeterministic_output"]),
];

#[rustfmt::skip]
pub(super) static COMMAND_SUBCOMMANDS: &[CommandSpec] = &[
    spec("command|count", C::Command, 2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "2.8.13", "Get total number of Redis commands"),
    spec("command|docs", C::Command, -2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "7.0.0", "Get array of specific Redis command documentation").tips(&["nondeterministic_output_order"]),
    spec("command|getkeys", C::Command, -3, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "2.8.13", "Extract keys given a full Redis command"),
    spec("command|getkeysandflags", C::Command, -3, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "7.0.0", "Extract keys and access flags given a full Redis command"),
    spec("command|help", C::Command, 2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "5.0.0", "Show helpful text about the different subcommands"),
    spec("command|info", C::Command, -2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "2.8.13", "Get array of specific Redis command details, or all when no argument is given.").tips(&["nondeterministic_output_order"]),
    spec("command|list", C::Command, -2, HELP_FLAGS, NO_KEYS, SLOW_CONNECTION, "server", "7.0.0", "Get an array of Redis command names").tips(&["nondeterministic_output_order"]),
];

#[rustfmt::skip]
pub(super) static CONFIG_SUBCOMMANDS: &[CommandSpec] = &[
    spec("config|get", C::Config, -3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.0.0", "Get the values of configuration parameters"),
    spec("config|help", C::Config, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "5.0.0", "Show helpful text about the different subcommands"),
    spec("config|resetstat", C::Config, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.0.0", "Reset the stats returned by INFO").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("config|rewrite", C::Config, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.8.0", "Rewrite the configuration file with the in memory configuration").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("config|set", C::Config, -4, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.0.0", "Set configuration parameters to the given values").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
];

#[rustfmt::skip]
pub(super) static SLOWLOG_SUBCOMMANDS: &[CommandSpec] = &[
    spec("slowlog|get", C::SlowLog, -2, ADMIN_LOADING, NO_KEYS, ADMIN_CATEGORIES, "server", "2.2.12", "Get the slow log's entries").tips(&["request_policy:all_nodes", "nondeterministic_output"]),
    spec("slowlog|help", C::SlowLog, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "6.2.0", "Show helpful text about the different subcommands"),
    spec("slowlog|len", C::SlowLog, 2, ADMIN_LOADING, NO_KEYS, ADMIN_CATEGORIES, "server", "2.2.12", "Get the slow log's length").tips(&["request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output"]),
    spec("slowlog|reset", C::SlowLog, 2, ADMIN_LOADING, NO_KEYS, ADMIN_CATEGORIES, "server", "2.2.12", "Clear all entries from the slow log").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
];

#[rustfmt::skip]
pub(super) static PUBSUB_SUBCOMMANDS: &[CommandSpec] = &[
    spec("pubsub|channels", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "2.8.0", "List active channels"),
    spec("pubsub|help", C::PubSub, 2, HELP_FLAGS, NO_KEYS, SLOW, "pubsub", "6.2.0", "Show helpful text about the different subcommands"),
    spec("pubsub|numpat", C::PubSub, 2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "2.8.0", "Get the count of unique patterns pattern subscriptions"),
    spec("pubsub|numsub", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "2.8.0", "Get the count of subscribers for channels"),
    spec("pubsub|shardchannels", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "7.0.0", "List active shard channels"),
    spec("pubsub|shardnumsub", C::PubSub, -2, &["pubsub", "loading", "stale"], NO_KEYS, PUBSUB_SLOW, "pubsub", "7.0.0", "Get the count of subscribers for shard channels"),
];

#[rustfmt::skip]
pub(super) static SCRIPT_SUBCOMMANDS: &[CommandSpec] = &[
    spec("script|debug", C::Script, 3, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "3.2.0", "Set the debug mode for server-side Lua scripts."),
    spec("script|exists", C::Script, -3, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Check existence of scripts in the script cache.").tips(&["request_policy:all_shards", "response_policy:agg_logical_and"]),
    spec("script|flush", C::Script, -2, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Remove all the scripts from the script cache.").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
    spec("script|help", C::Script, 2, HELP_FLAGS, NO_KEYS, SCRIPTING, "scripting", "5.0.0", "Show helpful text about the different subcommands"),
    spec("script|kill", C::Script, 2, &["noscript", "allow_busy"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Kill the script currently in execution.").tips(&["request_policy:all_shards", "response_policy:one_succeeded"]),
    spec("script|load", C::Script, 3, &["noscript", "stale"], NO_KEYS, SCRIPTING, "scripting", "2.6.0", "Load the specified Lua script into the script cache.").tips(&["request_policy:all_nodes", "response_policy:all_succeeded"]),
];

#[rustfmt::skip]
pub(super) static FUNCTION_SUBCOMMANDS: &[CommandSpec] = &[
    spec("function|delete", C::Function, 3, &["noscript", "write"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Delete a function by name").tips(&["request_policy:all_shards", "response_policy:all_succeeded"]),
    spec("function|dump", C::Function, 2, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Dump all functions into a serialized binary payload"),
    spec("function|flush", C::Function, -2, &["noscript", "write"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Deleting all functions").tips(&["request_policy:all_shards", "response_policy:all_succeeded"]),
    spec("function|help", C::Function, 2, HELP_FLAGS, NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Show helpful text about the different subcommands"),
    spec("function|kill", C::Function, 2, &["noscript", "allow_busy"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Kill the function currently in execution.").tips(&["request_policy:all_shards", "response_policy:one_succeeded"]),
    spec("function|list", C::Function, -2, &["noscript"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "List information about all the functions").tips(&["nondeterministic_output_order"]),
    spec("function|load", C::Function, -3, &["noscript", "write", "denyoom"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Create a function with the given arguments (name, code, description)").tips(&["request_policy:all_shards", "response_policy:all_succeeded"]),
    spec("function|restore", C::Function, -3, &["noscript", "write", "denyoom"], NO_KEYS, SCRIPTING_WRITE, "scripting", "7.0.0", "Restore all the functions on the given payload").tips(&["request_policy:all_shards", "response_policy:all_succeeded"]),
    spec("function|stats", C::Function, 2, &["noscript", "allow_busy"], NO_KEYS, SCRIPTING, "scripting", "7.0.0", "Return information about the function currently running (name, description, duration)").tips(&["nondeterministic_output", "request_policy:all_shards", "response_policy:special"]),
];

#[rustfmt::skip]
pub(super) static OBJECT_SUBCOMMANDS: &[CommandSpec] = &[
    spec("object|encoding", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "2.2.3", "Inspect the internal encoding of a Redis object").tips(&["nondeterministic_output"]),
    spec("object|freq", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "4.0.0", "Get the logarithmic access frequency counter of a Redis object").tips(&["nondeterministic_output"]),
    spec("object|help", C::Object, 2, HELP_FLAGS, NO_KEYS, &["@keyspace", "@slow"], "generic", "6.2.0", "Show helpful text about the different subcommands"),
    spec("object|idletime", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "2.2.3", "Get the time since a Redis object was last accessed").tips(&["nondeterministic_output"]),
    spec("object|refcount", C::Object, 3, &["readonly"], &[at(&["RO"], 2)], KEYSPACE_READ_SLOW, "generic", "2.2.3", "Get the number of references to the value of the key").tips(&["nondeterministic_output"]),
];

#[rustfmt::skip]
pub(super) static MEMORY_SUBCOMMANDS: &[CommandSpec] = &[
    spec("memory|doctor", C::Memory, 2, &[], NO_KEYS, SLOW, "server", "4.0.0", "Outputs a memory problems report.").tips(&["nondeterministic_output", "request_policy:all_shards", "response_policy:special"]),
    spec("memory|help", C::Memory, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "4.0.0", "Returns helpful text about the different subcommands."),
    spec("memory|malloc-stats", C::Memory, 2, &[], NO_KEYS, SLOW, "server", "4.0.0", "Returns the allocator statistics.").tips(&["nondeterministic_output", "request_policy:all_shards", "response_policy:special"]),
    spec("memory|purge", C::Memory, 2, &[], NO_KEYS, SLOW, "server", "4.0.0", "Asks the allocator to release memory.").tips(&["request_policy:all_shards", "response_policy:all_succeeded"]),
    spec("memory|stats", C::Memory, 2, &[], NO_KEYS, SLOW, "server", "4.0.0", "Returns details about memory usage.").tips(&["nondeterministic_output", "request_policy:all_shards", "response_policy:special"]),
    spec("memory|usage", C::Memory, -3, &["readonly"], &[at(&["RO"], 2)], &["@read", "@slow"], "server", "4.0.0", "Estimates the memory usage of a key."),
];

#[rustfmt::skip]
pub(super) static LATENCY_SUBCOMMANDS: &[CommandSpec] = &[
    spec("latency|doctor", C::Latency, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.8.13", "Returns a human-readable latency analysis report.").tips(&["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"]),
    spec("latency|graph", C::Latency, 3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.8.13", "Returns a latency graph for an event.").tips(&["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"]),
    spec("latency|help", C::Latency, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "2.8.13", "Returns helpful text about the different subcommands."),
    spec("latency|histogram", C::Latency, -2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "7.0.0", "Returns the cumulative distribution of latencies of a subset or all commands.").tips(&["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"]),
    spec("latency|history", C::Latency, 3, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.8.13", "Returns timestamp-latency samples for an event.").tips(&["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"]),
    spec("latency|latest", C::Latency, 2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.8.13", "Returns the latest latency samples for all events.").tips(&["nondeterministic_output", "request_policy:all_nodes", "response_policy:special"]),
    spec("latency|reset", C::Latency, -2, ADMIN, NO_KEYS, ADMIN_CATEGORIES, "server", "2.8.13", "Resets the latency data for one or more events.").tips(&["request_policy:all_nodes", "response_policy:agg_sum"]),
];

#[rustfmt::skip]
pub(super) static XGROUP_SUBCOMMANDS: &[CommandSpec] = &[
    spec("xgroup|create", C::Stream(X::XGroup), -5, WRITE_OOM, &[at(&["RW", "insert"], 2)], STREAM_WRITE_SLOW, "stream", "5.0.0", "Creates a consumer group."),
    spec("xgroup|createconsumer", C::Stream(X::XGroup), 5, WRITE_OOM, &[at(&["RW", "insert"], 2)], STREAM_WRITE_SLOW, "stream", "6.2.0", "Creates a consumer in a consumer group."),
    spec("xgroup|delconsumer", C::Stream(X::XGroup), 5, WRITE, &[at(&["RW", "delete"], 2)], STREAM_WRITE_SLOW, "stream", "5.0.0", "Deletes a consumer from a consumer group."),
    spec("xgroup|destroy", C::Stream(X::XGroup), 4, WRITE, &[at(&["RW", "delete"], 2)], STREAM_WRITE_SLOW, "stream", "5.0.0", "Destroys a consumer group."),
    spec("xgroup|help", C::Stream(X::XGroup), 2, HELP_FLAGS, NO_KEYS, &["@stream", "@slow"], "stream", "5.0.0", "Returns helpful text about the different subcommands."),
    spec("xgroup|setid", C::Stream(X::XGroup), -5, WRITE, &[at(&["RW", "update"], 2)], STREAM_WRITE_SLOW, "stream", "5.0.0", "Sets the last-delivered ID of a consumer group."),
];

#[rustfmt::skip]
pub(super) static XINFO_SUBCOMMANDS: &[CommandSpec] = &[
    spec("xinfo|consumers", C::Stream(X::XInfo), 4, &["readonly"], &[at(&["RO", "access"], 2)], STREAM_READ_SLOW, "stream", "5.0.0", "Returns a list of the consumers in a consumer group.").tips(&["nondeterministic_output"]),
    spec("xinfo|groups", C::Stream(X::XInfo), 3, &["readonly"], &[at(&["RO", "access"], 2)], STREAM_READ_SLOW, "stream", "5.0.0", "Returns a list of the consumer groups of a stream."),
    spec("xinfo|help", C::Stream(X::XInfo), 2, HELP_FLAGS, NO_KEYS, &["@stream", "@slow"], "stream", "5.0.0", "Returns helpful text about the different subcommands."),
    spec("xinfo|stream", C::Stream(X::XInfo), -3, &["readonly"], &[at(&["RO", "access"], 2)], STREAM_READ_SLOW, "stream", "5.0.0", "Returns information about a stream."),
];

#[rustfmt::skip]
pub(super) static MODULE_SUBCOMMANDS: &[CommandSpec] = &[
    spec("module|help", C::Module, 2, HELP_FLAGS, NO_KEYS, SLOW, "server", "5.0.0", "Show helpful text about the different subcommands"),
    spec("module|list", C::Module, 2, &["admin", "noscript"], NO_KEYS, ADMIN_CATEGORIES, "server", "4.0.0", "List all modules loaded by the server").tips(&["nondeterministic_output_order"]),
    spec("module|load", C::Module, -3, &["admin", "noscript", "no_async_loading"], NO_KEYS, ADMIN_CATEGORIES, "server", "4.0.0", "Load a module"),
    spec("module|loadex", C::Module, -3, &["admin", "noscript", "no_async_loading"], NO_KEYS, ADMIN_CATEGORIES, "server", "7.0.0", "Load a module with extended parameters"),
    spec("module|unload", C::Module, 3, &["admin", "noscript", "no_async_loading"], NO_KEYS, ADMIN_CATEGORIES, "server", "4.0.0", "Unload a module"),
];
