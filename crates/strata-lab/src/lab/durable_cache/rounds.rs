//! One round of a configuration (its server, the memtier-style phases, the
//! checkpoint timelines) and one round of the pinned comparison.

use super::checkpoint::{self, CHECKPOINTED};
use super::pinned;
use super::plan::{DurableCacheArgs, Part, Sizes, Target, PHASES};
use crate::kv::Protocol;
use crate::lab::common::CommonArgs;
use crate::lab::kv_step::{kv, size_arg, At};
use crate::lab::peers::{available, PeerProcess, Server};
use crate::lab::run::Run;
use crate::spawn::ServerProcess;
use crate::LabError;

/// One round of the pinned comparison for one server (see `pinned`).
pub(super) async fn pinned_round(
    run: &mut Run,
    common: &CommonArgs,
    sizes: &Sizes,
    (round, label): (usize, &str),
    target: Target,
) -> Result<(), LabError> {
    let (server, protocol, command) = start(run, common, sizes, target).await?;
    if round == 0 {
        run.note(format!("{label}, pinned: {command}"));
    }
    let pid = server
        .pid()
        .ok_or_else(|| LabError::Config(format!("{label}: the server is not running")))?;
    let argv = [
        "--ratio=1:0".to_owned(),
        format!("--key-max={}", sizes.keys),
        format!("--value-size={}", sizes.value),
        format!("--connections={}", sizes.connections),
        "--key-prefix=memtier-".into(),
        format!("--duration={}", sizes.pinned),
        format!("--seed={}", round + 1),
    ];
    let port = server.port(protocol);
    let measured = pinned::measure(run, (label, round), (pid, port, protocol), &argv).await;
    server.stop().await?;
    measured
}

/// Starts `target`'s server: (the server, the protocol to drive it over, its command).
async fn start(
    run: &Run,
    common: &CommonArgs,
    sizes: &Sizes,
    target: Target,
) -> Result<(Server, Protocol, String), LabError> {
    match target {
        Target::Strata(mode) => {
            let options: Vec<String> = [
                "--threads",
                "1",
                "--log-level",
                "warn",
                "--eviction",
                "off",
                "--persistence",
                mode,
            ]
            .into_iter()
            .map(String::from)
            .chain([
                "--memory-limit".into(),
                size_arg(sizes.keys * (sizes.value as u64 + 64) * 3 + (256 << 20)),
            ])
            .collect();
            let server = ServerProcess::start_in(
                common.server_binary.as_deref(),
                &options,
                &run.data_dir,
                false,
            )
            .await?;
            Ok((
                Server::Strata(server),
                Protocol::Memcache,
                format!("strata serve {}", options.join(" ")),
            ))
        }
        Target::Peer(kind) => {
            let binary = available(kind).map_err(LabError::NotAvailable)?;
            let peer = PeerProcess::start(kind, &binary, &run.data_dir).await?;
            let command = peer.command.clone();
            Ok((Server::Peer(peer), kind.protocol(), command))
        }
    }
}

/// One configuration's round: the phases (or, with `--only checkpoint`, the
/// insert that fills the keys), then the checkpoint timelines if it has them.
pub(super) async fn config(
    run: &mut Run,
    args: &DurableCacheArgs,
    sizes: &Sizes,
    (round, label): (usize, &str),
    target: Target,
) -> Result<(), LabError> {
    let common = &args.common;
    run.progress
        .step(label, &format!("round {}: starting", round + 1));
    let (server, protocol, command) = start(run, common, sizes, target).await?;
    if round == 0 {
        run.note(format!("{label}: {command}"));
    }
    let port = server.port(protocol);
    let keys = sizes.keys.to_string();
    let phases = if args.runs(Part::Phases) {
        &PHASES[..]
    } else {
        &PHASES[..1]
    };
    for &(step, ratio) in phases {
        run.progress
            .step(label, &format!("round {}: {step}", round + 1));
        let mut argv = vec![
            format!("--ratio={ratio}"),
            format!("--key-max={keys}"),
            format!("--value-size={}", sizes.value),
            format!("--connections={}", sizes.connections),
            "--key-prefix=memtier-".into(),
        ];
        if step == "insert" {
            argv.extend([
                "--key-pattern=sequential".into(),
                format!("--requests={keys}"),
            ]);
        } else {
            argv.extend([
                format!("--duration={}", sizes.measure),
                format!("--seed={}", round + 1),
            ]);
        }
        kv(
            run,
            At {
                config: label,
                step,
                round,
            },
            port,
            protocol,
            &argv,
        )
        .await?;
    }
    if args.runs(Part::Checkpoint) && CHECKPOINTED.contains(&label) {
        let load = checkpoint::Load {
            keys: sizes.keys,
            value: sizes.value,
            connections: sizes.connections,
            secs: sizes.timeline,
        };
        let target = checkpoint::Target {
            port,
            protocol,
            resp_port: server.port(Protocol::Resp),
        };
        checkpoint::timelines(run, load, target, (label, round), sizes.pairs).await?;
    }
    server.stop().await
}
