//! Checking a restarted server against the records of every connection of
//! the run before it.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Instant;

use super::history::Survival;
use super::recovered::Recovered;
use super::workload::{Ended, WorkerKeys, WorkerRun};

/// Phantom key names listed in a failure message at most.
const SHOWN_PHANTOMS: usize = 20;

/// The outcome of one check.
pub struct Verdict {
    /// One message per problem; empty when everything that had to survive did.
    pub problems: Vec<String>,
    /// What each worker starts the next run from: the recovered states.
    pub next: Vec<WorkerKeys>,
    /// What was read back.
    pub recovered: Recovered,
}

/// Reads every key the workers own from the server at `addr` and checks it
/// against their records under `survival`. Also a problem: a wrong reply
/// while the server ran, and a key no worker ever wrote.
pub fn verify(addr: SocketAddr, runs: &[WorkerRun], survival: Survival) -> Verdict {
    let owned: BTreeSet<String> = runs.iter().flat_map(|run| run.log.keys()).collect();
    let recovered = Recovered::read(addr, &owned);
    let mut problems = Vec::new();
    for run in runs {
        if let Ended::WrongReply(message) = &run.ended {
            problems.push(format!("while the server ran: {message}"));
        }
        problems.extend(run.log.check(&recovered.states, survival));
    }
    let phantoms: Vec<&String> = recovered.all_keys.difference(&owned).collect();
    if !phantoms.is_empty() {
        problems.push(format!(
            "{} keys no worker wrote (or deleted and saw deleted before this run): {:?}",
            phantoms.len(),
            &phantoms[..phantoms.len().min(SHOWN_PHANTOMS)]
        ));
    }
    let next = runs
        .iter()
        .map(|run| WorkerKeys {
            id: run.id,
            protocol: run.protocol,
            states: run.log.next_start(&recovered.states),
            next_fresh: run.next_fresh,
        })
        .collect();
    Verdict {
        problems,
        next,
        recovered,
    }
}

/// A problem for each worker whose connection failed before `killed_at`, or
/// that ended for a reason other than a failed connection: while the server
/// lives, it must keep serving every client.
pub fn ended_before_kill(runs: &[WorkerRun], killed_at: Instant) -> Vec<String> {
    runs.iter()
        .filter_map(|run| match &run.ended {
            Ended::Disconnected { at, .. } if *at >= killed_at => None,
            Ended::Disconnected { error, at } => Some(format!(
                "worker {} lost its connection {:?} before the kill: {error}",
                run.id,
                killed_at - *at
            )),
            Ended::WrongReply(_) => None, // reported by verify
            Ended::Stopped => Some(format!("worker {} stopped before the kill", run.id)),
        })
        .collect()
}
