//! Runs the real `strata` binary as a child process for integration tests.
//!
//! The server is started with port 0 for both front ends and JSON logs; the
//! actual ports are read from its `listening` log lines. [`Server`] kills the
//! child on drop, so a failing test never leaves a process behind.

#![allow(dead_code)] // Each test binary uses a different part of this module.

pub mod http;
pub mod scale;
pub mod spawn;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The `strata` executable under test.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_strata")
}

/// A running `strata serve` child.
pub struct Server {
    child: Child,
    /// memcached front end address, if enabled.
    pub memcache: Option<SocketAddr>,
    /// RESP front end address, if enabled.
    pub resp: Option<SocketAddr>,
    /// Elasticsearch-compatible HTTP front end address, if enabled.
    pub http: Option<SocketAddr>,
    /// Prometheus metrics port address, if enabled.
    pub metrics: Option<SocketAddr>,
    /// Every stderr line so far (JSON log lines).
    log: Arc<Mutex<Vec<String>>>,
    _data_dir: tempfile::TempDir,
}

impl Server {
    /// Starts `strata serve` on free ports with `extra` options appended
    /// and the HTTP front end off (port 9200 would clash between tests).
    /// Panics (failing the test) if it does not listen within the timeout.
    pub fn start(extra: &[&str]) -> Server {
        Server::start_with(&["--no-http"], extra)
    }

    /// Like [`Server::start`], with the HTTP (search) front end on a free port.
    pub fn start_with_http(extra: &[&str]) -> Server {
        Server::start_with(&["--http-port", "0"], extra)
    }

    fn start_with(front_end: &[&str], extra: &[&str]) -> Server {
        let data_dir = tempfile::tempdir().expect("temp data dir");
        let mut args: Vec<String> = [
            "serve",
            "--bind",
            "127.0.0.1",
            "--memcache-port",
            "0",
            "--resp-port",
            "0",
            "--threads",
            "2",
            "--memory-limit",
            "64mb",
            "--log-format",
            "json",
        ]
        .iter()
        .chain(front_end)
        .map(|s| s.to_string())
        .collect();
        args.push("--data-dir".into());
        args.push(data_dir.path().display().to_string());
        args.extend(extra.iter().map(|s| s.to_string()));
        let spawned = spawn::spawn_serve(&args, START_TIMEOUT).unwrap_or_else(|failed| {
            let log = failed.log.lock().unwrap().join("\n");
            panic!("server did not start; log:\n{log}")
        });
        Server {
            child: spawned.child,
            memcache: spawned.memcache,
            resp: spawned.resp,
            http: spawned.http,
            metrics: spawned.metrics,
            log: spawned.log,
            _data_dir: data_dir,
        }
    }

    /// The RESP address (panics if that front end is off).
    pub fn resp(&self) -> SocketAddr {
        self.resp.expect("RESP front end is on")
    }

    /// The metrics port's address (panics if it is off).
    pub fn metrics(&self) -> SocketAddr {
        self.metrics.expect("metrics port is on")
    }

    /// The HTTP address (panics if that front end is off).
    pub fn http(&self) -> SocketAddr {
        self.http.expect("HTTP front end is on")
    }

    /// The memcached address (panics if that front end is off).
    pub fn memcache(&self) -> SocketAddr {
        self.memcache.expect("memcached front end is on")
    }

    /// Process id of the child.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends `signal` to the server (our own child, not yet reaped: the
    /// Drop guard reaps it, so the pid cannot have been reused).
    pub fn signal(&self, signal: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_raw(self.pid()).expect("child pid");
        rustix::process::kill_process(pid, signal).expect("kill failed");
    }

    /// Waits up to `timeout` for the child to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The log so far, one line per event.
    pub fn log_text(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }

    /// Parsed JSON log events whose message is `message`.
    pub fn events(&self, message: &str) -> Vec<serde_json::Value> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|e| e["message"] == message)
            .collect()
    }

    /// Waits (bounded) until the log has an event with `message`.
    pub fn wait_for_event(&self, message: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if !self.events(message).is_empty() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A raw TCP connection with a read timeout, for byte-level checks.
pub struct Raw {
    stream: TcpStream,
}

impl Raw {
    /// Connects to `addr`.
    pub fn connect(addr: SocketAddr) -> Raw {
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream.set_nodelay(true).unwrap();
        Raw { stream }
    }

    /// Sends `bytes` and reads until the reply ends with `terminator`.
    pub fn request(&mut self, bytes: &[u8], terminator: &[u8]) -> Vec<u8> {
        self.stream.write_all(bytes).expect("write");
        let mut reply = Vec::new();
        let mut buf = [0u8; 4096];
        while !reply.ends_with(terminator) {
            let n = self.stream.read(&mut buf).expect("read reply");
            assert!(
                n > 0,
                "connection closed; got {:?}",
                String::from_utf8_lossy(&reply)
            );
            reply.extend_from_slice(&buf[..n]);
        }
        reply
    }

    /// Reads everything until the server closes the connection.
    pub fn read_to_close(&mut self) -> Vec<u8> {
        let mut reply = Vec::new();
        let _ = self.stream.read_to_end(&mut reply);
        reply
    }
}

/// Runs `strata` with `args` to completion (killed after 30 s, failing the
/// test), returning (exit code, stderr).
pub fn run_to_exit(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(binary())
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run strata");
    let mut stderr = child.stderr.take().expect("stderr piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("strata {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap_or_default())
}

impl Raw {
    /// Sends `bytes` and returns the first reply line, or whatever arrived
    /// before the server closed the connection (a refusal).
    pub fn request_or_close(&mut self, bytes: &[u8]) -> Vec<u8> {
        let _ = self.stream.write_all(bytes);
        let mut reply = Vec::new();
        let mut buf = [0u8; 4096];
        while !reply.ends_with(b"\r\n") {
            match self.stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => reply.extend_from_slice(&buf[..n]),
            }
        }
        reply
    }
}
