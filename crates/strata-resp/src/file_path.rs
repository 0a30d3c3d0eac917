//! A configured file path split the way strata-device's [`Directory`]
//! wants it: the directory holding the file and the file's name. Used by
//! the files the front end rewrites in place (`aclfile`, the cluster
//! config file). A leaf.
//!
//! [`Directory`]: strata_device::Directory

use std::io;
use std::path::Path;

/// `path`'s directory (`.` for a bare name) and its UTF-8 file name.
pub(crate) fn split(path: &Path) -> io::Result<(&Path, &str)> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a UTF-8 file name"))?;
    Ok((dir, name))
}
