//! [`StreamError`]: the refusals of the stream commands, Redis 7.2's texts
//! byte for byte; a variant of the reply table's
//! [`RespError`](crate::reply::RespError). A leaf.

/// Refusals of the stream commands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// An identifier that does not parse.
    #[error("ERR Invalid stream ID specified as stream command argument")]
    InvalidId,
    /// `XADD` with an identifier not above the last one.
    #[error("ERR The ID specified in XADD is equal or smaller than the target stream top item")]
    AddNotAbove,
    /// `XADD` with `0-0`.
    #[error("ERR The ID specified in XADD must be greater than 0-0")]
    AddZero,
    /// `XADD` after the largest identifier was used.
    #[error("ERR The stream has exhausted the last possible ID, unable to add more items")]
    Exhausted,
    /// `MAXLEN` below zero.
    #[error("ERR The MAXLEN argument must be >= 0.")]
    MaxLenNegative,
    /// `LIMIT` below zero.
    #[error("ERR The LIMIT argument must be >= 0.")]
    LimitNegative,
    /// `MAXLEN` with `MINID`.
    #[error("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")]
    MaxLenAndMinId,
    /// `LIMIT` without `MAXLEN` or `MINID`.
    #[error("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")]
    LimitWithoutStrategy,
    /// `LIMIT` without `~`.
    #[error("ERR syntax error, LIMIT cannot be used without the special ~ option")]
    LimitWithoutApprox,
    /// `XTRIM` without `MAXLEN` or `MINID`.
    #[error("ERR syntax error, XTRIM must be called with a trimming strategy")]
    TrimWithoutStrategy,
    /// An exclusive start bound past the largest identifier.
    #[error("ERR invalid start ID for the interval")]
    InvalidStart,
    /// An exclusive end bound before the smallest identifier.
    #[error("ERR invalid end ID for the interval")]
    InvalidEnd,
    /// `XREAD`'s keys and identifiers do not pair up.
    #[error("ERR Unbalanced '{command}' list of streams: for each stream key an ID or '{symbol}' must be specified.")]
    Unbalanced {
        /// `xread` or `xreadgroup`.
        command: &'static str,
        /// `$` or `>`.
        symbol: char,
    },
    /// `XREAD` with `GROUP`.
    #[error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")]
    GroupInXread,
    /// `XREAD` with `NOACK`.
    #[error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")]
    NoackInXread,
    /// `XREADGROUP` without `GROUP`.
    #[error("ERR Missing GROUP option for XREADGROUP")]
    MissingGroup,
    /// `XREAD`/`XREADGROUP` with `BLOCK` inside a script (the command's
    /// name as sent).
    #[error("ERR {0} command is not allowed with BLOCK option from scripts")]
    BlockInScript(String),
    /// `XREADGROUP` with `$`.
    #[error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")]
    DollarInGroup,
    /// `XREAD` with `>`.
    #[error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")]
    GreaterOutsideGroup,
    /// `XREADGROUP` on a missing key or group.
    #[error(
        "NOGROUP No such key '{key}' or consumer group '{group}' in XREADGROUP with GROUP option"
    )]
    NoGroupRead {
        /// The key.
        key: String,
        /// The group.
        group: String,
    },
    /// A missing key or group (`XPENDING`, `XCLAIM`, `XAUTOCLAIM`).
    #[error("NOGROUP No such key '{key}' or consumer group '{group}'")]
    NoKeyOrGroup {
        /// The key.
        key: String,
        /// The group.
        group: String,
    },
    /// A missing group (`XGROUP`, `XINFO CONSUMERS`).
    #[error("NOGROUP No such consumer group '{group}' for key name '{key}'")]
    NoGroup {
        /// The group.
        group: String,
        /// The key.
        key: String,
    },
    /// `XGROUP` on a missing key.
    #[error("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")]
    GroupNeedsKey,
    /// `XGROUP CREATE` of a group that exists.
    #[error("BUSYGROUP Consumer Group name already exists")]
    BusyGroup,
    /// `ENTRIESREAD` below -1.
    #[error("ERR value for ENTRIESREAD must be positive or -1")]
    EntriesRead,
    /// `XSETID ... ENTRIESADDED` below zero.
    #[error("ERR entries_added must be positive")]
    EntriesAddedNegative,
    /// `XSETID` below its own `MAXDELETEDID`.
    #[error("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")]
    SetIdBelowGivenDeleted,
    /// `XSETID` below the stream's largest deleted identifier.
    #[error("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id")]
    SetIdBelowDeleted,
    /// `XSETID` below the last entry.
    #[error("ERR The ID specified in XSETID is smaller than the target stream top item")]
    SetIdBelowTop,
    /// `XSETID ... ENTRIESADDED` below the stream's length.
    #[error("ERR The entries_added specified in XSETID is smaller than the target stream length")]
    EntriesAddedBelowLength,
    /// An `XCLAIM` option it does not know.
    #[error("ERR Unrecognized XCLAIM option '{0}'")]
    UnknownClaimOption(String),
    /// A min-idle-time that is not an integer (the command: `XCLAIM` or
    /// `XAUTOCLAIM`).
    #[error("ERR Invalid min-idle-time argument for {0}")]
    MinIdle(&'static str),
    /// An `XCLAIM` option value that is not an integer (`IDLE`, `TIME` or
    /// `RETRYCOUNT`).
    #[error("ERR Invalid {0} option argument for XCLAIM")]
    ClaimOptionValue(&'static str),
    /// `XAUTOCLAIM ... COUNT` past what Redis allocates.
    #[error("ERR COUNT must be > 0")]
    ClaimCount,
    /// The stored value is not a stream this build can read.
    #[error("ERR the stream stored at this key is damaged")]
    Damaged,
}
