//! A Strata server started as a child process for the length of a benchmark run.
//!
//! The child runs `<binary> serve --bind 127.0.0.1 --no-http --memcache-port P1 --resp-port P2
//! --data-dir <temp dir> [extra args...]` on two free local ports, with its output captured in
//! a log file next to the data directory. [`ServerProcess::stop`] asks it to exit with SIGTERM
//! and kills it after a grace period; dropping a `ServerProcess` without stopping it (an error
//! path or a cancelled run) kills it at once. The temporary directory is removed afterwards.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::kv::protocol::Protocol;
use crate::LabError;

/// How long a child may take to accept connections on both ports.
pub const READY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a child may take to exit after SIGTERM before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

const POLL: Duration = Duration::from_millis(20);

/// Bytes of the child's log quoted in errors.
const LOG_TAIL: u64 = 4096;

/// A running server child process.
#[derive(Debug)]
pub struct ServerProcess {
    child: Option<Child>,
    binary: PathBuf,
    memcache_port: u16,
    resp_port: u16,
    /// The HTTP (search) port, when the child serves HTTP (see [`ServerProcess::start_in`]).
    http_port: Option<u16>,
    /// The options after the ports and data directory, for [`ServerProcess::restart`].
    extra_args: Vec<String>,
    /// Holds the data directory and the log; removed on drop, after the child is gone.
    dir: TempDir,
}

impl ServerProcess {
    /// Starts `binary` (default: the current executable) as `serve` on free 127.0.0.1 ports
    /// with `extra_args` appended, and waits until both ports accept connections.
    pub async fn start(binary: Option<&Path>, extra_args: &[String]) -> Result<Self, LabError> {
        Self::start_in(binary, extra_args, &std::env::temp_dir(), false).await
    }

    /// [`start`](Self::start) with the temporary directory (data and log) under `parent`,
    /// and with `http` the HTTP front end on a third free port instead of `--no-http`.
    pub async fn start_in(
        binary: Option<&Path>,
        extra_args: &[String],
        parent: &Path,
        http: bool,
    ) -> Result<Self, LabError> {
        let binary = match binary {
            Some(path) => path.to_owned(),
            None => std::env::current_exe().map_err(|source| LabError::Spawn {
                binary: "strata".into(),
                source,
            })?,
        };
        let spawn_error = |source| LabError::Spawn {
            binary: binary.clone(),
            source,
        };
        let dir = tempfile::Builder::new()
            .prefix("strata-bench-")
            .tempdir_in(parent)
            .map_err(spawn_error)?;
        let data_dir = dir.path().join("data");
        std::fs::create_dir(&data_dir).map_err(spawn_error)?;
        let (memcache_port, resp_port) = free_port_pair().map_err(spawn_error)?;
        let http_port = if http {
            Some(free_port_pair().map_err(spawn_error)?.0)
        } else {
            None
        };
        let mut server = Self {
            child: None,
            binary,
            memcache_port,
            resp_port,
            http_port,
            extra_args: extra_args.to_vec(),
            dir,
        };
        server.spawn()?;
        server.wait_ready(READY_TIMEOUT).await?;
        Ok(server)
    }

