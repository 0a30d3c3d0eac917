//! `strata lab search-tiers` (seed 000, Elasticsearch on Optane): Rally's
//! eventdata track (`bench eventdata`) per search tier: bulk indexing
//! throughput, dashboard search latency, and the mixed phase (indexing at a
//! paced rate while querying) at three indexing targets, with "relative" (older
//! data) and "current" (data being indexed) latency. The seed's Table 4 with
//! this machine's figures and its "best" row.
//!
//! Tiers: `dram` (everything in memory: the seed's large-memory PMEM-MM),
//! `ssd` with a small block cache (the seed's DRAM config, whose page cache held
//! a fraction of the index), `pmem` (fresh segments durable in persistent
//! memory: the seed's PMEM-AD). The mixed targets are 30%, 60% and 90% of the
//! tier's own indexing throughput in the same round (the seed's 50k/100k/150k
//! docs/s were 30-90% of its). A peer Elasticsearch-compatible server is run
//! with `--peer-url`, and skipped otherwise.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::common::{runtime, secs, CommonArgs};
use super::kv_step::size_arg;
use super::plot::{bar_chart, Bars};
use super::run::{Measurement, Run};
use super::table::{ratio, Cell, Table};
use crate::eventdata::{run_eventdata, EventdataArgs, EventdataResult};
use crate::spawn::ServerProcess;
use crate::LabError;

/// Arguments of `strata lab search-tiers`.
#[derive(Debug, Clone, Args)]
pub struct SearchTiersArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,

    /// An Elasticsearch-compatible peer (e.g. OpenSearch) to run beside Strata's tiers:
    /// its base URL (http only). Its index `elasticlogs` is replaced.
    #[arg(long, value_name = "URL")]
    pub peer_url: Option<String>,
}

/// (row label, server options): the seed's configurations.
const TIERS: [(&str, &str); 3] = [
    ("dram", "dram"),
    ("ssd, small cache", "ssd"),
    ("pmem", "pmem"),
];
/// Row label of the peer.
const PEER: &str = "peer (--peer-url)";

/// Mixed-phase targets as fractions of the indexing throughput.
const TARGETS: [(&str, f64); 3] = [("30%", 0.3), ("60%", 0.6), ("90%", 0.9)];

/// The seed's Table 4: indexing docs/s, search ms, mixed relative ms (PMEM-MM,
/// DRAM, PMEM-AD in the rows of [`TIERS`]).
const SEED: [[f64; 3]; 3] = [
    [119_442.0, 2_121.35, 4_598.55],
    [113_669.0, 2_328.96, 14_715.4],
    [165_077.0, 2_336.79, 23_647.6],
];
/// The seed's best-over-DRAM ratios.
const SEED_BEST: [f64; 3] = [1.45, 1.09, 3.2];

/// Title of Table 4.
pub const TABLE4: &str = "Table 4: indexing, search and mixed latency per tier";

struct Sizes {
    docs: u64,
    query_iterations: u32,
    mixed_secs: f64,
    cache: u64,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                docs: 20_000,
                query_iterations: 1,
                mixed_secs: 2.0,
                cache: 4 << 20,
            }
        } else {
            Self {
                docs: 1_000_000,
                query_iterations: 10,
                mixed_secs: 30.0,
                cache: 32 << 20,
            }
        }
    }

    fn per_tier(&self) -> Duration {
        secs(
            5.0 + self.docs as f64 / 8_000.0
                + f64::from(self.query_iterations) * 3.0
                + 3.0 * self.mixed_secs,
        )
    }
}

