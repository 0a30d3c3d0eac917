//! [`Op`]: which sorted-set command runs, as named by the command table;
//! a leaf, so the table need not import the handlers.

/// Which sorted-set command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    ZAdd,
    ZIncrBy,
    ZRem,
    ZRemRangeByScore,
    ZRemRangeByRank,
    ZRemRangeByLex,
    ZScore,
    ZMScore,
    ZCard,
    ZCount,
    ZLexCount,
    ZRank,
    ZRevRank,
    ZRange,
    ZRangeStore,
    ZRevRange,
    ZRangeByScore,
    ZRevRangeByScore,
    ZRangeByLex,
    ZRevRangeByLex,
    ZPopMin,
    ZPopMax,
    BZPopMin,
    BZPopMax,
    ZUnionStore,
    ZInterStore,
    ZDiffStore,
    ZUnion,
    ZInter,
    ZDiff,
    ZInterCard,
    ZMPop,
    BZMPop,
    ZRandMember,
    ZScan,
}
