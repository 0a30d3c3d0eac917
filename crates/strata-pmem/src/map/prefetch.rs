//! A cache-line prefetch hint. It lives beside the flush instructions
//! (`flush.rs`) because this crate owns the CPU's cache-line
//! intrinsics, and the engines above it forbid `unsafe`.

/// Starts loading the cache line that holds `value`, for a probe known a
/// few steps ahead (the index rebuild after a restart). No effect where the
/// target has no prefetch instruction.
#[inline]
pub fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE, which has PREFETCHT0, is part of every x86-64 CPU;
        // a prefetch is a hint that never faults and writes nothing, and
        // the address comes from a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
