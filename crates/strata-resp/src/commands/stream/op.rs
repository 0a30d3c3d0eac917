//! [`Op`]: which stream command runs, as named by the command table; a
//! leaf, so the table need not import the handlers.

/// Which stream command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    XAdd,
    XLen,
    XRange,
    XRevRange,
    XDel,
    XTrim,
    XSetId,
    XRead,
    XReadGroup,
    XGroup,
    XAck,
    XPending,
    XClaim,
    XAutoClaim,
    XInfo,
}
