//! Word count and logistic regression give the answer of a plain
//! in-memory computation at every budget: unbounded, and pools so small
//! that the aggregation spills and the cached table lives on the SSD.

use crate::support;

use std::fmt::Write as _;

use strata_analytics::bench::generate::{write_points, SplitMix64};
use strata_analytics::jobs::{logreg, wordcount};
use strata_analytics::tier::TierCounters;
use support::*;

/// Text of many distinct words (so that counting them needs more memory
/// than a small pool), mixed case and punctuation, some non-ASCII.
fn many_words_text(words: usize, distinct: u64, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut text = String::new();
    for i in 0..words {
        let n = rng.below(distinct);
        let _ = match n % 7 {
            0 => write!(text, "Wörd{n}"),
            1 => write!(text, "W{n}!"),
            _ => write!(text, "w{n}"),
        };
        text.push(if i % 12 == 11 { '\n' } else { ' ' });
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn word_counts_match_a_plain_count_at_every_budget() {
    let _alone = support::jobs_alone().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("words.txt");
    let text = many_words_text(1_500_000, 400_000, 3);
    std::fs::write(&path, &text).unwrap();
    let plain = plain_word_counts(&text);
    let mut expected: Vec<(String, u64)> = plain.iter().map(|(w, c)| (w.clone(), *c)).collect();
    expected.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    expected.truncate(25);
    let input = input(&path);
    let args = wordcount_args(&[
        "--input",
        path.to_str().unwrap(),
        "--dram-budget",
        "1gb",
        "--top",
        "25",
    ]);
    for pool in [None, Some(64 << 20), Some(20 << 20)] {
        let mut run = run_with_pool(pool, &dir.path().join("spill"), 2);
        let result = wordcount::wordcount(&mut run, &input, &args).await.unwrap();
        let got: Vec<(String, u64)> = result
            .top
            .iter()
            .map(|w| (w.word.clone(), w.count))
            .collect();
        assert_eq!(got, expected, "pool {pool:?}");
        assert_eq!(result.distinct_words, plain.len() as u64, "pool {pool:?}");
        assert_eq!(
            result.total_words,
            plain.values().sum::<u64>(),
            "pool {pool:?}"
        );
        let spilled = TierCounters::get(&run.engine.area.counters().spilled);
        if pool == Some(20 << 20) {
            assert!(spilled > 0, "a 20 MiB pool must make the aggregation spill");
        }
        if pool.is_none() {
            assert_eq!(spilled, 0);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logistic_regression_matches_plain_gradient_descent_at_every_budget() {
    let _alone = support::jobs_alone().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("points.csv");
    write_points(&path, 3 << 20, 9).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let (weights, losses) = plain_logreg(&text, 6, 1.0);
    let input = input(&path);
    let mut first: Option<Vec<f64>> = None;
    // (pool, cached share in percent): all resident, part, none.
    for (pool, share) in [(None, "85"), (Some(24 << 20), "20"), (Some(24 << 20), "0")] {
        for compression in ["none", "lz4"] {
            let args = logreg_args(&[
                "--input",
                path.to_str().unwrap(),
                "--dram-budget",
                "1gb",
                "--iterations",
                "6",
                "--cache-share",
                share,
                "--cache-compression",
                compression,
            ]);
            let mut run = run_with_pool(pool, &dir.path().join("spill"), 2);
            let (result, dataset) = logreg::logreg(&mut run, &input, &args).await.unwrap();
            assert_eq!(result.features.len(), 10);
            for (got, want) in result.weights.iter().zip(&weights) {
                assert!(
                    close(*got, *want),
                    "pool {pool:?} share {share}: {got} vs {want}"
                );
            }
            for (got, want) in result.losses.iter().zip(&losses) {
                assert!(close(*got, *want), "{got} vs {want}");
            }
            // The budget and the cache's placement change where segments
            // live, never which rows they hold: models agree to rounding
            // (which partition's rows come first is up to the file scan).
            let first = first.get_or_insert(result.weights.clone());
            for (got, want) in result.weights.iter().zip(first.iter()) {
                assert!(
                    (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "pool {pool:?} share {share} compression {compression}: {got} vs {want}"
                );
            }
            let summary = dataset.summary();
            let read = TierCounters::get(&run.engine.area.counters().cache_read);
            match share {
                "85" => assert_eq!((summary.ssd_segment_bytes, read), (0, 0)),
                "0" => assert_eq!(summary.resident_segments, 0),
                _ => assert!(summary.resident_segments > 0 && summary.ssd_segment_bytes > 0),
            }
            if share != "85" {
                assert!(
                    read >= 6 * summary.ssd_bytes,
                    "every pass reads the SSD part"
                );
            }
        }
    }
}
