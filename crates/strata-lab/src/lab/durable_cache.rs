//! placeholder
use super::CommonArgs;
use crate::LabError;
use std::path::PathBuf;
pub fn run(_c: &CommonArgs) -> Result<PathBuf, LabError> {
    Err(LabError::NotAvailable("durable-cache: not yet".into()))
}
