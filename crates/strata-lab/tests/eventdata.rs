//! End-to-end runs of `bench eventdata` against the in-test fake Elasticsearch: the HTTP
//! client, bulk and search error counting, the count check, pacing and the report (counts
//! and ranges, never exact timings).

use crate::fake_es;

use fake_es::{FakeEs, Faults};
use strata_lab::eventdata::queries::WindowKind;
use strata_lab::eventdata::{report, run_eventdata, EventdataArgs, EventdataResult};
use strata_lab::LabError;

fn args(url: &str, extra: &[&str]) -> EventdataArgs {
    let mut argv = vec!["--url", url, "--quiet", "--fresh"];
    argv.extend_from_slice(extra);
    EventdataArgs::try_parse_from(argv).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_and_query_phases_count_everything() {
    let faults = Faults {
        item_error_every: Some(4),
        no_geohash: true,
        ..Faults::default()
    };
    let es = FakeEs::start(faults).await;
    let extra = [
        "--phases",
        "index,query",
        "--docs",
        "5000",
        "--bulk-size",
        "500",
        "--clients",
        "3",
        "--query-iterations",
        "2",
        "--event-rate",
        "2",
    ];
    let result = run_eventdata(&args(&es.url, &extra)).await.unwrap();

    let seen = es.seen.lock().unwrap();
    let mapping = seen.created_with.as_ref().expect("index created");
    assert_eq!(mapping["settings"]["index"]["number_of_shards"], 2);
    let location = &mapping["mappings"]["properties"]["nginx"]["properties"]["access"]
        ["properties"]["geoip"]["properties"]["location"];
    assert_eq!(location["type"], "geo_point");
    for (method, path, content_type) in &seen.requests {
        let expected = if path.ends_with("_bulk") || path.ends_with("_msearch") {
            "application/x-ndjson"
        } else {
            "application/json"
        };
        assert_eq!(content_type, expected, "{method} {path}");
    }

    assert_eq!(result.server.version.as_deref(), Some("8.15.0"));
    assert!(result.setup.created && !result.setup.deleted);
    let index = result.index.as_ref().unwrap();
    assert_eq!((index.docs_sent, index.bulks), (5000, 10));
    // Bulks 4 and 8 each lost one item.
    assert_eq!((index.docs_indexed, index.errors.count), (4998, 2));
    assert!(index
        .errors
        .first
        .as_deref()
        .unwrap()
        .contains("es_rejected_execution_exception"));
    assert_eq!(index.count.actual, Some(4998));
    assert!(index.count.ok());
    assert_eq!((index.store_size_bytes, index.segments), (None, Some(3)));
    assert!(
        result.notes.iter().any(|n| n.contains("_stats")),
        "{:?}",
        result.notes
    );
    assert_eq!(index.timeline.iter().map(|s| s.docs).sum::<u64>(), 4998);
    assert!(index.docs_per_sec > 0.0 && index.bulk_latency_ms.max > 0.0);

    let query = result.query.as_ref().unwrap();
    // 5000 documents at 2 per simulated second span 2499.5 s.
    assert_eq!(query.newest_ms - query.oldest_ms, 2_499_500);
    assert_eq!(query.queries.len(), 18);
    assert_eq!(seen.msearches, 36);
    for row in &query.queries {
        assert_eq!(row.runs, 2, "{row:?}");
        // Each traffic msearch has one geohash search, which the fake rejects.
        let expected = if row.dashboard == "traffic" { 2 } else { 0 };
        assert_eq!(row.errors.count, expected, "{row:?}");
    }
    assert_eq!(query.errors.count, 12);
    assert!(query
        .errors
        .first
        .as_deref()
        .unwrap()
        .contains("geohash_grid"));
    let kinds: Vec<(WindowKind, u64)> = query.by_kind.iter().map(|k| (k.kind, k.runs)).collect();
    assert_eq!(
        kinds,
        [(WindowKind::Current, 18), (WindowKind::Relative, 18)]
    );
    result.check().unwrap();

    let text = report::render(&result);
    for needle in [
        "index: 3 clients",
        "_count: 4998 as expected",
        "content_issues",
        "relative-75%",
        "failed searches: 12",
    ] {
        assert!(text.contains(needle), "report lacks {needle}:\n{text}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eventdata.json");
    result.write_json(&path).unwrap();
    let back: EventdataResult = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(back, result);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_phase_indexes_at_the_target_rate_while_querying() {
    let es = FakeEs::start(Faults::default()).await;
    let extra = [
        "--phases",
        "index,mixed",
        "--docs",
        "1000",
        "--bulk-size",
        "100",
        "--clients",
        "2",
        "--mixed-rate",
        "2000",
        "--mixed-duration",
        "1.5",
    ];
    let result = run_eventdata(&args(&es.url, &extra)).await.unwrap();
    let mixed = result.mixed.as_ref().unwrap();
    // 1.5 s at 2000 docs/s plus the one bulk a full bucket lets through at once.
    assert!((2000..=3100).contains(&mixed.docs_indexed), "{mixed:?}");
    assert!(mixed.achieved_docs_per_sec <= 2100.0, "{mixed:?}");
    assert_eq!(mixed.index_errors.count, 0);
    assert!(mixed.count.ok(), "{:?}", mixed.count);
    assert_eq!(mixed.count.expected, 1000 + mixed.docs_indexed);
    let kinds: Vec<WindowKind> = mixed.by_kind.iter().map(|k| k.kind).collect();
    assert_eq!(kinds, [WindowKind::Current, WindowKind::Relative]);
    assert!(mixed.queries.iter().map(|q| q.runs).sum::<u64>() >= 6);
    assert_eq!(mixed.query_errors.count, 0);
    // Every run is listed, in the order sent, each row's first as its first run.
    let total: u64 = mixed.queries.iter().map(|q| q.runs).sum();
    assert_eq!(mixed.runs.len() as u64, total);
    assert!(mixed.runs.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    for row in &mixed.queries {
        let first = mixed
            .runs
            .iter()
            .find(|r| r.dashboard == row.dashboard && r.window == row.window)
            .unwrap();
        assert_eq!(row.first_run_ms, Some(first.ms));
    }
    // The mixed documents continue the log after the first 1000.
    let seen = es.seen.lock().unwrap();
    let (oldest, newest) = seen.span.unwrap();
    // At 1000 events per simulated second, document n is n ms after document 0.
    let last = i64::try_from(1000 + mixed.docs_indexed - 1).unwrap();
    assert!(newest - oldest >= last, "{oldest} {newest}");
    result.check().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_bulks_and_wrong_counts_are_reported() {
    let faults = Faults {
        reject_bulk_every: Some(2),
        count_offset: 1,
        ..Faults::default()
    };
    let es = FakeEs::start(faults).await;
    let extra = [
        "--phases",
        "index",
        "--docs",
        "1000",
        "--bulk-size",
        "250",
        "--clients",
        "1",
    ];
    let result = run_eventdata(&args(&es.url, &extra)).await.unwrap();
    let index = result.index.as_ref().unwrap();
    assert_eq!((index.docs_indexed, index.errors.count), (500, 500));
    assert!(
        index
            .errors
            .first
            .as_deref()
            .unwrap()
            .starts_with("HTTP 429"),
        "{:?}",
        index.errors
    );
    assert_eq!((index.count.expected, index.count.actual), (500, Some(501)));
    assert!(matches!(result.check(), Err(LabError::Check(_))));
    assert!(report::render(&result).contains("MISMATCH"));
}

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error() {
    // Bind and drop a listener to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    match run_eventdata(&args(&url, &["--timeout", "5"])).await {
        Err(LabError::Http { request, reason }) => {
            assert_eq!(request, format!("GET {url}/"));
            assert!(!reason.is_empty());
        }
        other => panic!("expected an HTTP error, got {other:?}"),
    }
}
