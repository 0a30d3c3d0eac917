//! [`Op`]: which list command runs, as named by the command table;
//! a leaf, so the table need not import the handlers.

/// Which list command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    LPush,
    RPush,
    LPushX,
    RPushX,
    LPop,
    RPop,
    LLen,
    LRange,
    LIndex,
    LSet,
    LInsert,
    LRem,
    LTrim,
    LPos,
    LMove,
    RPopLPush,
    BLPop,
    BRPop,
    BLMove,
    BRPopLPush,
    LMPop,
    BLMPop,
}
