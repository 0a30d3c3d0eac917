//! placeholder
use crate::LabError;
use std::path::PathBuf;
#[derive(Debug, Clone, clap::Args)]
pub struct SearchTiersArgs {
    #[command(flatten)]
    pub common: super::CommonArgs,
}
pub fn run(_c: &SearchTiersArgs) -> Result<PathBuf, LabError> {
    Err(LabError::NotAvailable("search-tiers: not yet".into()))
}
