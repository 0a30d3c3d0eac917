//! Cache-line write-back for real persistent memory: detection of `clwb`
//! and `clflushopt` through CPUID, the flush loop and `sfence`.
//!
//! Only x86_64 is supported; elsewhere [`best_instruction`] is `None` and the
//! arena emulates persistence with `msync`.

use std::sync::atomic::AtomicU64;

use crate::mode::FlushInstruction;

/// The best write-back instruction this CPU offers.
#[cfg(target_arch = "x86_64")]
pub(super) fn best_instruction() -> Option<FlushInstruction> {
    [
        FlushInstruction::Clwb,
        FlushInstruction::Clflushopt,
        FlushInstruction::Clflush,
    ]
    .into_iter()
    .find(|instruction| supports(*instruction))
}

/// Whether this CPU has `instruction` (CPUID leaf 7: EBX bit 24 is CLWB,
/// bit 23 CLFLUSHOPT; CLFLUSH is part of SSE2, so always present).
#[cfg(target_arch = "x86_64")]
fn supports(instruction: FlushInstruction) -> bool {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    // SAFETY: CPUID exists on every x86_64 CPU; leaf 7 is read only when
    // leaf 0 says it exists. (The intrinsics are safe on newer compilers.)
    #[allow(unused_unsafe)]
    let leaf7_ebx = unsafe {
        if __cpuid(0).eax >= 7 {
            __cpuid_count(7, 0).ebx
        } else {
            0
        }
    };
    match instruction {
        FlushInstruction::Clwb => leaf7_ebx & (1 << 24) != 0,
        FlushInstruction::Clflushopt => leaf7_ebx & (1 << 23) != 0,
        FlushInstruction::Clflush => true,
    }
}

/// No supported write-back instruction outside x86_64.
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn best_instruction() -> Option<FlushInstruction> {
    None
}

/// Writes back every cache line that `words` touches, with `instruction`,
/// which the caller guarantees this CPU supports (from
/// [`best_instruction`]). Not ordered: follow with [`sfence`].
#[cfg(target_arch = "x86_64")]
pub(super) fn write_back(instruction: FlushInstruction, words: &[AtomicU64]) {
    use std::arch::asm;
    // One word per 64-byte line is enough: the slice starts line-aligned
    // (callers pass covering lines of a page-aligned mapping), and if it did
    // not, the extra first line would only be flushed needlessly.
    for word in words.iter().step_by(8) {
        let line: *const AtomicU64 = word;
        // SAFETY: `line` comes from a live reference, so the address is
        // mapped; the instructions only write the line back (contents and
        // Rust-visible state unchanged) and are supported by this CPU per
        // the caller's guarantee. No `nomem`: the compiler must not move
        // earlier stores past the flush.
        unsafe {
            match instruction {
                FlushInstruction::Clwb => {
                    asm!("clwb [{0}]", in(reg) line, options(nostack, preserves_flags))
                }
                FlushInstruction::Clflushopt => {
                    asm!("clflushopt [{0}]", in(reg) line, options(nostack, preserves_flags))
                }
                FlushInstruction::Clflush => {
                    asm!("clflush [{0}]", in(reg) line, options(nostack, preserves_flags))
                }
            }
        }
    }
}

/// Unreachable outside x86_64: no `Dax` mode is ever chosen there.
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn write_back(_instruction: FlushInstruction, _words: &[AtomicU64]) {}

/// Orders every earlier store and write-back before any later store.
#[cfg(target_arch = "x86_64")]
pub(super) fn sfence() {
    // SAFETY: sfence (SSE, always present on x86_64) only orders stores.
    unsafe { std::arch::asm!("sfence", options(nostack, preserves_flags)) }
}

/// A full fence outside x86_64 (never used for durability there).
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn sfence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// Every instruction this CPU claims runs on ordinary memory.
    #[test]
    fn supported_instructions_run() {
        let words: Vec<AtomicU64> = (0..64).map(AtomicU64::new).collect();
        assert!(best_instruction().is_some(), "x86_64 always has clflush");
        for instruction in [
            FlushInstruction::Clwb,
            FlushInstruction::Clflushopt,
            FlushInstruction::Clflush,
        ] {
            if supports(instruction) {
                write_back(instruction, &words);
                sfence();
            }
        }
        assert_eq!(words[63].load(std::sync::atomic::Ordering::Relaxed), 63);
    }
}
