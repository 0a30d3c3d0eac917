//! Device names: one plain path component, checked the same way by every
//! directory so that a name valid in memory is valid on disk too.

use std::io;

/// Checks that `name` is one plain file name: not empty, not `.` or `..`,
/// without `/` or NUL.
pub(crate) fn check(name: &str) -> io::Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid device name {name:?}: expected one plain file name"),
        ));
    }
    Ok(())
}
