//! placeholder
use crate::LabError;
use std::path::PathBuf;
#[derive(Debug, Clone, clap::Args)]
pub struct OltpArgs {
    #[command(flatten)]
    pub common: super::CommonArgs,
}
pub fn run(_c: &OltpArgs, _h: &super::Hooks) -> Result<PathBuf, LabError> {
    Err(LabError::NotAvailable("oltp: not yet".into()))
}