    /// Starts the child process (appending to the log file).
    fn spawn(&mut self) -> Result<(), LabError> {
        let spawn_error = |source| LabError::Spawn {
            binary: self.binary.clone(),
            source,
        };
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.dir.path().join("server.log"))
            .map_err(spawn_error)?;
        let http = match self.http_port {
            Some(port) => vec!["--http-port".to_owned(), port.to_string()],
            None => vec!["--no-http".to_owned()],
        };
        let child = Command::new(&self.binary)
            .args(["serve", "--bind", "127.0.0.1"])
            .args(http)
            .arg("--memcache-port")
            .arg(self.memcache_port.to_string())
            .arg("--resp-port")
            .arg(self.resp_port.to_string())
            .arg("--data-dir")
            .arg(self.data_dir())
            .args(&self.extra_args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(spawn_error)?)
            .stderr(log)
            .spawn()
            .map_err(spawn_error)?;
        self.child = Some(child);
        Ok(())
    }

    /// Kills the child at once (SIGKILL, a crash) and reaps it.
    pub fn kill_now(&mut self) {
        self.kill();
    }

    /// Starts the server again on the same ports, data directory and options
    /// (after [`kill_now`](Self::kill_now) or a stop), and returns the time
    /// from the process start until both ports accept connections, which
    /// the server does only once its keyspace is restored.
    pub async fn restart(&mut self, timeout: Duration) -> Result<Duration, LabError> {
        self.kill();
        let started = Instant::now();
        self.spawn()?;
        self.wait_ready(timeout).await?;
        Ok(started.elapsed())
    }

    /// The child's process id (`None` after it was killed or stopped).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The port serving `protocol`.
    pub fn port(&self, protocol: Protocol) -> u16 {
        match protocol {
            Protocol::Memcache => self.memcache_port,
            Protocol::Resp => self.resp_port,
        }
    }

    /// The HTTP port, when started with HTTP.
    pub fn http_port(&self) -> Option<u16> {
        self.http_port
    }

    /// The child's data directory (inside a temporary directory removed on drop).
    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    async fn wait_ready(&mut self, timeout: Duration) -> Result<(), LabError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_wait()? {
                return Err(self.not_ready(format!("it exited early with {status}")));
            }
            let accepts = |port| tokio::net::TcpStream::connect(("127.0.0.1", port));
            let http_ok = match self.http_port {
                Some(port) => accepts(port).await.is_ok(),
                None => true,
            };
            if http_ok
                && accepts(self.memcache_port).await.is_ok()
                && accepts(self.resp_port).await.is_ok()
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(self.not_ready(format!(
                    "ports {} and {} did not accept connections within {timeout:?}",
                    self.memcache_port, self.resp_port
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Asks the child to exit (SIGTERM), kills it if it is still running after
    /// [`STOP_GRACE`], and reaps it.
    pub async fn stop(mut self) -> Result<(), LabError> {
        self.stop_in_place().await
    }

    /// [`stop`](Self::stop) keeping the data directory for a restart.
    pub async fn stop_in_place(&mut self) -> Result<(), LabError> {
        let Some(child) = &mut self.child else {
            return Ok(());
        };
        terminate(child);
        let deadline = Instant::now() + STOP_GRACE;
        while self.try_wait()?.is_none() {
            if Instant::now() >= deadline {
                eprintln!("strata bench: server did not exit within {STOP_GRACE:?} of SIGTERM; killing it");
                self.kill();
                return Ok(());
            }
            tokio::time::sleep(POLL).await;
        }
        self.child = None;
        Ok(())
    }

    fn try_wait(&mut self) -> Result<Option<std::process::ExitStatus>, LabError> {
        let Some(child) = &mut self.child else {
            return Ok(None);
        };
        child.try_wait().map_err(|source| LabError::Spawn {
            binary: self.binary.clone(),
            source,
        })
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            // Errors mean the child already exited; wait() then reaps it.
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn not_ready(&mut self, reason: String) -> LabError {
        self.kill();
        LabError::ServerNotReady {
            binary: self.binary.clone(),
            reason,
            log: self.log_tail(),
        }
    }

    /// The last [`LOG_TAIL`] bytes of the child's output.
    fn log_tail(&self) -> String {
        let read = || -> std::io::Result<String> {
            let mut file = File::open(self.dir.path().join("server.log"))?;
            let len = file.metadata()?.len();
            file.seek(SeekFrom::Start(len.saturating_sub(LOG_TAIL)))?;
            let mut tail = Vec::new();
            file.read_to_end(&mut tail)?;
            Ok(String::from_utf8_lossy(&tail).into_owned())
        };
        read().unwrap_or_else(|e| format!("(log unavailable: {e})"))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Two distinct free ports, found by binding port 0 (they may be taken again before the
/// child binds them; that race surfaces as a start failure).
fn free_port_pair() -> std::io::Result<(u16, u16)> {
    let first = TcpListener::bind(("127.0.0.1", 0))?;
    let second = TcpListener::bind(("127.0.0.1", 0))?;
    Ok((first.local_addr()?.port(), second.local_addr()?.port()))
}

/// Sends SIGTERM to `child`. The pid cannot have been reused: the child has not been
/// reaped (we hold its `Child` and only `wait`/`try_wait` reap it).
#[cfg(unix)]
fn terminate(child: &mut Child) {
    let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return;
    };
    let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
}

/// Without signals, stopping is killing.
#[cfg(not(unix))]
fn terminate(child: &mut Child) {
    let _ = child.kill();
}
