//! The peer search server of `search-tiers`: the server `--peer-url`
//! names, or else an OpenSearch node the lab starts itself when
//! `scripts/peers/opensearch` has installed its launcher (`opensearch-peer`
//! on the peers' path, see [`peers::find`](crate::lab::peers::find)).
//!
//! A node the lab starts runs in its own process group with its files in a
//! temporary directory under the run's data directory; it is started once per
//! round (as Strata's tiers are, so each round indexes into a fresh node) and
//! stopped, group and all, when dropped: the launcher script's trap closes the
//! JVM on SIGTERM, and a group SIGKILL follows if it has not exited in 30 s.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};

use super::plan::SearchTiersArgs;
use super::server::wait_http;
use crate::lab::peers::{find, peer_home};
use crate::LabError;

/// The launcher `scripts/peers/opensearch` installs.
const LAUNCHER: &str = "opensearch-peer";
/// A JVM's start under load takes longer than Strata's (8-18 s when quiet).
const START_LIMIT: Duration = Duration::from_secs(180);
/// The node's heap: the 2 GB `shared/peers.md` measured OpenSearch with
/// (about 2.3 GB resident).
const HEAP: &str = "2g";

/// Where the peer comes from, decided once per run.
#[derive(Debug, Clone)]
pub(super) enum PeerSource {
    /// A running server at this base URL.
    Url(String),
    /// `opensearch-peer`, started per round.
    Launcher(PathBuf),
}

impl PeerSource {
    /// The peer to run, or why none runs (the skip line's reason).
    pub(super) fn choose(args: &SearchTiersArgs) -> Result<PeerSource, String> {
        if let Some(url) = &args.peer_url {
            return Ok(PeerSource::Url(url.clone()));
        }
        if args.no_peer {
            return Err("--no-peer given".into());
        }
        find(LAUNCHER).map(PeerSource::Launcher).ok_or_else(|| {
            "no --peer-url given and OpenSearch is not installed \
             (scripts/peers/opensearch builds it and installs opensearch-peer)"
                .into()
        })
    }

    /// Starts the peer for a round: its URL, and the node to drop afterwards.
    pub(super) async fn start(
        &self,
        data_dir: &Path,
    ) -> Result<(String, Option<OpenSearchNode>), LabError> {
        match self {
            PeerSource::Url(url) => Ok((url.clone(), None)),
            PeerSource::Launcher(launcher) => {
                let node = OpenSearchNode::start(launcher, data_dir).await?;
                Ok((format!("http://127.0.0.1:{}", node.port), Some(node)))
            }
        }
    }

    /// How it is run, for the report's notes.
    pub(super) fn describe(&self) -> String {
        match self {
            PeerSource::Url(url) => format!("the server at {url} (--peer-url)"),
            PeerSource::Launcher(launcher) => format!(
                "OpenSearch started per round by {} --port P --data DIR --heap {HEAP}",
                launcher.display()
            ),
        }
    }
}

/// An OpenSearch node the lab started.
#[derive(Debug)]
pub(super) struct OpenSearchNode {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl OpenSearchNode {
    async fn start(launcher: &Path, parent: &Path) -> Result<OpenSearchNode, LabError> {
        let fail = |source| LabError::Spawn {
            binary: launcher.to_owned(),
            source,
        };
        let (dir, port) = peer_home(parent, "strata-lab-opensearch-").map_err(fail)?;
        let log = std::fs::File::create(dir.path().join("launcher.log")).map_err(fail)?;
        let child = Command::new(launcher)
            .args(["--port", &port.to_string(), "--heap", HEAP, "--data"])
            .arg(dir.path().join("home"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(fail)?)
            .stderr(log)
            // Its own group: the script, the JVM and the script's helpers
            // are stopped together.
            .process_group(0)
            .spawn()
            .map_err(fail)?;
        let mut node = OpenSearchNode {
            child,
            port,
            _dir: dir,
        };
        let started = Instant::now();
        let ready = wait_http(port, START_LIMIT).await;
        if let Err(e) = ready {
            let log =
                std::fs::read_to_string(node._dir.path().join("launcher.log")).unwrap_or_default();
            let reason = match node.child.try_wait() {
                Ok(Some(status)) => format!("it exited with {status}"),
                _ => format!("{e} ({} s)", started.elapsed().as_secs()),
            };
            return Err(LabError::ServerNotReady {
                binary: launcher.to_owned(),
                reason,
                log,
            });
        }
        Ok(node)
    }
}

impl Drop for OpenSearchNode {
    fn drop(&mut self) {
        let Some(group) = Pid::from_raw(self.child.id() as i32) else {
            return;
        };
        let _ = kill_process_group(group, Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                // The script has stopped the JVM; clear any straggler.
                let _ = kill_process_group(group, Signal::KILL);
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = kill_process_group(group, Signal::KILL);
        let _ = self.child.wait();
    }
}
