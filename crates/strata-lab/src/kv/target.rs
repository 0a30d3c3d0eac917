//! The server a run drives ([`Target`]), opening its connections, and the
//! configuration a report records: shared by the request-mix runner and the
//! queue workload.

use std::sync::Arc;

use tokio::task::JoinSet;

use super::args::KvArgs;
use super::conn::Connection;
use super::report::KvConfig;
use crate::LabError;

/// The server a run drives.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) host: String,
    pub(crate) port: u16,
    /// Whether the lab started it for this run.
    pub(crate) spawned: bool,
    /// Its process id, when it runs on this machine and is known: its CPU time is reported.
    pub(crate) pid: Option<u32>,
}

impl Target {
    /// A server the caller started (`--host`, `--port`, `--server-pid`).
    pub(crate) fn remote(host: &str, port: u16, pid: Option<u32>) -> Self {
        Self {
            host: host.to_owned(),
            port,
            spawned: false,
            pid,
        }
    }

    /// A child started by the lab on 127.0.0.1.
    pub(crate) fn spawned(port: u16, pid: Option<u32>) -> Self {
        Self {
            host: "127.0.0.1".to_owned(),
            port,
            spawned: true,
            pid,
        }
    }

    /// `host:port`.
    pub(crate) fn addr(&self) -> Arc<str> {
        Arc::from(format!("{}:{}", self.host, self.port))
    }
}

/// Opens (and authenticates) every connection concurrently, then flushes if asked.
pub(crate) async fn open_all(args: &KvArgs, addr: &Arc<str>) -> Result<Vec<Connection>, LabError> {
    let mut opening = JoinSet::new();
    for _ in 0..args.connections {
        let (addr, protocol, auth) = (Arc::clone(addr), args.protocol, args.auth.clone());
        opening.spawn(async move {
            let mut conn = Connection::open(addr, protocol).await?;
            if let Some(password) = auth {
                conn.auth(&password).await?;
            }
            Ok::<_, LabError>(conn)
        });
    }
    let mut connections = Vec::with_capacity(args.connections);
    while let Some(joined) = opening.join_next().await {
        connections.push(joined.map_err(LabError::Task)??);
    }
    if args.flush {
        connections[0].flush().await?;
    }
    Ok(connections)
}

/// What the report records of a run's set-up.
pub(crate) fn config(args: &KvArgs, target: &Target, seed: u64) -> KvConfig {
    KvConfig {
        protocol: args.protocol,
        host: target.host.clone(),
        port: target.port,
        spawned: target.spawned,
        server_args: if target.spawned {
            args.server_args.clone()
        } else {
            Vec::new()
        },
        connections: args.connections,
        pipeline: args.pipeline,
        threads: args.threads,
        ratio: args.ratio,
        workload: args.workload,
        key_pattern: args.key_pattern,
        zipf_exponent: args.zipf_exponent,
        key_stddev: args.key_stddev,
        key_min: args.key_min,
        key_max: args.key_max,
        key_prefix: args.key_prefix.clone(),
        value_size: args.value_size,
        requests: args.requests,
        duration_secs: args.measure_duration().map(|d| d.as_secs_f64()),
        warmup_secs: args.warmup,
        seed,
        flush: args.flush,
    }
}
