//! Blocking work (recovery, the final log sync, flushing indices) run from
//! async code without stalling the runtime's other tasks.

/// Runs blocking `f` (recovery, the final log sync) without stalling other
/// tasks on a multi-thread runtime; directly on a current-thread one.
pub(crate) fn blocking<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::current().runtime_flavor() {
        tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}
