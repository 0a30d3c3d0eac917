//! [`DataStreams`]: the node's set of data stream names, kept in
//! `<root>/data_streams.json`. A leaf the node holds; what a stream does
//! is in the parent module.

use std::collections::BTreeSet;
use std::path::PathBuf;

use parking_lot::Mutex;
use serde_json::{json, Value};
use strata_search::{SearchError, SearchFiles};

use crate::error::Result;

/// The node's data stream names, persisted.
#[derive(Debug)]
pub struct DataStreams {
    files: SearchFiles,
    path: PathBuf,
    pub(super) names: Mutex<BTreeSet<String>>,
}

impl DataStreams {
    /// Loads the names kept under `root` in the node's `files` (none when
    /// the file is missing).
    pub fn open(files: &SearchFiles, root: &std::path::Path) -> Result<DataStreams, SearchError> {
        let path = root.join("data_streams.json");
        let names = match files.load_json(&path)? {
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => BTreeSet::new(),
        };
        Ok(DataStreams {
            files: files.clone(),
            path,
            names: Mutex::new(names),
        })
    }

    /// Whether `name` is a data stream.
    pub fn contains(&self, name: &str) -> bool {
        self.names.lock().contains(name)
    }

    /// Every stream name.
    pub fn names(&self) -> Vec<String> {
        self.names.lock().iter().cloned().collect()
    }

    /// Saves `names` as the stream names, durably.
    pub(super) fn save(&self, names: &BTreeSet<String>) -> Result<()> {
        let list: Vec<&String> = names.iter().collect();
        self.files.save_json(&self.path, &json!(list))?;
        Ok(())
    }
}
