//! `strata advise` on recorded results (tests/fixtures/advise: a kv-placement
//! run at 100-byte values and 1,000,000 keys, durable-cache runs with a fast
//! and a slow log device, a search-tiers run) for workloads whose answer is
//! clear from the figures, and for questions the results do not cover.

use std::path::Path;

use strata_lab::advise::choice::Restart;
use strata_lab::advise::workload::{Durability, RestartWeight, Skew, Workload};
use strata_lab::advise::{recommend, render, Evidence, Recommendation};

const GB: u64 = 1 << 30;

/// A results directory holding the named fixtures, one run directory each.
fn results(fixtures: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/advise");
    for name in fixtures {
        let run = dir.path().join(name.trim_end_matches(".json"));
        std::fs::create_dir_all(&run).unwrap();
        std::fs::copy(src.join(name), run.join("results.json")).unwrap();
    }
    dir
}

fn workload() -> Workload {
    Workload {
        read_fraction: 0.5,
        value_size: 100,
        keys: 1_000_000,
        skew: Skew::Uniform,
        dram_budget: 8 * GB,
        pmem_budget: 0,
        durability: Durability::None,
        restart: RestartWeight::Irrelevant,
        search_index_bytes: None,
    }
}

fn advise(w: Workload, fixtures: &[&str]) -> Recommendation {
    let dir = results(fixtures);
    let evidence = Evidence::load(dir.path()).unwrap();
    assert!(evidence.unreadable.is_empty(), "{:?}", evidence.unreadable);
    let rec = recommend(w, &evidence);
    // The text names the choice and every alternative.
    let text = render(&rec);
    if let Some(c) = rec.kv.choice() {
        assert!(text.contains(&format!("Recommended: {}", c.name)), "{text}");
    }
    for o in &rec.kv.options {
        assert!(text.contains(&o.name), "{} missing from:\n{text}", o.name);
    }
    rec
}

fn chosen(rec: &Recommendation) -> &str {
    &rec.kv.choice().expect("a recommendation").name
}

#[test]
fn a_small_cache_in_dram_is_fastest_in_dram() {
    let rec = advise(workload(), &["kv-placement.json"]);
    assert_eq!(chosen(&rec), "index dram, data dram, persistence off");
    let c = rec.kv.choice().unwrap();
    assert_eq!(c.throughput.as_ref().unwrap().value, 320e3);
    assert_eq!(c.restart, Restart::Empty);
    // 180 B per key measured, 1,000,000 keys.
    assert_eq!(c.dram.as_ref().unwrap().value, 180e6);
    assert!(rec.kv.not_covered.is_empty());
}

