//! A grouped aggregation over two partitions under a small pool must
//! finish: DataFusion 55.2's `RepartitionExec` spill pool deadlocks when
//! two input tasks spill at once and the pool holds two open files
//! (apache/datafusion#24883); the engine configures around it. The query
//! is the reproduction (with a long string for its `md5`), run on Strata's engine (spill files on
//! the SSD tier), several times with a deadline each.

mod support;

use std::time::Duration;

use datafusion::arrow::array::Int64Array;
use support::run_with_pool;

/// Attempts: the unfixed engine hangs on one of the first few.
const ATTEMPTS: usize = 8;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grouped_aggregation_under_a_small_pool_never_hangs() {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..std::env::var("ATT").map(|v| v.parse().unwrap()).unwrap_or(ATTEMPTS) {
        // The SSD tier's write block takes 4 MiB of it.
        let run = run_with_pool(Some(std::env::var("POOL_KIB").map(|v| v.parse::<u64>().unwrap() << 10).unwrap_or(8 << 20)), &dir.path().join("spill"), 2);
        let ctx = run.engine.ctx.clone();
        let query = async move {
            ctx.sql("SET datafusion.execution.batch_size = 64").await?;
            ctx.sql(
                "CREATE TABLE t AS SELECT v % 13 AS g, CAST(v % 337 AS VARCHAR) || '-0123456789abcdef0123456789abcdef' AS trace_id \
                 FROM generate_series(1, 40000) AS s(v)",
            )
            .await?
            .collect()
            .await?;
            ctx.sql("SELECT g, count(DISTINCT trace_id) AS n FROM t GROUP BY g ORDER BY g")
                .await?
                .collect()
                .await
        };
        let batches = tokio::time::timeout(Duration::from_secs(30), query)
            .await
            .unwrap_or_else(|_| panic!("attempt {attempt}: the query hung"))
            .unwrap();
        let counts: Vec<i64> = batches
            .iter()
            .flat_map(|b| {
                let n = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
                n.values().to_vec()
            })
            .collect();
        // v % 13 and v % 337 are independent (13 and 337 are coprime, and
        // 40000 > 13 * 337): every group holds all 337 traces.
        assert_eq!(counts, vec![337; 13], "attempt {attempt}");
        let files = strata_analytics::tier::TierCounters::get(&run.engine.area.counters().spill_files);
        eprintln!("attempt {attempt}: {files} spill files");
    }
}
