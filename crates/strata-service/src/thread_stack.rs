//! The stack size of the threads that serve requests, one constant for
//! the server's runtime and the connection workers.

/// Stack of every thread that serves requests: the runtime's workers and
/// blocking pool (where search handlers run) and the threads a request
/// fans out to. Request parsers and query trees are depth-limited well
/// inside it (`strata_search::query::MAX_NESTED_DEPTH`), so no input can
/// overflow it; stated rather than left to the platform's default.
pub const THREAD_STACK_SIZE: usize = 8 << 20;