/// Runs the experiment.
pub fn run(args: &SearchTiersArgs) -> Result<PathBuf, LabError> {
    let common = &args.common;
    let sizes = Sizes::new(common.quick);
    let rounds = common.rounds();
    let configs = TIERS.len() + usize::from(args.peer_url.is_some());
    let planned = sizes.per_tier() * (configs * rounds) as u32;
    let mut run = Run::start(
        "search-tiers",
        "000",
        common,
        planned,
        common.server_binary.as_deref(),
    )?;
    run.param("docs", sizes.docs);
    run.param("query_iterations", sizes.query_iterations);
    run.param("mixed_secs_per_target", sizes.mixed_secs);
    run.param("ssd_cache", size_arg(sizes.cache));
    run.param(
        "index",
        "2 shards, refresh 1s, request durability, 4 bulk clients of 1,000 documents",
    );
    let rt = runtime()?;
    for round in 0..rounds {
        for (label, tier) in TIERS {
            rt.block_on(strata_tier(&mut run, common, &sizes, round, (label, tier)))?;
            run.progress.done(sizes.per_tier());
        }
        if let Some(url) = &args.peer_url {
            rt.block_on(phases(&mut run, &sizes, round, PEER, url))?;
            run.progress.done(sizes.per_tier());
        }
    }
    if args.peer_url.is_none() {
        run.skip(PEER, "no --peer-url given (an Elasticsearch-compatible server such as OpenSearch 2.19, see /work/shared/peers.md)");
    }
    tables(&mut run, args.peer_url.is_some());
    plots(&mut run);
    run.finish(
        "The seed ran Elasticsearch on Rally's eventdata track with the index in DRAM with NVMe \
         (a page cache of a fraction of the index), on Optane in App Direct mode, and with \
         Optane as large memory. Here Strata's search tiers take those places: `ssd` with a \
         small block cache for the seed's DRAM configuration, `pmem` for PMEM-AD, `dram` (all \
         in memory) for PMEM-MM.",
    )
}

async fn strata_tier(
    run: &mut Run,
    common: &CommonArgs,
    sizes: &Sizes,
    round: usize,
    (label, tier): (&str, &str),
) -> Result<(), LabError> {
    let pmem = tempfile::Builder::new()
        .prefix("strata-lab-search-")
        .tempdir_in(&run.pmem_dir)
        .map_err(|source| LabError::Spawn {
            binary: run.pmem_dir.clone(),
            source,
        })?;
    let mut options: Vec<String> = ["--log-level", "warn", "--search-tier", tier]
        .into_iter()
        .map(String::from)
        .collect();
    match tier {
        "ssd" => options.extend(["--search-cache-size".into(), size_arg(sizes.cache)]),
        "pmem" => options.extend([
            "--search-pmem-dir".into(),
            pmem.path().display().to_string(),
        ]),
        _ => {}
    }
    run.progress
        .step(label, &format!("round {}: starting", round + 1));
    let server = ServerProcess::start_in(
        common.server_binary.as_deref(),
        &options,
        &run.data_dir,
        true,
    )
    .await?;
    let port = server.http_port().expect("started with HTTP");
    wait_http(port).await?;
    if round == 0 {
        run.note(format!("{label}: strata serve {}", options.join(" ")));
    }
    let outcome = phases(
        run,
        sizes,
        round,
        label,
        &format!("http://127.0.0.1:{port}"),
    )
    .await;
    let stopped = server.stop().await;
    outcome?;
    stopped
}

