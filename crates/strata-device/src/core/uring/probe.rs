//! [`uring_available`]: whether this process may use io_uring at all,
//! probed once.

use std::sync::OnceLock;

use io_uring::{opcode, register::Probe, IoUring};

/// Whether this process can read through io_uring: `Err` says why not
/// (an old kernel, seccomp, the `kernel.io_uring_disabled` sysctl, a
/// memlock limit). Probed once per process, with a small ring that must
/// support the read opcode.
pub fn uring_available() -> Result<(), String> {
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    PROBED
        .get_or_init(|| {
            let ring = IoUring::new(2).map_err(|e| format!("io_uring setup failed: {e}"))?;
            let mut probe = Probe::new();
            ring.submitter()
                .register_probe(&mut probe)
                .map_err(|e| format!("io_uring probe failed: {e}"))?;
            match probe.is_supported(opcode::Read::CODE) {
                true => Ok(()),
                false => Err("io_uring does not support reads on this kernel".to_owned()),
            }
        })
        .clone()
}
