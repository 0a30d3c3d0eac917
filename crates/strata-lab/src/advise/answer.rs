//! Both answers for one workload: the KV store's and, when search indices
//! were described, the search tier's, with the result files not read.

use super::choice::Advice;
use super::evidence::Evidence;
use super::workload::Workload;
use super::{kv, search};

/// Both recommendations for a workload.
#[derive(Debug, Clone)]
pub struct Recommendation {
    /// The workload.
    pub workload: Workload,
    /// The KV store's placement and persistence.
    pub kv: Advice,
    /// The search tier, when search indices were described.
    pub search: Option<Advice>,
    /// Result files that could not be read.
    pub unreadable: Vec<String>,
}

/// Answers for `workload` from `evidence`.
pub fn recommend(workload: Workload, evidence: &Evidence) -> Recommendation {
    Recommendation {
        kv: kv::advise(&workload, evidence),
        search: search::advise(&workload, evidence),
        unreadable: evidence.unreadable.clone(),
        workload,
    }
}
