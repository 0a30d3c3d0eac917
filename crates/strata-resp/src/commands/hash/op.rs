//! [`Op`]: which hash command runs, as named by the command table;
//! a leaf, so the table need not import the handlers.

/// Which hash command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    HSet,
    HMSet,
    HSetNx,
    HGet,
    HMGet,
    HGetAll,
    HKeys,
    HVals,
    HDel,
    HExists,
    HLen,
    HIncrBy,
    HIncrByFloat,
    HStrLen,
    HRandField,
    HScan,
}
