//! Peer servers run beside Strata: memcached and Redis from their Debian
//! packages (`scripts/peers/memcached`, `scripts/peers/redis` install them).
//!
//! A peer is looked up on `PATH` (and /usr/bin, /usr/sbin, /usr/local/bin, and
//! `target/peers/bin` under the working directory, where the scripts link a
//! source build); when it is not installed the experiment records it as
//! skipped with that reason. Peers bind
//! 127.0.0.1 on a free port, keep their files in a temporary directory under the
//! lab's data directory, and are killed when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::kv::protocol::Protocol;
use crate::spawn::ServerProcess;
use crate::LabError;

/// A peer system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerKind {
    /// memcached (text protocol), no persistence.
    Memcached,
    /// Redis without persistence.
    RedisOff,
    /// Redis with `appendonly yes`, `appendfsync everysec`.
    RedisEverysec,
    /// Redis with `appendonly yes`, `appendfsync always`.
    RedisAlways,
}

impl PeerKind {
    /// The executable.
    pub fn program(self) -> &'static str {
        match self {
            PeerKind::Memcached => "memcached",
            _ => "redis-server",
        }
    }

    /// The protocol the lab speaks to it.
    pub fn protocol(self) -> Protocol {
        match self {
            PeerKind::Memcached => Protocol::Memcache,
            _ => Protocol::Resp,
        }
    }

    fn args(self, port: u16, dir: &Path) -> Vec<String> {
        let port = port.to_string();
        let mut args: Vec<String> = match self {
            PeerKind::Memcached => {
                let mut a = vec![
                    "-p",
                    &port,
                    "-l",
                    "127.0.0.1",
                    "-U",
                    "0",
                    "-t",
                    "1",
                    "-m",
                    "4096",
                ]
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>();
                if rustix::process::geteuid().is_root() {
                    a.extend(["-u".into(), "root".into()]);
                }
                return a;
            }
            _ => [
                "--port",
                &port,
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--daemonize",
                "no",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
        };
        args.extend(["--dir".into(), dir.display().to_string()]);
        let (aof, fsync) = match self {
            PeerKind::RedisEverysec => ("yes", "everysec"),
            PeerKind::RedisAlways => ("yes", "always"),
            _ => ("no", "everysec"),
        };
        args.extend(["--appendonly", aof, "--appendfsync", fsync].map(String::from));
        args
    }
}

/// The executable's path, if installed.
pub fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([
            "/usr/bin".into(),
            "/usr/sbin".into(),
            "/usr/local/bin".into(),
            "target/peers/bin".into(),
        ])
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// A running peer.
#[derive(Debug)]
pub struct PeerProcess {
    child: Child,
    port: u16,
    /// The command line, for results.json.
    pub command: String,
    _dir: tempfile::TempDir,
}

impl PeerProcess {
    /// Starts `kind` from `binary` with its files under `parent`.
    pub async fn start(kind: PeerKind, binary: &Path, parent: &Path) -> Result<Self, LabError> {
        let fail = |source| LabError::Spawn {
            binary: binary.to_owned(),
            source,
        };
        let dir = tempfile::Builder::new()
            .prefix("strata-lab-peer-")
            .tempdir_in(parent)
            .map_err(fail)?;
        let port = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.local_addr())
            .map_err(fail)?
            .port();
        let args = kind.args(port, dir.path());
        let log = std::fs::File::create(dir.path().join("peer.log")).map_err(fail)?;
        let child = Command::new(binary)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(fail)?)
            .stderr(log)
            .spawn()
            .map_err(fail)?;
        let quoted: Vec<String> = args
            .iter()
            .map(|a| if a.is_empty() { "''".into() } else { a.clone() })
            .collect();
        let mut peer = Self {
            child,
            port,
            command: format!("{} {}", binary.display(), quoted.join(" ")),
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = peer.child.try_wait() {
                let log =
                    std::fs::read_to_string(peer._dir.path().join("peer.log")).unwrap_or_default();
                return Err(LabError::ServerNotReady {
                    binary: binary.to_owned(),
                    reason: format!("it exited with {status}"),
                    log,
                });
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Ok(peer);
            }
            if Instant::now() > deadline {
                return Err(LabError::ServerNotReady {
                    binary: binary.to_owned(),
                    reason: format!("port {port} closed after 10 s"),
                    log: String::new(),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for PeerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server under test: Strata spawned by the lab, or a peer.
#[derive(Debug)]
pub enum Server {
    /// `strata serve`.
    Strata(ServerProcess),
    /// memcached or Redis.
    Peer(PeerProcess),
}

impl Server {
    /// The port for `protocol`.
    pub fn port(&self, protocol: Protocol) -> u16 {
        match self {
            Server::Strata(s) => s.port(protocol),
            Server::Peer(p) => p.port(),
        }
    }

    /// Stops it.
    pub async fn stop(self) -> Result<(), LabError> {
        match self {
            Server::Strata(s) => s.stop().await,
            Server::Peer(p) => {
                drop(p);
                Ok(())
            }
        }
    }
}
