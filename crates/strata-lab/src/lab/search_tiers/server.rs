//! One Strata tier's server for a round: started with the tier's options,
//! waited on until search has recovered, stopped after the phases.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::phases::phases;
use super::plan::Sizes;
use crate::lab::common::CommonArgs;
use crate::lab::kv_step::size_arg;
use crate::lab::run::Run;
use crate::spawn::ServerProcess;
use crate::LabError;

/// Runs one round's phases on a fresh server of the tier `tier`.
pub(super) async fn strata_tier(
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
    wait_http(port, Duration::from_secs(60)).await?;
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

/// Waits up to `limit` until search has recovered: `GET /_cluster/health` answers a status
/// other than red. (`GET /` is no sign: as Elasticsearch's, it answers 200 while
/// the node recovers and every index request still gets the 503 "state not
/// recovered" block.)
pub(super) async fn wait_http(port: u16, limit: Duration) -> Result<(), LabError> {
    let deadline = Instant::now() + limit;
    let mut last;
    loop {
        match cluster_health(port).await {
            Ok(status) if status == "green" || status == "yellow" => return Ok(()),
            Ok(status) => last = format!("health {status}"),
            Err(e) => last = e.to_string(),
        }
        if Instant::now() > deadline {
            return Err(LabError::Check(format!(
                "search on port {port} did not recover within {} s ({last})",
                limit.as_secs()
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
