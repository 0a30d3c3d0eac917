//! Node-level and index-level JSON files (`aliases.json`, `templates.json`,
//! `scripts.json`, each index's `index.json`; `cluster_settings.json` and
//! friends in the HTTP crate): replaced through the device layer's one
//! atomic replace ([`Directory::replace`]: temporary device, sync, rename,
//! sync of the names), so a crash leaves either the old or the new whole
//! file, never a torn one, and the power-cut and fault devices reach them.

use std::io;
use std::path::Path;

use serde_json::Value;
use strata_device::{Directory, FsDirectory, SyncMode};

use crate::error::{Result, SearchError};

/// Replaces `name` in `dir` with `value`, durably. `what` names the file in
/// errors.
pub(crate) fn save_in(dir: &dyn Directory, name: &str, value: &Value, what: &Path) -> Result<()> {
    dir.replace(name, &bytes_of(value)?)
        .map_err(|e| SearchError::io(format!("replace {}", what.display()), e))
}

/// The JSON in `name` of `dir`; `None` when there is no such file. A
/// damaged file is an error: silently starting empty would lose aliases or
/// templates.
pub(crate) fn load_in(dir: &dyn Directory, name: &str, what: &Path) -> Result<Option<Value>> {
    match dir.read_all(name) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| SearchError::illegal(format!("damaged {}: {e}", what.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SearchError::io(format!("read {}", what.display()), e)),
    }
}

/// Replaces the file `path` with `value`, durably, in its directory on the
/// real filesystem (a node's files go through its tree instead:
/// [`SearchFiles::save_json`](crate::store::SearchFiles::save_json)), with
/// owner-only permissions (0600) from the moment the file exists: it is
/// for files holding credentials (API key hashes), which no other local
/// user may read.
pub fn save_private(path: &Path, value: &Value) -> Result<()> {
    let (dir, name) = on_disk(path)?;
    dir.replace_with_permissions(name, &bytes_of(value)?, 0o600)
        .map_err(|e| SearchError::io(format!("replace {}", path.display()), e))
}

/// The JSON in the file `path`; `None` when it does not exist ([`load_in`]
/// on an [`FsDirectory`]).
pub fn load(path: &Path) -> Result<Option<Value>> {
    let (dir, name) = on_disk(path)?;
    load_in(&dir, name, path)
}

fn bytes_of(value: &Value) -> Result<Vec<u8>> {
    serde_json::to_vec_pretty(value).map_err(|e| SearchError::illegal(e.to_string()))
}

fn on_disk(path: &Path) -> Result<(FsDirectory, &str)> {
    let name = path.file_name().and_then(|n| n.to_str());
    let (Some(parent), Some(name)) = (path.parent(), name) else {
        return Err(SearchError::illegal(format!(
            "{} is not a file path",
            path.display()
        )));
    };
    let dir = FsDirectory::open(parent, SyncMode::Fdatasync)
        .map_err(|e| SearchError::io(format!("open {}", parent.display()), e))?;
    Ok((dir, name))
}
