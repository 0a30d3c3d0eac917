//! Node-level JSON files (`aliases.json`, `templates.json`,
//! `cluster_settings.json` under the catalog root): written to a temporary
//! file, fsynced, renamed over the old one and the directory fsynced, so a
//! crash leaves either the old or the new whole file, never a torn one.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::error::{Result, SearchError};

/// Replaces `path` with `value`, durably.
pub fn save(path: &Path, value: &Value) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    let io = |what: &str, e| SearchError::io(format!("{what} {}", tmp.display()), e);
    let bytes =
        serde_json::to_vec_pretty(value).map_err(|e| SearchError::illegal(e.to_string()))?;
    {
        let mut f = std::fs::File::create(&tmp).map_err(|e| io("create", e))?;
        f.write_all(&bytes).map_err(|e| io("write", e))?;
        f.sync_data().map_err(|e| io("sync", e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| io("rename", e))?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io("sync directory of", e))?;
    }
    Ok(())
}

/// The JSON in `path`; `None` when the file does not exist. A damaged file
/// is an error: silently starting empty would lose aliases or templates.
pub fn load(path: &Path) -> Result<Option<Value>> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| SearchError::illegal(format!("damaged {}: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SearchError::io(format!("read {}", path.display()), e)),
    }
}
