//! The Prometheus metrics port of a running server: after known traffic
//! (SETs and GETs over RESP, gets over memcached, indexing and searches
//! over HTTP) a scrape reports exactly those counts, the exposition
//! parses (every sample belongs to a family with one HELP and one TYPE
//! line, histograms are cumulative and end in `+Inf` = `_count`), and the
//! port answers only `GET /metrics`.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use common::{http, resp_command, round_trip, test_config};
use strata_server::Server;
use tokio::net::TcpStream;

/// A parsed exposition: samples by `name{labels}`, and each family's type.
#[derive(Debug, Default)]
struct Exposition {
    samples: BTreeMap<String, f64>,
    types: HashMap<String, String>,
}

impl Exposition {
    /// Parses Prometheus text format 0.0.4, checking its rules.
    fn parse(text: &str) -> Exposition {
        let mut out = Exposition::default();
        let mut helps = HashMap::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# HELP ") {
                let name = rest.split(' ').next().unwrap();
                assert!(
                    helps.insert(name.to_string(), ()).is_none(),
                    "two HELP for {name}"
                );
                continue;
            }
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').unwrap();
                assert!(
                    matches!(kind, "counter" | "gauge" | "histogram"),
                    "type {kind}"
                );
                assert!(helps.contains_key(name), "TYPE before HELP for {name}");
                let old = out.types.insert(name.to_string(), kind.to_string());
                assert!(old.is_none(), "two TYPE for {name}");
                continue;
            }
            assert!(!line.starts_with('#') && !line.is_empty(), "line {line:?}");
            let (series, value) = line.rsplit_once(' ').expect("name and value");
            let value: f64 = match value {
                "+Inf" => f64::INFINITY,
                v => v.parse().unwrap_or_else(|_| panic!("value of {line:?}")),
            };
            let name = series.split('{').next().unwrap();
            assert!(
                name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && name.starts_with("strata_"),
                "name {name}"
            );
            let family = ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| {
                    name.strip_suffix(s)
                        .filter(|f| out.types.get(*f).is_some_and(|t| t == "histogram"))
                })
                .unwrap_or(name);
            assert!(out.types.contains_key(family), "sample {name} without TYPE");
            if let Some(labels) = series.strip_prefix(name) {
                if !labels.is_empty() {
                    assert!(labels.starts_with('{') && labels.ends_with('}'), "{labels}");
                    for pair in labels[1..labels.len() - 1].split("\",") {
                        let (k, v) = pair.split_once("=\"").expect("label pair");
                        assert!(
                            k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
                            "{k}"
                        );
                        assert!(!v.contains('\n'), "{v}");
                    }
                }
            }
            assert!(
                out.samples.insert(series.to_string(), value).is_none(),
                "duplicate {series}"
            );
        }
        out
    }

    fn get(&self, series: &str) -> f64 {
        *self
            .samples
            .get(series)
            .unwrap_or_else(|| panic!("no sample {series}"))
    }

    /// Checks a histogram series: buckets cumulative, `+Inf` = `_count`;
    /// returns the count.
    fn histogram_count(&self, name: &str, labels: &str) -> f64 {
        let sep = if labels.is_empty() { "" } else { "," };
        let prefix = format!("{name}_bucket{{{labels}{sep}le=\"");
        let buckets: Vec<(f64, f64)> = self
            .samples
            .iter()
            .filter_map(|(k, v)| {
                let le = k.strip_prefix(&prefix)?.strip_suffix("\"}")?;
                let le = if le == "+Inf" {
                    f64::INFINITY
                } else {
                    le.parse().unwrap()
                };
                Some((le, *v))
            })
            .collect();
        let mut sorted = buckets.clone();
        sorted.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
        assert!(sorted.len() > 2, "{name}{{{labels}}} buckets");
        assert!(
            sorted.windows(2).all(|w| w[0].1 <= w[1].1),
            "cumulative {sorted:?}"
        );
        let (last_le, last) = *sorted.last().unwrap();
        assert_eq!(last_le, f64::INFINITY);
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let count = self.get(&format!("{name}_count{braces}"));
        assert_eq!(last, count, "+Inf bucket of {name}");
        count
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scrape_after_known_traffic_reports_it_exactly() {
    const SETS: usize = 30;
    const GETS: usize = 45;
    const MC_GETS: usize = 12;
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(&dir, |c| {
        c.metrics_enabled = true;
        c.metrics_port = 0;
    });
    let server = Server::start(&config).await.unwrap();
    let metrics = server.metrics_addr().expect("metrics port on");

    let mut resp = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    for i in 0..SETS {
        round_trip(
            &mut resp,
            &resp_command(&["SET", &format!("k{i}"), "value"]),
            b"+OK\r\n",
        )
        .await;
    }
    // Every GET of a key set above hits; the rest miss.
    for i in 0..GETS {
        let want: &[u8] = if i < SETS {
            b"$5\r\nvalue\r\n"
        } else {
            b"$-1\r\n"
        };
        round_trip(&mut resp, &resp_command(&["GET", &format!("k{i}")]), want).await;
    }
    let arity = b"-ERR wrong number of arguments for 'get' command\r\n";
    round_trip(&mut resp, &resp_command(&["GET"]), arity).await;
    let not_int = b"-ERR value is not an integer or out of range\r\n";
    round_trip(&mut resp, &resp_command(&["INCR", "k0"]), not_int).await;

    let mut mc = TcpStream::connect(server.memcache_addr().unwrap())
        .await
        .unwrap();
    for _ in 0..MC_GETS {
        round_trip(&mut mc, b"get k1\r\n", b"VALUE k1 0 5\r\nvalue\r\nEND\r\n").await;
    }
    round_trip(&mut mc, b"bogus\r\n", b"ERROR\r\n").await;

    let http_addr = server.http_addr().unwrap();
    server.search_recovered().await.unwrap();
    let (status, body) = http(
        http_addr,
        "PUT",
        "/logs",
        r#"{"settings":{"number_of_shards":2}}"#,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    for (id, msg) in [(1, "disk full"), (2, "disk ok"), (3, "cpu hot")] {
        let (status, body) = http(
            http_addr,
            "PUT",
            &format!("/logs/_doc/{id}"),
            &format!(r#"{{"msg":"{msg}"}}"#),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, _) = http(http_addr, "POST", "/logs/_refresh", "").await;
    assert_eq!(status, 200);
    for _ in 0..2 {
        let (status, body) = http(
            http_addr,
            "POST",
            "/logs/_search",
            r#"{"query":{"match":{"msg":"disk"}}}"#,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(r#""value":2"#), "{body}");
    }

    let (status, text) = http(metrics, "GET", "/metrics", "").await;
    assert_eq!(status, 200, "{text}");
    let m = Exposition::parse(&text);
    let resp_cmd =
        |name: &str, cmd: &str| m.get(&format!("{name}{{protocol=\"resp\",command=\"{cmd}\"}}"));
    assert_eq!(resp_cmd("strata_commands_total", "set"), SETS as f64);
    assert_eq!(resp_cmd("strata_commands_total", "get"), GETS as f64);
    assert_eq!(resp_cmd("strata_commands_rejected_total", "get"), 1.0);
    assert_eq!(resp_cmd("strata_commands_failed_total", "get"), 0.0);
    assert_eq!(resp_cmd("strata_commands_failed_total", "incr"), 1.0);
    assert_eq!(resp_cmd("strata_commands_total", "incr"), 1.0);
    let mc_get = m.get("strata_commands_total{protocol=\"memcache\",command=\"get\"}");
    assert_eq!(mc_get, MC_GETS as f64);
    assert_eq!(m.types["strata_command_duration_seconds"], "histogram");
    let get_latency = m.histogram_count(
        "strata_command_duration_seconds",
        "protocol=\"resp\",command=\"get\"",
    );
    assert_eq!(get_latency, GETS as f64);
    let mc_latency = m.histogram_count(
        "strata_command_duration_seconds",
        "protocol=\"memcache\",command=\"get\"",
    );
    assert_eq!(mc_latency, MC_GETS as f64);
    assert!(m.get("strata_command_duration_seconds_sum{protocol=\"resp\",command=\"set\"}") > 0.0);

    assert_eq!(m.get("strata_keyspace_items"), SETS as f64);
    assert_eq!(m.get("strata_keyspace_hits_total"), (SETS + MC_GETS) as f64);
    assert_eq!(m.get("strata_keyspace_misses_total"), (GETS - SETS) as f64);
    assert!(m.get("strata_tier_used_bytes{tier=\"dram\"}") > 0.0);
    assert_eq!(m.get("strata_connections{protocol=\"resp\"}"), 1.0);
    assert_eq!(
        m.get("strata_connections_accepted_total{protocol=\"memcache\"}"),
        1.0
    );

    assert_eq!(
        m.get("strata_search_indexed_documents_total{index=\"logs\"}"),
        3.0
    );
    assert_eq!(m.get("strata_search_queries_total{index=\"logs\"}"), 2.0);
    assert_eq!(m.get("strata_search_index_documents{index=\"logs\"}"), 3.0);
    assert_eq!(
        m.histogram_count("strata_search_phase_duration_seconds", "phase=\"query\""),
        2.0
    );
    assert_eq!(
        m.histogram_count("strata_search_indexing_duration_seconds", ""),
        3.0
    );
    assert!(m.get("strata_search_query_seconds_total{index=\"logs\"}") > 0.0);
    // Persistence is off: no log figures.
    assert!(!m.types.contains_key("strata_log_syncs"));

    // Only GET /metrics.
    assert_eq!(http(metrics, "GET", "/", "").await.0, 404);
    assert_eq!(http(metrics, "POST", "/metrics", "").await.0, 405);
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_and_checkpoint_figures_with_persistence() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(&dir, |c| {
        c.metrics_enabled = true;
        c.metrics_port = 0;
        c.http_enabled = false;
        c.persistence = strata_server::config::PersistenceMode::Sync;
    });
    let server = Server::start(&config).await.unwrap();
    let mut resp = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    for i in 0..5 {
        round_trip(
            &mut resp,
            &resp_command(&["SET", &format!("k{i}"), "v"]),
            b"+OK\r\n",
        )
        .await;
    }
    round_trip(&mut resp, &resp_command(&["SAVE"]), b"+OK\r\n").await;
    let (status, text) = http(server.metrics_addr().unwrap(), "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    let m = Exposition::parse(&text);
    assert!(m.get("strata_log_records_total") >= 5.0);
    assert!(m.get("strata_log_syncs_total") >= 1.0);
    assert_eq!(
        m.get("strata_log_durable_lsn"),
        m.get("strata_log_last_lsn")
    );
    assert_eq!(m.get("strata_checkpoints_total"), 1.0);
    assert_eq!(m.get("strata_checkpoint_in_progress"), 0.0);
    assert_eq!(m.get("strata_snapshot_items"), 5.0);
    assert!(
        !m.types.contains_key("strata_search_indices"),
        "HTTP is off"
    );
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metrics_port_is_off_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&test_config(&dir, |c| c.http_enabled = false))
        .await
        .unwrap();
    assert_eq!(server.metrics_addr(), None);
    server.shutdown(Duration::from_secs(5)).await;
}

/// Every family a dashboard query names exists in some scrape: of the
/// server with search on, with persistence on, and with the SSD tier.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grafana_dashboard_queries_exported_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let configs = [
        test_config(&dir, |c| {
            c.metrics_enabled = true;
            c.metrics_port = 0;
            c.data_dir = dir.path().join("search");
        }),
        test_config(&dir, |c| {
            c.metrics_enabled = true;
            c.metrics_port = 0;
            c.http_enabled = false;
            c.data_dir = dir.path().join("persist");
            c.persistence = strata_server::config::PersistenceMode::Async;
        }),
        test_config(&dir, |c| {
            c.metrics_enabled = true;
            c.metrics_port = 0;
            c.http_enabled = false;
            c.data_dir = dir.path().join("ssd");
            c.data = strata_server::config::DataPlacement::Ssd;
            c.ssd_path = Some(dir.path().join("ssd-device"));
            c.ssd_size = strata_server::ByteSize::new(64 << 20).unwrap();
            c.ssd_io = strata_server::config::SsdIo::Buffered;
            c.dram_cache_size = strata_server::ByteSize::new(4 << 20);
        }),
    ];
    let mut families: Vec<String> = Vec::new();
    for config in &configs {
        let server = Server::start(config).await.unwrap();
        let mut resp = TcpStream::connect(server.resp_addr().unwrap())
            .await
            .unwrap();
        round_trip(&mut resp, &resp_command(&["SET", "k", "v"]), b"+OK\r\n").await;
        round_trip(&mut resp, &resp_command(&["GET", "k"]), b"$1\r\nv\r\n").await;
        if let Some(http_addr) = server.http_addr() {
            // The HTTP port answers 503 until the indices are recovered.
            server.search_recovered().await.unwrap();
            let (status, _) = http(http_addr, "PUT", "/i/_doc/1?refresh=true", r#"{"a":1}"#).await;
            assert_eq!(status, 201);
        }
        let (status, text) = http(server.metrics_addr().unwrap(), "GET", "/metrics", "").await;
        assert_eq!(status, 200);
        families.extend(Exposition::parse(&text).types.into_keys());
        server.shutdown(Duration::from_secs(5)).await;
    }
    let dashboard = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/grafana/strata.json"),
    )
    .unwrap();
    let json: serde_json::Value = serde_json::from_str(&dashboard).unwrap();
    assert_eq!(json["templating"]["list"][0]["type"], "datasource");
    let mut checked = 0;
    for panel in json["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().into_iter().flatten() {
            assert_eq!(
                target["datasource"]["uid"], "${datasource}",
                "no fixed data source"
            );
            let expr = target["expr"].as_str().unwrap();
            for word in expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if !word.starts_with("strata_") {
                    continue;
                }
                let family = ["_bucket", "_sum", "_count"]
                    .iter()
                    .find_map(|s| word.strip_suffix(s))
                    .filter(|f| families.iter().any(|n| n == f))
                    .unwrap_or(word);
                assert!(
                    families.iter().any(|n| n == family),
                    "{word} in {expr} is not exported"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 30, "{checked}");
}