#[test]
fn data_larger_than_dram_goes_to_the_ssd() {
    let w = Workload {
        keys: 100_000_000, // 11.6 GB of keys and values, 18 GB in DRAM
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json"]);
    assert_eq!(chosen(&rec), "index dram, data ssd");
    let dram = rec
        .kv
        .options
        .iter()
        .find(|o| o.name == "index dram, data dram, persistence off")
        .unwrap();
    assert!(dram.excluded.as_ref().unwrap().contains("over the budget"));
    let pmem = rec
        .kv
        .options
        .iter()
        .find(|o| o.name == "index pmem, data pmem")
        .unwrap();
    assert!(pmem.excluded.as_ref().unwrap().contains("--pmem-budget"));
}

#[test]
fn a_budget_leaving_little_record_cache_is_flagged() {
    let w = Workload {
        keys: 100_000_000,
        dram_budget: 6 * GB, // 6e9 B of index and stubs, little left for values
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json"]);
    assert_eq!(chosen(&rec), "index dram, data ssd");
    assert!(
        rec.kv.notes.iter().any(|n| n.contains("record cache")),
        "{:?}",
        rec.kv.notes
    );
}

#[test]
fn restart_time_decides_for_the_pmem_index() {
    let w = Workload {
        durability: Durability::Bounded,
        restart: RestartWeight::Decides,
        pmem_budget: 16 * GB,
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json", "durable-cache-fast-log.json"]);
    assert_eq!(chosen(&rec), "index pmem, data pmem");
    // Without persistent memory the fastest restart left is the SSD's scan.
    let w = Workload {
        durability: Durability::Bounded,
        restart: RestartWeight::Decides,
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json", "durable-cache-fast-log.json"]);
    assert_eq!(chosen(&rec), "index dram, data ssd");
}

#[test]
fn a_fast_log_makes_sync_worth_it() {
    let w = Workload {
        durability: Durability::Bounded,
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json", "durable-cache-fast-log.json"]);
    assert_eq!(chosen(&rec), "index dram, data dram, persistence sync");
    let c = rec.kv.choice().unwrap();
    // kv-placement's 320k at 50/50 x sync's 0.94 of no log in durable-cache.
    assert!((c.throughput.as_ref().unwrap().value - 320e3 * 0.94).abs() < 1.0);
    assert_eq!(c.keeps, Durability::EveryWrite);
    assert!(
        rec.kv.because.contains("keeps the most"),
        "{}",
        rec.kv.because
    );
}

#[test]
fn a_slow_log_leaves_async_unless_every_write_counts() {
    let w = Workload {
        durability: Durability::Bounded,
        ..workload()
    };
    let rec = advise(
        w.clone(),
        &["kv-placement.json", "durable-cache-slow-log.json"],
    );
    assert_eq!(chosen(&rec), "index dram, data dram, persistence async");
    let sync = rec
        .kv
        .options
        .iter()
        .find(|o| o.name.ends_with("persistence sync"))
        .unwrap();
    assert!(sync.excluded.is_none());
    assert!(sync.throughput.as_ref().unwrap().value < 40e3);
    assert!(render(&rec).contains("0.10x the throughput"));

    let w = Workload {
        durability: Durability::EveryWrite,
        ..w
    };
    let rec = advise(
        w.clone(),
        &["kv-placement.json", "durable-cache-slow-log.json"],
    );
    assert_eq!(chosen(&rec), "index dram, data dram, persistence sync");
    // With persistent memory, records there beat waiting for the slow log.
    let w = Workload {
        pmem_budget: 16 * GB,
        ..w
    };
    let rec = advise(w, &["kv-placement.json", "durable-cache-slow-log.json"]);
    assert_eq!(chosen(&rec), "index dram, data pmem");
}

#[test]
fn an_uncovered_value_size_is_said_not_guessed() {
    let w = Workload {
        value_size: 4096,
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json", "durable-cache-fast-log.json"]);
    assert!(rec.kv.choice().is_none());
    assert!(rec.kv.options.is_empty());
    assert!(
        rec.kv.not_covered[0].contains("value size near 4096 B (runs at: 100 B)"),
        "{:?}",
        rec.kv.not_covered
    );
    assert!(render(&rec).contains("Not covered by the results"));
}

#[test]
fn a_missing_durable_cache_run_is_reported() {
    let w = Workload {
        durability: Durability::Bounded,
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json"]);
    assert!(rec
        .kv
        .not_covered
        .iter()
        .any(|n| n.contains("durable-cache")));
    // Only the SSD placement keeps writes without the log (no pmem here).
    assert_eq!(chosen(&rec), "index dram, data ssd");
    assert!(rec
        .kv
        .options
        .iter()
        .all(|o| !o.name.contains("persistence async")));
}

#[test]
fn no_results_at_all() {
    let rec = advise(workload(), &[]);
    assert!(rec.kv.choice().is_none());
    assert!(rec.kv.not_covered[0].contains("no `strata lab kv-placement` results"));
    assert!(rec.search.is_none());
}

#[test]
fn search_tier_by_budget_and_mix() {
    // Indices larger than DRAM and no persistent memory: the SSD tier.
    let w = Workload {
        search_index_bytes: Some(50 * GB),
        ..workload()
    };
    let rec = advise(w, &["search-tiers.json"]);
    let search = rec.search.as_ref().unwrap();
    assert_eq!(search.choice().unwrap().name, "ssd, small cache");
    assert!(search.options[0].excluded.is_some());

    // Read-heavy, indices in the budget: the lowest dashboard latency.
    let w = Workload {
        read_fraction: 0.9,
        search_index_bytes: Some(4 * GB),
        ..workload()
    };
    let rec = advise(w, &["search-tiers.json"]);
    assert_eq!(rec.search.as_ref().unwrap().choice().unwrap().name, "dram");

    // Write-heavy with persistent memory: pmem indexes fastest.
    let w = Workload {
        read_fraction: 0.1,
        pmem_budget: 64 * GB,
        search_index_bytes: Some(4 * GB),
        ..workload()
    };
    let rec = advise(w, &["search-tiers.json"]);
    assert_eq!(rec.search.as_ref().unwrap().choice().unwrap().name, "pmem");

    // Asked without a search-tiers run: said so.
    let w = Workload {
        search_index_bytes: Some(GB),
        ..workload()
    };
    let rec = advise(w, &["kv-placement.json"]);
    let search = rec.search.as_ref().unwrap();
    assert!(search.choice().is_none());
    assert!(search.not_covered[0].contains("search-tiers"));
}

#[test]
fn unreadable_results_are_listed() {
    let dir = results(&["kv-placement.json"]);
    let bad = dir.path().join("broken");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("results.json"), "{not json").unwrap();
    let evidence = Evidence::load(dir.path()).unwrap();
    assert_eq!(evidence.runs.len(), 1);
    assert_eq!(evidence.unreadable.len(), 1);
    assert!(Evidence::load(&dir.path().join("absent")).is_err());
}
