//! [`Op`]: which HyperLogLog command runs, as named by the command table;
//! a leaf, so the table need not import the handlers.

/// Which HyperLogLog command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    PfAdd,
    PfCount,
    PfDebug,
    PfMerge,
    PfSelfTest,
}
