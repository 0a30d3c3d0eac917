//! [`ClientError`]: the refusals of the connection and node commands
//! (`CLIENT`, `CLUSTER` and its connection modes) and of a blocked client
//! ended by `CLIENT UNBLOCK`, Redis 7's texts byte for byte; a variant of
//! the reply table's [`RespError`](crate::reply::RespError). A leaf.

/// Refusals of the connection and node commands, Redis 7's texts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    /// CLIENT SETNAME with a space or control character.
    #[error("ERR Client names cannot contain spaces, newlines or special characters.")]
    BadClientName,
    /// CLIENT SETINFO value with a space or control character.
    #[error("ERR {0} cannot contain spaces, newlines or special characters.")]
    BadClientInfo(String),
    /// CLIENT SETINFO with an unknown attribute.
    #[error("ERR Unrecognized option '{0}'")]
    UnrecognizedOption(String),
    /// `CLIENT KILL ID` of zero, a negative or a non-number.
    #[error("ERR client-id should be greater than 0")]
    ClientIdNotPositive,
    /// `CLIENT KILL <addr>` (the old form) that matched no client.
    #[error("ERR No such client")]
    NoSuchClient,
    /// `CLIENT KILL USER` of a user that does not exist.
    #[error("ERR No such user '{0}'")]
    NoSuchUserToKill(String),
    /// CLIENT LIST/INFO option not understood.
    #[error("ERR Unknown client type '{0}'")]
    UnknownClientType(String),
    /// A blocked command ended by `CLIENT UNBLOCK id ERROR`.
    #[error("UNBLOCKED client unblocked via CLIENT UNBLOCK")]
    Unblocked,
    /// `CLUSTER`, `READONLY`, `READWRITE`, `ASKING` on a server that is not
    /// a cluster node, as Redis answers them without `cluster-enabled`.
    #[error("ERR This instance has cluster support disabled")]
    ClusterDisabled,
    /// `CLIENT UNBLOCK` with a reason other than `TIMEOUT` or `ERROR`.
    #[error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")]
    UnblockReason,
    /// `CLIENT PAUSE` with a mode other than `WRITE` or `ALL`.
    #[error("ERR CLIENT PAUSE mode must be WRITE or ALL")]
    PauseMode,
    /// A request whose keys hash to different slots, in cluster mode.
    #[error("CROSSSLOT Keys in request don't hash to the same slot")]
    CrossSlot,
    /// `SELECT` of a database other than 0, `MOVE`, `SWAPDB` in cluster
    /// mode (a cluster has database 0 only).
    #[error("ERR {0} is not allowed in cluster mode")]
    NotInClusterMode(&'static str),
    /// A cluster node id other than this node's (no other is known).
    #[error("ERR Unknown node {0}")]
    UnknownNode(String),
    /// `CLUSTER SET-CONFIG-EPOCH` of a negative epoch.
    #[error("ERR Invalid config epoch specified: {0}")]
    InvalidEpoch(i64),
    /// The cluster config file could not be written (`SAVECONFIG`, or
    /// after an epoch change, which stays in force).
    #[error("ERR error saving the cluster node config: {0}")]
    ClusterSave(String),
    /// `CLUSTER SET-CONFIG-EPOCH` once the epoch is set.
    #[error("ERR Node config epoch is already non-zero")]
    EpochSet,
    /// `CLUSTER COUNTKEYSINSLOT` of a slot outside 0-16383.
    #[error("ERR Invalid slot")]
    InvalidSlot,
    /// `CLUSTER GETKEYSINSLOT` of a bad slot or a negative count.
    #[error("ERR Invalid slot or number of keys")]
    InvalidSlotOrCount,
    /// `CLUSTER ADDSLOTS` & co. of a slot outside 0-16383.
    #[error("ERR Invalid or out of range slot")]
    SlotOutOfRange,
    /// `CLUSTER ADDSLOTS` of a slot already served (by this node: all are).
    #[error("ERR Slot {0} is already busy")]
    SlotBusy(u16),
    /// `CLUSTER ADDSLOTSRANGE` with a start past its end.
    #[error("ERR start slot number {0} is greater than end slot number {1}")]
    SlotRangeOrder(u16, u16),
    /// `CLUSTER FORGET` of this node.
    #[error("ERR I tried hard but I can't forget myself...")]
    ForgetMyself,
    /// `CLUSTER REPLICATE` of this node.
    #[error("ERR Can't replicate myself")]
    ReplicateMyself,
    /// `CLUSTER FAILOVER` on a master (this node is one).
    #[error("ERR You should send CLUSTER FAILOVER to a replica")]
    FailoverOnMaster,
    /// A change of topology a one-node cluster without a cluster bus
    /// cannot make (`MEET`, `DELSLOTS`, `SETSLOT`, `RESET`, ...).
    #[error("ERR CLUSTER {0} is not supported: this node is a one-node cluster that owns every slot and has no cluster bus")]
    OneNodeCluster(String),
    /// `MODULE LOAD` and friends: Strata runs no Redis modules.
    #[error(
        "ERR Strata does not run Redis modules: MODULE LOAD, LOADEX and UNLOAD are not supported"
    )]
    NoModules,
    /// `REPLICAOF host port` with a port that is not one.
    #[error("ERR Invalid master port")]
    InvalidMasterPort,
    /// `REPLICAOF host port`: Strata does not replicate.
    #[error(
        "ERR Strata does not replicate: REPLICAOF host port is not supported (REPLICAOF NO ONE is)"
    )]
    NoReplication,
    /// `DEBUG` while `enable-debug-command` refuses this connection.
    #[error("ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.")]
    DebugNotAllowed,
    /// `DEBUG` with a subcommand Strata does not have, or the wrong number
    /// of arguments for one it has.
    #[error("ERR unknown subcommand or wrong number of arguments for '{0}'. Try DEBUG HELP.")]
    DebugSubcommand(String),
    /// `DEBUG PROTOCOL` with an unknown type.
    #[error("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")]
    ProtocolTypeName,
    /// `DEBUG PROTOCOL push` on a RESP2 connection.
    #[error("ERR RESP2 is not supported by this command")]
    Resp2NotSupported,
    /// `SYNC`/`PSYNC` from a connection that did not ask for a snapshot
    /// alone (`REPLCONF rdb-only 1`).
    #[error("ERR Strata does not replicate: SYNC and PSYNC send an RDB snapshot only, to a connection that sent REPLCONF rdb-only 1")]
    SyncWithoutRdbOnly,
    /// `REPLCONF` with an option Redis does not know.
    #[error("ERR Unrecognized REPLCONF option: {0}")]
    ReplconfOption(String),
    /// `REPLCONF rdb-filter-only` with a filter other than `functions`.
    #[error("ERR Unsupported rdb-filter-only option: {0}")]
    RdbFilter(String),
    /// `REPLCONF ip-address` too long.
    #[error("ERR REPLCONF ip-address provided by replica instance is too long: {0} bytes")]
    ReplicaAddressTooLong(usize),
    /// A 0-or-1 value (`REPLCONF rdb-only`) outside that.
    #[error("ERR value is out of range, value must between 0 and 1")]
    RangeZeroOne,
    /// `WAITAOF 1 ...` with persistence off.
    #[error("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")]
    WaitAofWithoutLog,
    /// `FAILOVER` without replicas (Strata has none).
    #[error("ERR FAILOVER requires connected replicas.")]
    NoReplicas,
    /// `FAILOVER ABORT` with none running.
    #[error("ERR No failover in progress.")]
    NoFailover,
    /// `FAILOVER TIMEOUT` not positive.
    #[error("ERR FAILOVER timeout must be greater than 0")]
    FailoverTimeout,
    /// `CLIENT TRACKING ... REDIRECT` given twice.
    #[error("ERR A client can only redirect to a single other client")]
    OneRedirect,
    /// `CLIENT TRACKING ON REDIRECT` to a client that is not connected.
    #[error("ERR The client ID you want redirect to does not exist")]
    NoRedirectTarget,
    /// `CLIENT TRACKING ON PREFIX` without `BCAST`.
    #[error("ERR PREFIX option requires BCAST mode to be enabled")]
    PrefixNeedsBcast,
    /// `CLIENT TRACKING ON` switching `BCAST` while tracking.
    #[error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")]
    SwitchBcast,
    /// `CLIENT TRACKING ON OPTIN OPTOUT`.
    #[error("ERR You can't specify both OPTIN mode and OPTOUT mode")]
    OptinAndOptout,
    /// `CLIENT TRACKING ON` switching between `OPTIN` and `OPTOUT`.
    #[error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")]
    SwitchOptMode,
    /// `CLIENT TRACKING ON BCAST` with `OPTIN` or `OPTOUT`.
    #[error("ERR OPTIN and OPTOUT are not compatible with BCAST")]
    OptWithBcast,
    /// Two `BCAST` prefixes of which one starts the other.
    #[error("ERR Prefix '{0}' overlaps with {2} prefix '{1}'. Prefixes for a single client must not overlap.")]
    PrefixOverlap(String, String, &'static str),
    /// `CLIENT CACHING` without `OPTIN` or `OPTOUT` tracking.
    #[error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")]
    CachingNeedsOptMode,
    /// `CLIENT CACHING YES` in `OPTOUT` mode.
    #[error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")]
    CachingYesNeedsOptin,
    /// `CLIENT CACHING NO` in `OPTIN` mode.
    #[error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")]
    CachingNoNeedsOptout,
}