/// Waits until search has recovered: `GET /_cluster/health` answers a status
/// other than red. (`GET /` is no sign: as Elasticsearch's, it answers 200 while
/// the node recovers and every index request still gets the 503 "state not
/// recovered" block.)
async fn wait_http(port: u16) -> Result<(), LabError> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last;
    loop {
        match cluster_health(port).await {
            Ok(status) if status == "green" || status == "yellow" => return Ok(()),
            Ok(status) => last = format!("health {status}"),
            Err(e) => last = e.to_string(),
        }
        if Instant::now() > deadline {
            return Err(LabError::Check(format!(
                "search on port {port} did not recover within 60 s ({last})"
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `GET /_cluster/health`'s `status` (HTTP/1.0: the server closes after the body).
async fn cluster_health(port: u16) -> std::io::Result<String> {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    s.write_all(b"GET /_cluster/health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .await?;
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut reply))
        .await
        .map_err(|_| std::io::Error::other("no reply within 5 s"))??;
    let text = String::from_utf8_lossy(&reply);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let json: serde_json::Value = serde_json::from_str(body)
        .map_err(|e| std::io::Error::other(format!("health reply not JSON: {e}")))?;
    Ok(json["status"].as_str().unwrap_or("unknown").to_owned())
}

fn eventdata_args(url: &str, extra: &[String]) -> Result<EventdataArgs, LabError> {
    let mut argv = vec![
        format!("--url={url}"),
        "--quiet".into(),
        "--threads=1".into(),
    ];
    argv.extend(extra.iter().cloned());
    EventdataArgs::try_parse_from(&argv).map_err(|e| LabError::Config(e.to_string()))
}

async fn phases(
    run: &mut Run,
    sizes: &Sizes,
    round: usize,
    label: &str,
    url: &str,
) -> Result<(), LabError> {
    run.progress.step(
        label,
        &format!(
            "round {}: indexing {} documents, then dashboards",
            round + 1,
            sizes.docs
        ),
    );
    let extra = vec![
        "--phases=index,query".into(),
        "--fresh".into(),
        format!("--docs={}", sizes.docs),
        format!("--query-iterations={}", sizes.query_iterations),
    ];
    let result = run_eventdata(&eventdata_args(url, &extra)?).await?;
    result.check()?;
    let rate = result.index.as_ref().map_or(0.0, |i| i.docs_per_sec);
    let mut figures = std::collections::BTreeMap::new();
    figures.insert("docs_per_sec".to_owned(), rate);
    if let Some(ms) = kind_mean(&result, "relative", false) {
        figures.insert("search_ms".into(), ms);
    }
    if let Some(ms) = kind_mean(&result, "current", false) {
        figures.insert("search_current_ms".into(), ms);
    }
    record(
        run,
        (label, "index+query", round),
        url,
        &extra,
        figures,
        &result,
    );
    for (target, fraction) in TARGETS {
        run.progress.step(
            label,
            &format!(
                "round {}: mixed at {target} of the indexing rate",
                round + 1
            ),
        );
        let extra = vec![
            "--phases=mixed".into(),
            format!("--mixed-rate={:.0}", (rate * fraction).max(50.0)),
            format!("--mixed-duration={}", sizes.mixed_secs),
            format!("--query-iterations={}", sizes.query_iterations),
        ];
        let result = run_eventdata(&eventdata_args(url, &extra)?).await?;
        result.check()?;
        let mut figures = std::collections::BTreeMap::new();
        if let Some(m) = &result.mixed {
            figures.insert("achieved_docs_per_sec".to_owned(), m.achieved_docs_per_sec);
        }
        for kind in ["relative", "current"] {
            if let Some(ms) = kind_mean(&result, kind, true) {
                figures.insert(format!("{kind}_ms"), ms);
            }
        }
        record(
            run,
            (label, &format!("mixed {target}"), round),
            url,
            &extra,
            figures,
            &result,
        );
    }
    Ok(())
}

/// Mean dashboard latency of one kind of window (query or mixed phase).
fn kind_mean(result: &EventdataResult, kind: &str, mixed: bool) -> Option<f64> {
    let by_kind = if mixed {
        &result.mixed.as_ref()?.by_kind
    } else {
        &result.query.as_ref()?.by_kind
    };
    let k = by_kind.iter().find(|k| {
        serde_json::to_value(k.kind)
            .ok()
            .and_then(|v| v.as_str().map(|s| s == kind))
            == Some(true)
    })?;
    (k.runs > 0).then_some(k.latency_ms.mean)
}

fn record(
    run: &mut Run,
    (config, step, round): (&str, &str, usize),
    url: &str,
    extra: &[String],
    figures: std::collections::BTreeMap<String, f64>,
    result: &EventdataResult,
) {
    run.measured(Measurement {
        config: config.into(),
        step: step.into(),
        round,
        command: format!(
            "strata bench eventdata --url={url} --threads=1 {}",
            extra.join(" ")
        ),
        figures,
        raw: serde_json::to_value(result).unwrap_or_default(),
    });
}

/// Table rows: the tiers, then the peer (its cells skipped when it was not run).
fn rows() -> Vec<&'static str> {
    TIERS.iter().map(|t| t.0).chain([PEER]).collect()
}

fn tables(run: &mut Run, with_peer: bool) {
    let cols = [
        "indexing docs/s",
        "search latency ms",
        "mixed relative latency ms",
        "mixed current latency ms",
    ];
    let mut t4 = Table::new(
        TABLE4,
        "medians over rounds; mixed at 60% of the tier's indexing rate",
        &cols,
    );
    for (i, label) in rows().into_iter().enumerate() {
        let get = |step: &str, fig: &str| {
            if label == PEER && !with_peer {
                Cell::Skipped("no --peer-url".into())
            } else {
                Cell::from_option(run.median(label, step, fig), "no measurement")
            }
        };
        let cells = vec![
            get("index+query", "docs_per_sec"),
            get("index+query", "search_ms"),
            get("mixed 60%", "relative_ms"),
            get("mixed 60%", "current_ms"),
        ];
        let seed = SEED
            .get(i)
            .map(|s| s.iter().map(|&v| Some(v)).chain([None]).collect());
        t4.push(label, cells, seed.filter(|_| label != PEER));
    }
    // The seed's "best" row: the best tier per column and its ratio to the seed's DRAM
    // configuration (here `ssd, small cache`).
    let base = "ssd, small cache";
    let mut best_names = Vec::new();
    let mut best_cells = Vec::new();
    for (c, col) in cols.iter().enumerate() {
        let higher_is_better = c == 0;
        let best = TIERS
            .iter()
            .filter_map(|(l, _)| Some((*l, t4.get(l, col)?)))
            .reduce(|a, b| {
                if (b.1 > a.1) == higher_is_better {
                    b
                } else {
                    a
                }
            });
        let r = best.and_then(|(name, v)| {
            best_names.push(format!("{col}: {name}"));
            let b = t4.get(base, col)?;
            Some(if higher_is_better { v / b } else { b / v })
        });
        best_cells.push(Cell::from_option(r, "not measured"));
    }
    let seed_best = SEED_BEST.iter().map(|&v| Some(v)).chain([None]).collect();
    t4.push(
        "best (ratio over ssd, small cache)",
        best_cells,
        Some(seed_best),
    );
    let idx = ratio(t4.get("pmem", cols[0]), t4.get(base, cols[0]));
    let search = ratio(t4.get(base, cols[1]), t4.get("dram", cols[1]));
    let mixed = ratio(t4.get(base, cols[2]), t4.get("dram", cols[2]));
    let show = |r: Option<f64>| r.map_or("not measured".into(), |r| format!("{r:.2}x"));
    // "Wins" means by more than the rounds' noise: 5%.
    let holds = |r: Option<f64>| {
        if r.is_some_and(|r| r > 1.05) {
            "holds"
        } else {
            "does not hold"
        }
    };
    t4.verdict = format!(
        "Best per column: {}. The seed: indexing is bound by storage, so fast persistent storage \
         wins (PMEM-AD 1.45x): here pmem indexes at {} the ssd tier's rate ({}). Searching older \
         data is bound by how much of the index stays cached, so large memory wins (1.09x search, \
         3.2x mixed): here dram is {} faster than the small-cache ssd tier at search ({}) and {} \
         in the mixed phase ({}).",
        best_names.join("; "),
        show(idx),
        holds(idx),
        show(search),
        holds(search),
        show(mixed),
        holds(mixed),
    );

    let mcols: Vec<String> = TARGETS
        .iter()
        .flat_map(|(t, _)| {
            [
                format!("{t} relative ms"),
                format!("{t} current ms"),
                format!("{t} docs/s"),
            ]
        })
        .collect();
    let mcols_ref: Vec<&str> = mcols.iter().map(String::as_str).collect();
    let mut mixed_t = Table::new(
        "Mixed phase at three indexing targets",
        "dashboard latency and achieved indexing rate, medians over rounds",
        &mcols_ref,
    );
    for label in rows() {
        let cells = TARGETS
            .iter()
            .flat_map(|(t, _)| {
                ["relative_ms", "current_ms", "achieved_docs_per_sec"].map(|f| {
                    if label == PEER && !with_peer {
                        Cell::Skipped("no --peer-url".into())
                    } else {
                        Cell::from_option(
                            run.median(label, &format!("mixed {t}"), f),
                            "no measurement",
                        )
                    }
                })
            })
            .collect();
        mixed_t.push(label, cells, None);
    }
    let rising: Vec<bool> = TIERS
        .iter()
        .filter_map(|(l, _)| {
            Some(mixed_t.get(l, "90% relative ms")? > mixed_t.get(l, "30% relative ms")?)
        })
        .collect();
    mixed_t.verdict = format!(
        "The seed: higher indexing targets raise query latency. Here relative-window latency at \
         90% of the indexing rate is above that at 30% for {} of {} tiers: the conclusion {}.",
        rising.iter().filter(|&&b| b).count(),
        rising.len(),
        if !rising.is_empty() && rising.iter().all(|&b| b) {
            "holds"
        } else {
            "does not hold everywhere"
        }
    );
    run.results.tables.extend([t4, mixed_t]);
}

fn plots(run: &mut Run) {
    let tiers: Vec<String> = TIERS.iter().map(|t| t.0.to_owned()).collect();
    let one = |run: &Run, step: &str, fig: &str| -> Vec<Option<f64>> {
        TIERS
            .iter()
            .map(|(l, _)| run.median(l, step, fig))
            .collect()
    };
    let indexing = one(run, "index+query", "docs_per_sec");
    let out = bar_chart(
        &run.dir,
        "indexing",
        "Indexing throughput per tier",
        "documents/s",
        &tiers,
        &[Bars {
            name: "indexing",
            values: indexing,
        }],
    );
    run.plotted(out);
    let lat = [
        ("search", one(run, "index+query", "search_ms")),
        ("mixed relative", one(run, "mixed 60%", "relative_ms")),
        ("mixed current", one(run, "mixed 60%", "current_ms")),
    ];
    let bars: Vec<Bars<'_>> = lat
        .iter()
        .map(|(n, v)| Bars {
            name: n,
            values: v.clone(),
        })
        .collect();
    let out = bar_chart(
        &run.dir,
        "latency",
        "Dashboard latency per tier",
        "ms (mean)",
        &tiers,
        &bars,
    );
    run.plotted(out);
    let targets: Vec<String> = TARGETS
        .iter()
        .map(|t| format!("{} of indexing rate", t.0))
        .collect();
    let series: Vec<(String, Vec<Option<f64>>)> = TIERS
        .iter()
        .map(|(l, _)| {
            (
                (*l).to_owned(),
                TARGETS
                    .iter()
                    .map(|(t, _)| run.median(l, &format!("mixed {t}"), "relative_ms"))
                    .collect(),
            )
        })
        .collect();
    let bars: Vec<Bars<'_>> = series
        .iter()
        .map(|(n, v)| Bars {
            name: n,
            values: v.clone(),
        })
        .collect();
    let out = bar_chart(
        &run.dir,
        "mixed-targets",
        "Relative-window latency against the indexing target",
        "ms (mean)",
        &targets,
        &bars,
    );
    run.plotted(out);
}
