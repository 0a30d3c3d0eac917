//! The search indices' tier (dram / ssd with a small cache / pmem) for a
//! workload, from `strata lab search-tiers`: indexing throughput, dashboard
//! latency, and latency while indexing (the mixed phase at 60% of each tier's
//! indexing rate). A write-heavy workload (half or more writes) is decided by
//! indexing throughput, a read-heavy one by dashboard latency.

use strata_units::human;

use super::choice::{choose, Advice, Considered, Figure, Goal, Restart};
use super::evidence::Evidence;
use super::workload::{Durability, Workload};

/// (row label in search-tiers, `--search-tier`).
const TIERS: [(&str, &str); 3] = [
    ("dram", "dram"),
    ("ssd, small cache", "ssd"),
    ("pmem", "pmem"),
];

/// Recommends a search tier; `None` when the workload has no search indices.
pub fn advise(w: &Workload, evidence: &Evidence) -> Option<Advice> {
    let index_bytes = w.search_index_bytes?;
    let mut advice = Advice::default();
    let run = match evidence.pick("search-tiers", None) {
        Ok(run) => run,
        Err(why) => {
            advice.not_covered.push(format!(
                "{why}: no search tier is recommended (run `strata lab search-tiers`)"
            ));
            return Some(advice);
        }
    };
    advice.sources.push(format!("search-tiers: {}", run.cite()));
    let cache = run
        .parameters
        .get("ssd_cache")
        .and_then(|v| v.as_str())
        .and_then(|s| super::workload::parse_size(s).ok());
    for (label, tier) in TIERS {
        let fig = |step: &str, figure: &str, what: &str| {
            run.median(label, step, figure)
                .map(|v| Figure::new(v, format!("search-tiers, {what}")))
        };
        let dram = match tier {
            "dram" => Some(Figure::new(
                index_bytes as f64,
                "at least the indices: every segment in DRAM",
            )),
            "ssd" => cache.map(|c| {
                Figure::new(
                    c as f64,
                    "the block cache the run used (--search-cache-size); more caches more",
                )
            }),
            _ => None,
        };
        let mut extra = Vec::new();
        for (name, step, figure) in [
            ("mixed relative ms", "mixed 60%", "relative_ms"),
            ("mixed current ms", "mixed 60%", "current_ms"),
        ] {
            if let Some(f) = fig(step, figure, "mixed phase at 60% of the indexing rate") {
                extra.push((name.to_owned(), f));
            }
        }
        let excluded = if tier == "dram" && index_bytes > w.dram_budget {
            Some(format!(
                "the indices ({}) are over the DRAM budget of {}",
                human(index_bytes),
                human(w.dram_budget)
            ))
        } else if tier == "pmem" && w.pmem_budget == 0 {
            Some("needs persistent memory; the workload has none (--pmem-budget)".into())
        } else {
            None
        };
        advice.options.push(Considered {
            name: label.into(),
            flags: format!("--search-tier {tier} (or index.store.tier)"),
            // Indexing requests are acknowledged after the translog's fsync in every tier.
            keeps: Durability::EveryWrite,
            throughput: fig("index+query", "docs_per_sec", "bulk indexing docs/s"),
            latency: fig("index+query", "search_ms", "dashboard mean ms"),
            extra,
            restart: Restart::NotMeasured("search-tiers does not time restarts".into()),
            dram,
            pmem: None,
            excluded,
        });
    }
    let goal = if w.read_fraction <= 0.5 {
        Goal::Throughput
    } else {
        Goal::Latency
    };
    choose(&mut advice, goal);
    if let Some(docs) = run.number("docs") {
        advice.notes.push(format!(
            "measured with {docs:.0} eventdata documents{}; the DRAM budget is weighed for the \
             indices alone (the KV store's share is not subtracted)",
            if run.quick {
                " (quick sizes: indicative only)"
            } else {
                ""
            }
        ));
    }
    Some(advice)
}
