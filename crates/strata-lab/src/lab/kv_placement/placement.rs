//! One placement's round: a fresh server with the placement's `--index` and
//! `--data`, the load, warm-up and measured workloads, the memory the keys
//! take, and the restart after a SIGKILL.

use std::collections::BTreeMap;
use std::time::Duration;

use super::plan::{Sizes, WORKLOADS};
use crate::kv::Protocol;
use crate::lab::common::CommonArgs;
use crate::lab::kv_step::{kv, size_arg, At};
use crate::lab::run::{Measurement, Run};
use crate::spawn::ServerProcess;
use crate::LabError;

/// Runs one round of the placement `(label, index, data)`.
pub(super) async fn placement(
    run: &mut Run,
    common: &CommonArgs,
    sizes: &Sizes,
    round: usize,
    (label, index, data): (&str, &str, &str),
) -> Result<(), LabError> {
    let data_bytes = sizes.data_bytes();
    let pmem = tempfile::Builder::new()
        .prefix("strata-lab-pmem-")
        .tempdir_in(&common.pmem_dir)
        .map_err(|source| LabError::Spawn {
            binary: common.pmem_dir.clone(),
            source,
        })?;
    let mut options: Vec<String> = vec![
        "--threads".into(),
        "1".into(),
        "--log-level".into(),
        "warn".into(),
        "--eviction".into(),
        "off".into(),
        "--memory-limit".into(),
        size_arg(3 * data_bytes + (256 << 20)),
        "--index".into(),
        index.into(),
        "--data".into(),
        data.into(),
    ];
    if index == "pmem" || data == "pmem" {
        options.extend([
            "--pmem-path".into(),
            pmem.path().join("strata.pmem").display().to_string(),
            "--pmem-size".into(),
            size_arg(4 * data_bytes + (256 << 20)),
        ]);
    }
    if data == "ssd" {
        options.extend([
            "--ssd-size".into(),
            size_arg(3 * data_bytes + (64 << 20)),
            "--dram-cache-size".into(),
            size_arg((data_bytes / 10).max(2 << 20)),
        ]);
    }
    run.progress
        .step(label, &format!("round {}: starting", round + 1));
    let mut server = ServerProcess::start_in(
        common.server_binary.as_deref(),
        &options,
        &common.data_dir,
        false,
    )
    .await?;
    let port = server.port(Protocol::Resp);
    let keys = sizes.keys.to_string();
    run.progress.step(
        label,
        &format!("round {}: load {} keys", round + 1, sizes.keys),
    );
    let load = [
        "--ratio=1:0".into(),
        "--key-pattern=sequential".into(),
        format!("--requests={keys}"),
        format!("--key-max={keys}"),
        format!("--value-size={}", sizes.value),
        "--connections=8".into(),
        "--pipeline=32".into(),
    ];
    kv(
        run,
        At {
            config: label,
            step: "load",
            round,
        },
        port,
        Protocol::Resp,
        &load,
    )
    .await?;
    let timed = |ratio: &str, duration: f64| -> Vec<String> {
        vec![
            format!("--ratio={ratio}"),
            format!("--duration={duration}"),
            format!("--key-max={keys}"),
            format!("--value-size={}", sizes.value),
            format!("--connections={}", sizes.connections),
            format!("--seed={}", round + 1),
        ]
    };
    run.progress
        .step(label, &format!("round {}: warm-up", round + 1));
    let warm = timed("1:0", sizes.warmup);
    kv(
        run,
        At {
            config: label,
            step: "warm-up",
            round,
        },
        port,
        Protocol::Resp,
        &warm,
    )
    .await?;
    for (step, ratio) in WORKLOADS {
        run.progress
            .step(label, &format!("round {}: {step}", round + 1));
        let argv = timed(ratio, sizes.measure);
        let r = kv(
            run,
            At {
                config: label,
                step,
                round,
            },
            port,
            Protocol::Resp,
            &argv,
        )
        .await?;
        if r.errors > 0 || r.misses > 0 {
            run.note(format!(
                "{label}, round {}, {step}: {} errors, {} misses (every key was loaded)",
                round + 1,
                r.errors,
                r.misses
            ));
        }
    }
    memory(run, label, round, port).await?;
    if data != "dram" {
        run.progress
            .step(label, &format!("round {}: kill -9 and restart", round + 1));
        if data == "ssd" {
            // Ten SSD flush intervals: everything written is durable before the kill.
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        server.kill_now();
        let took = server.restart(Duration::from_secs(600)).await?;
        let fields = crate::restart::info::fields(port).await?;
        let restored = fields
            .get("keys")
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
        run.measured(Measurement {
            config: label.into(),
            step: "restart".into(),
            round,
            command: format!("kill -9, then strata serve {}", options.join(" ")),
            figures: [
                ("restart_secs".to_owned(), took.as_secs_f64()),
                ("keys_restored".to_owned(), restored),
            ]
            .into_iter()
            .collect(),
            raw: serde_json::to_value(&fields).unwrap_or_default(),
        });
    }
    server.stop().await
}

/// Records the memory the loaded keys take (`INFO everything`): DRAM in use by
/// the keyspace (`tier_dram_bytes_used`: index, stubs and records in DRAM, not
/// the SSD tier's record cache, which is `ssd_cache_bytes`), persistent memory
/// in use, and DRAM per key (what `strata advise` sizes placements with).
async fn memory(run: &mut Run, label: &str, round: usize, port: u16) -> Result<(), LabError> {
    let fields = crate::restart::info::fields(port).await?;
    let get = |name: &str| {
        fields
            .get(name)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let keys = get("keys");
    let used = get("used_memory");
    let dram = if fields.contains_key("tier_dram_bytes_used") {
        get("tier_dram_bytes_used")
    } else {
        used
    };
    let cache = get("tier_ssd_cache_bytes");
    let mut figures: BTreeMap<String, f64> = [
        ("keys", keys),
        ("used_memory_bytes", used),
        ("dram_bytes", dram),
        ("rss_bytes", get("used_memory_rss")),
        ("index_bytes", get("strata_index_bytes")),
        ("ssd_cache_bytes", cache),
        ("pmem_bytes", get("tier_pmem_bytes_used")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    if keys > 0.0 {
        // All the DRAM the tiers use (the advisor's figure), and what is
        // left of it outside the SSD tier's record cache, whose budget is
        // set apart (issue 4's per-item target).
        figures.insert("dram_bytes_per_key".into(), dram / keys);
        figures.insert(
            "dram_bytes_per_key_outside_cache".into(),
            (dram - cache).max(0.0) / keys,
        );
    }
    run.measured(Measurement {
        config: label.into(),
        step: "memory".into(),
        round,
        command: "INFO everything (after the measured workloads)".into(),
        figures,
        raw: serde_json::Value::Null,
    });
    Ok(())
}
