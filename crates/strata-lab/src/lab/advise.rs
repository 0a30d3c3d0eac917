//! `strata advise`: placeholder until step 4.
use crate::LabError;
/// Arguments of `strata advise`.
#[derive(Debug, Clone, clap::Args)]
pub struct AdviseArgs {}
/// Recommends.
pub fn run(_a: &AdviseArgs) -> Result<String, LabError> {
    Err(LabError::NotAvailable("advise: not yet".into()))
}
