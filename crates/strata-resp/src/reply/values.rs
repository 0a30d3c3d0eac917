//! [`ValueError`]: the refusals of the commands over Redis's value
//! formats kept in their own layout (bitmaps, HyperLogLog, geospatial
//! indexes), Redis 7's texts byte for byte; a variant of the reply table's
//! [`RespError`](crate::reply::RespError). A leaf.

/// Refusals of the bitmap, HyperLogLog and geospatial commands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// A bitmap offset that is not a non-negative integer whose byte lies
    /// below `proto-max-bulk-len`.
    #[error("ERR bit offset is not an integer or out of range")]
    BitOffset,
    /// `SETBIT` with a value other than 0 or 1.
    #[error("ERR bit is not an integer or out of range")]
    BitValue,
    /// `BITPOS` looking for a bit other than 0 or 1.
    #[error("ERR The bit argument must be 1 or 0.")]
    BitposBit,
    /// `BITOP NOT` with more or fewer than one source.
    #[error("ERR BITOP NOT must be called with a single source key.")]
    BitopNotSingle,
    /// A `BITFIELD` type that is not `i1`..`i64` or `u1`..`u63`.
    #[error("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")]
    BitfieldType,
    /// `BITFIELD ... OVERFLOW` of an unknown behaviour.
    #[error("ERR Invalid OVERFLOW type specified")]
    BitfieldOverflow,
    /// `BITFIELD_RO` with `SET` or `INCRBY`.
    #[error("ERR BITFIELD_RO only supports the GET subcommand")]
    BitfieldReadOnly,
    /// A distance unit other than m, km, ft, mi.
    #[error("ERR unsupported unit provided. please use M, KM, FT, MI")]
    GeoUnit,
    /// `COUNT` of zero or less in a geospatial search.
    #[error("ERR COUNT must be > 0")]
    GeoCount,
    /// `ANY` without `COUNT`.
    #[error("ERR the ANY argument requires COUNT argument")]
    GeoAnyCount,
    /// A search centred on a member the set does not hold.
    #[error("ERR could not decode requested zset member")]
    GeoMember,
    /// A string that is not a HyperLogLog given to a `PF*` command.
    #[error("WRONGTYPE Key is not a valid HyperLogLog string value.")]
    NotHll,
    /// A HyperLogLog whose registers do not add up.
    #[error("INVALIDOBJ Corrupted HLL object detected")]
    CorruptHll,
    /// `PFDEBUG` on a missing key.
    #[error("ERR The specified key does not exist")]
    NoSuchHllKey,
    /// `PFDEBUG DECODE` of a dense HyperLogLog.
    #[error("ERR HLL encoding is not sparse")]
    HllNotSparse,
    /// `PFDEBUG` with a subcommand it does not have (as given).
    #[error("ERR Unknown PFDEBUG subcommand '{0}'")]
    UnknownPfDebug(String),
    /// `MIGRATE ... KEYS` with a key argument that is not empty.
    #[error(
        "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"
    )]
    MigrateKeyNotEmpty,
    /// `MIGRATE` could not talk to its target (Redis's `IOERR` text).
    #[error("IOERR {0}")]
    MigrateIo(&'static str),
    /// `MIGRATE`'s target refused a command (its error line).
    #[error("ERR Target instance replied with error: {0}")]
    MigrateTarget(String),
    /// A `PFSELFTEST` check failed (Redis's `TESTFAILED ...` text).
    #[error("{0}")]
    HllSelfTest(String),
    /// A longitude or latitude outside Redis's limits (the pair, `%f`).
    #[error("ERR invalid longitude,latitude pair {0}")]
    GeoInvalidPair(String),
    /// A radius, width or height that is not a number.
    #[error("ERR need numeric {0}")]
    GeoNumeric(&'static str),
    /// A negative radius, width or height.
    #[error("ERR {0}")]
    GeoNegative(&'static str),
    /// A stored search asking for distances, hashes or coordinates.
    #[error("ERR {0} is not compatible with WITHDIST, WITHHASH and WITHCOORD options")]
    GeoStoreWith(&'static str),
    /// `GEOSEARCH` without a centre.
    #[error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for {0}")]
    GeoFrom(String),
    /// `GEOSEARCH` without a shape.
    #[error("ERR exactly one of BYRADIUS and BYBOX can be specified for {0}")]
    GeoBy(String),
}
