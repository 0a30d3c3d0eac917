//! [`Op`]: which set command runs, as named by the command table;
//! a leaf, so the table need not import the handlers.

/// Which set command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    SAdd,
    SRem,
    SMembers,
    SIsMember,
    SMIsMember,
    SCard,
    SPop,
    SRandMember,
    SMove,
    SInter,
    SUnion,
    SDiff,
    SInterStore,
    SUnionStore,
    SDiffStore,
    SInterCard,
    SScan,
}
