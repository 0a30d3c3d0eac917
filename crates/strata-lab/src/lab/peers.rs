//! Peer servers run beside Strata: memcached and Redis from their Debian
//! packages (`scripts/peers/memcached`, `scripts/peers/redis` install them),
//! and ARCUS memcached with its persistence, built from its source by
//! `scripts/peers/arcus` (linked as `target/peers/bin/arcus-memcached`, its
//! engine in the install prefix's `lib/`).
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
    /// ARCUS memcached, `use_persistence=false`.
    ArcusOff,
    /// ARCUS memcached, `use_persistence=true`, `async_logging=true`.
    ArcusAsync,
    /// ARCUS memcached, `use_persistence=true`, `async_logging=false`
    /// (synchronous command logging).
    ArcusSync,
}

impl PeerKind {
    /// The executable.
    pub fn program(self) -> &'static str {
        match self {
            PeerKind::Memcached => "memcached",
            PeerKind::ArcusOff | PeerKind::ArcusAsync | PeerKind::ArcusSync => "arcus-memcached",
            _ => "redis-server",
        }
    }

    /// Whether it is ARCUS memcached.
    pub fn is_arcus(self) -> bool {
        self.program() == "arcus-memcached"
    }

    /// The protocol the lab speaks to it.
    pub fn protocol(self) -> Protocol {
        match self {
            PeerKind::RedisOff | PeerKind::RedisEverysec | PeerKind::RedisAlways => Protocol::Resp,
            _ => Protocol::Memcache,
        }
    }

    /// ARCUS's engine settings (its `-e config_file=`): persistence off, or the
    /// command log and snapshots under `dir` with asynchronous or synchronous
    /// logging (`engines/default/default_engine.conf` in ARCUS's tree).
    pub fn arcus_config(self, dir: &Path) -> Option<String> {
        let logging = match self {
            PeerKind::ArcusOff => return Some("use_persistence=false\n".into()),
            PeerKind::ArcusAsync => "true",
            PeerKind::ArcusSync => "false",
            _ => return None,
        };
        let d = dir.display();
        Some(format!(
            "use_persistence=true\ndata_path={d}\nlogs_path={d}\nasync_logging={logging}\n"
        ))
    }

    /// The command line for `binary` on `port` with its files in `dir`.
    pub fn args(self, binary: &Path, port: u16, dir: &Path) -> Vec<String> {
        let port = port.to_string();
        let mut args: Vec<String> = match self {
            PeerKind::ArcusOff | PeerKind::ArcusAsync | PeerKind::ArcusSync => {
                let lib = arcus_lib(binary);
                let mut a: Vec<String> = vec![
                    "-E".into(),
                    lib.join("default_engine.so").display().to_string(),
                    "-X".into(),
                    lib.join("ascii_scrub.so").display().to_string(),
                ];
                a.extend(
                    [
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
                        "-e",
                    ]
                    .map(String::from),
                );
                a.push(format!("config_file={}", dir.join("arcus.conf").display()));
                if rustix::process::geteuid().is_root() {
                    a.extend(["-u".into(), "root".into()]);
                }
                return a;
            }
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

/// ARCUS's library directory: `lib/` of the install prefix its binary (or the
/// link to it) lives in.
fn arcus_lib(binary: &Path) -> PathBuf {
    let real = std::fs::canonicalize(binary).unwrap_or_else(|_| binary.to_owned());
    real.parent()
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("lib"), |p| p.join("lib"))
}

/// The peer's executable, or why it cannot run here.
pub fn available(kind: PeerKind) -> Result<PathBuf, String> {
    let script = match kind {
        PeerKind::Memcached => "memcached",
        PeerKind::RedisOff | PeerKind::RedisEverysec | PeerKind::RedisAlways => "redis",
        PeerKind::ArcusOff | PeerKind::ArcusAsync | PeerKind::ArcusSync => "arcus",
    };
    let binary = find(kind.program()).ok_or_else(|| {
        format!(
            "{} is not installed (scripts/peers/{script})",
            kind.program()
        )
    })?;
    if kind.is_arcus() {
        let engine = arcus_lib(&binary).join("default_engine.so");
        if !engine.is_file() {
            return Err(format!(
                "{} has no engine at {} (scripts/peers/{script})",
                binary.display(),
                engine.display()
            ));
        }
    }
    Ok(binary)
}

/// A peer's own temporary directory under `parent` and a free port on
/// 127.0.0.1 for it.
pub(crate) fn peer_home(parent: &Path, prefix: &str) -> std::io::Result<(tempfile::TempDir, u16)> {
    let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(parent)?;
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))?
        .local_addr()?
        .port();
    Ok((dir, port))
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
        let (dir, port) = peer_home(parent, "strata-lab-peer-").map_err(fail)?;
        let args = kind.args(binary, port, dir.path());
        if let Some(config) = kind.arcus_config(dir.path()) {
            std::fs::write(dir.path().join("arcus.conf"), config).map_err(fail)?;
        }
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

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
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

    /// Its process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        match self {
            Server::Strata(s) => s.pid(),
            Server::Peer(p) => Some(p.pid()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arcus_runs_its_engine_with_the_persistence_of_its_mode() {
        // The layout scripts/peers/arcus installs: PREFIX/bin/memcached,
        // PREFIX/lib/*.so, and a link to the binary elsewhere.
        let prefix = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(prefix.path().join("bin")).unwrap();
        std::fs::create_dir_all(prefix.path().join("lib")).unwrap();
        let binary = prefix.path().join("bin/memcached");
        std::fs::write(&binary, "").unwrap();
        let link = prefix.path().join("arcus-memcached");
        std::os::unix::fs::symlink(&binary, &link).unwrap();
        let dir = Path::new("/var/tmp/peer");
        let args = PeerKind::ArcusSync.args(&link, 4242, dir);
        let lib = std::fs::canonicalize(prefix.path()).unwrap().join("lib");
        let at = |flag: &str| args[args.iter().position(|a| a == flag).unwrap() + 1].clone();
        assert_eq!(
            at("-E"),
            lib.join("default_engine.so").display().to_string()
        );
        assert_eq!(at("-X"), lib.join("ascii_scrub.so").display().to_string());
        assert_eq!(at("-p"), "4242");
        assert_eq!(at("-l"), "127.0.0.1");
        assert_eq!(at("-e"), "config_file=/var/tmp/peer/arcus.conf");
        assert_eq!(PeerKind::ArcusSync.protocol(), Protocol::Memcache);

        let sync = PeerKind::ArcusSync.arcus_config(dir).unwrap();
        assert!(sync.contains("use_persistence=true\n"), "{sync}");
        assert!(sync.contains("async_logging=false\n"), "{sync}");
        assert!(
            sync.contains("data_path=/var/tmp/peer\n")
                && sync.contains("logs_path=/var/tmp/peer\n")
        );
        let asynchronous = PeerKind::ArcusAsync.arcus_config(dir).unwrap();
        assert!(
            asynchronous.contains("async_logging=true\n"),
            "{asynchronous}"
        );
        assert_eq!(
            PeerKind::ArcusOff.arcus_config(dir).unwrap(),
            "use_persistence=false\n"
        );
        assert_eq!(PeerKind::RedisAlways.arcus_config(dir), None);
    }

    #[test]
    fn a_missing_arcus_is_a_reason_not_an_error() {
        match available(PeerKind::ArcusAsync) {
            Err(why) => assert!(why.contains("scripts/peers/arcus"), "{why}"),
            // Built here: its engine was found beside it.
            Ok(binary) => assert!(arcus_lib(&binary).join("default_engine.so").is_file()),
        }
    }
}
