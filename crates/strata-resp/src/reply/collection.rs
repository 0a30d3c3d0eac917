//! [`CollectionError`]: the refusals of the hash, list, set and
//! sorted-set commands (bad numbers, ranges, timeouts), Redis 7's texts
//! byte for byte; a variant of the reply table's
//! [`RespError`](crate::reply::RespError). A leaf.

/// Refusals of the hash, list, set and sorted-set commands, Redis 7's texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CollectionError {
    /// HINCRBY on a field that does not hold an integer.
    #[error("ERR hash value is not an integer")]
    HashNotInteger,
    /// HINCRBYFLOAT on a field that does not hold a float.
    #[error("ERR hash value is not a float")]
    HashNotFloat,
    /// A count or index argument that must not be negative.
    #[error("ERR value is out of range, must be positive")]
    MustBePositive,
    /// A random-pick count of `i64::MIN` (`ZRANDMEMBER`, `HRANDFIELD`,
    /// `SRANDMEMBER`: Redis reads the count in `-LONG_MAX..=LONG_MAX`).
    #[error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")]
    CountOutOfRange,
    /// LSET past the end.
    #[error("ERR index out of range")]
    IndexOutOfRange,
    /// `LMPOP`/`ZMPOP` and their blocking forms: numkeys not a positive
    /// number.
    #[error("ERR numkeys should be greater than 0")]
    MPopNumKeys,
    /// `LMPOP`/`ZMPOP` and their blocking forms: COUNT not a positive
    /// number.
    #[error("ERR count should be greater than 0")]
    MPopCount,
    /// A blocking command's timeout that is negative.
    #[error("ERR timeout is negative")]
    NegativeTimeout,
    /// A blocking command's timeout that is not a number.
    #[error("ERR timeout is not a float or out of range")]
    TimeoutNotFloat,
    /// A timeout in milliseconds that is not an integer (`XREAD BLOCK`,
    /// `WAIT`).
    #[error("ERR timeout is not an integer or out of range")]
    TimeoutNotInteger,
    /// A blocking command's timeout past what can be represented.
    #[error("ERR timeout is out of range")]
    TimeoutOutOfRange,
    /// LPOS RANK 0.
    #[error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")]
    RankZero,
    /// A sorted-set score that is not a number.
    #[error("ERR min or max is not a float")]
    MinMaxNotFloat,
    /// A lexicographic range bound without `[`, `(`, `-` or `+`.
    #[error("ERR min or max not valid string range item")]
    BadLexRange,
    /// ZADD with both NX and XX.
    #[error("ERR XX and NX options at the same time are not compatible")]
    NxXx,
    /// ZADD with GT or LT together with NX, or GT with LT.
    #[error("ERR GT, LT, and/or NX options at the same time are not compatible")]
    GtLtNx,
    /// ZADD INCR with more than one pair.
    #[error("ERR INCR option supports a single increment-element pair")]
    IncrPairs,
    /// An operation that would make a score NaN.
    #[error("ERR resulting score is not a number (NaN)")]
    ScoreNan,
    /// numkeys of ZUNIONSTORE and friends below one.
    #[error("ERR at least 1 input key is needed for '{0}' command")]
    AtLeastOneKey(&'static str),
    /// numkeys larger than the arguments.
    #[error("ERR Number of keys can't be greater than number of args")]
    NumKeysTooLarge,
    /// SINTERCARD / ZINTERCARD numkeys not positive.
    #[error("ERR numkeys should be greater than 0")]
    NumKeysNotPositive,
    /// LIMIT of SINTERCARD negative.
    #[error("ERR LIMIT can't be negative")]
    LimitNegative,
    /// A weight that is not a number.
    #[error("ERR weight value is not a float")]
    WeightNotFloat,
    /// ZRANGE BYLEX with WITHSCORES.
    #[error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")]
    WithScoresByLex,
    /// LIMIT without BYSCORE or BYLEX.
    #[error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
    )]
    LimitWithoutBy,
    /// OBJECT FREQ: Strata's eviction is not LFU.
    #[error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")]
    NoLfu,
    /// A value stored under a collection's type that does not decode.
    #[error("ERR the value stored at this key is damaged")]
    Damaged,
}
