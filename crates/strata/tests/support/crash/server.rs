//! `strata serve` as a child process on a data directory the test owns, so it
//! can be killed (SIGKILL) or stopped (SIGTERM) and started again on the
//! same files.
//!
//! Both front ends listen on port 0; their addresses are read from the
//! server's JSON `listening` log lines by `support/spawn.rs`. Dropping a
//! [`DurableServer`] kills the child, so a failing test leaves no process
//! behind.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a server may take to recover and listen.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Log lines quoted in failure messages.
const LOG_TAIL_LINES: usize = 40;

/// A running (or killed, not yet dropped) `strata serve` child.
pub struct DurableServer {
    child: Child,
    resp: SocketAddr,
    memcache: SocketAddr,
    /// Every stderr line (JSON log events).
    log: Arc<Mutex<Vec<String>>>,
}

impl DurableServer {
    /// Starts `strata serve` on `data_dir` with `options` appended to the
    /// test defaults, and waits until it is ready. Panics with the server's
    /// log if it is not ready within [`START_TIMEOUT`].
    pub fn start(data_dir: &Path, options: &[String]) -> DurableServer {
        let args = serve_args(data_dir, options);
        let ready = crate::spawn::spawn_serve(&args, START_TIMEOUT);
        let ok = ready.is_ok();
        let mut spawned = ready.unwrap_or_else(|failed| failed);
        let unknown = SocketAddr::from(([127, 0, 0, 1], 0));
        let addrs = spawned.resp.zip(spawned.memcache);
        let exit = spawned.child.try_wait();
        let server = DurableServer {
            resp: addrs.map_or(unknown, |a| a.0),
            memcache: addrs.map_or(unknown, |a| a.1),
            child: spawned.child,
            log: spawned.log,
        };
        if !ok {
            panic!(
                "strata serve {args:?} was not ready within {START_TIMEOUT:?} (exit: {exit:?}); log:\n{}",
                server.log_tail()
            );
        }
        if addrs.is_none() {
            panic!(
                "no listening line for a front end; log:\n{}",
                server.log_tail()
            );
        }
        server
    }

    /// Starts `strata serve` like [`DurableServer::start`] but kills it with
    /// SIGKILL `after` the spawn, ready or not: a crash during recovery.
    pub fn start_and_kill(data_dir: &Path, options: &[String], after: Duration) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
            .args(serve_args(data_dir, options))
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn strata serve");
        std::thread::sleep(after);
        // An error means it already exited (a failed start shows in the
        // next, waited-for start).
        let _ = child.kill();
        let _ = child.wait();
    }

    /// The RESP front end's address.
    pub fn resp(&self) -> SocketAddr {
        self.resp
    }

    /// The memcached front end's address.
    pub fn memcache(&self) -> SocketAddr {
        self.memcache
    }

    /// Kills the server with SIGKILL and reaps it.
    pub fn kill(&mut self) {
        // An error means it already exited; wait() reaps it either way.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends SIGTERM, then SIGKILL `after` that unless it has exited: a
    /// crash during a clean shutdown.
    pub fn terminate_then_kill(&mut self, after: Duration) {
        self.signal(rustix::process::Signal::TERM);
        std::thread::sleep(after);
        self.kill();
    }

    /// Sends SIGTERM and waits up to `timeout` for the exit; panics (after
    /// killing it) if it does not exit in time.
    pub fn terminate(&mut self, timeout: Duration) -> ExitStatus {
        self.signal(rustix::process::Signal::TERM);
        self.wait_exit(timeout, "SIGTERM")
    }

    /// Waits up to `timeout` for the exit `after` asked for; panics (after
    /// killing it) if it does not exit in time.
    pub fn wait_exit(&mut self, timeout: Duration, after: &str) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() >= deadline {
                self.kill();
                panic!(
                    "server did not exit within {timeout:?} of {after}; log:\n{}",
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends `signal` to the server.
    pub fn signal(&self, signal: rustix::process::Signal) {
        // Our own unreaped child: its pid cannot have been reused.
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).expect("child pid");
        rustix::process::kill_process(pid, signal).expect("signal the server");
    }

    /// Whether the child has not exited.
    #[allow(dead_code)] // not every crash test asks
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The last [`LOG_TAIL_LINES`] log lines.
    pub fn log_tail(&self) -> String {
        let log = self.log.lock().unwrap();
        let from = log.len().saturating_sub(LOG_TAIL_LINES);
        log[from..].join("\n")
    }
}

impl Drop for DurableServer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// `serve` with the test defaults, `data_dir` and then `options`.
fn serve_args(data_dir: &Path, options: &[String]) -> Vec<String> {
    let mut args: Vec<String> = [
        "serve",
        "--bind",
        "127.0.0.1",
        "--resp-port",
        "0",
        "--memcache-port",
        "0",
        "--threads",
        "2",
        "--memory-limit",
        "256mb",
        "--eviction",
        "off",
        "--log-format",
        "json",
        // The crash tests cover the key-value store; port 9200 would clash.
        "--no-http",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push("--data-dir".into());
    args.push(data_dir.display().to_string());
    args.extend(options.iter().cloned());
    args
}
