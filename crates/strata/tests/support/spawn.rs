//! Spawning `strata serve` as a child and waiting until it is ready: the
//! one place that reads the server's JSON log lines for the front ends'
//! addresses (port 0 is asked for, the `listening` events tell the truth).
//! Shared by `support::Server` and the crash tests' `DurableServer`.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A spawned `strata` child, its stderr lines and, once ready, its
/// front ends' addresses.
pub struct Spawned {
    pub child: Child,
    /// Every stderr line so far (JSON log events).
    pub log: Arc<Mutex<Vec<String>>>,
    pub memcache: Option<SocketAddr>,
    pub resp: Option<SocketAddr>,
    pub http: Option<SocketAddr>,
    pub metrics: Option<SocketAddr>,
}

/// Runs `strata args...` and waits up to `timeout` for its `strata ready`
/// event. `Err` carries the child (still running or exited) and its log, for
/// the caller's failure message.
// The error is the whole child (for the failure message), once per start.
#[allow(clippy::result_large_err)]
pub fn spawn_serve(args: &[String], timeout: Duration) -> Result<Spawned, Spawned> {
    spawn_until(args, timeout, Until::Ready)
}

/// What [`spawn_until`] waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// `strata ready`: every front end serves everything.
    Ready,
    /// The front ends listen (the HTTP one last): the search indices may
    /// still be recovering. Addresses of front ends not listening yet are
    /// `None`.
    HttpListening,
}

/// [`spawn_serve`], returning at `until`.
#[allow(clippy::result_large_err)]
pub fn spawn_until(args: &[String], timeout: Duration, until: Until) -> Result<Spawned, Spawned> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn strata serve");
    let log = Arc::new(Mutex::new(Vec::new()));
    let (ready_tx, ready_rx) = mpsc::channel();
    let stderr = child.stderr.take().expect("stderr piped");
    let lines = log.clone();
    std::thread::spawn(move || {
        let (mut resp, mut memcache, mut http, mut metrics) = (None, None, None, None);
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            // Recorded before anyone is told, so waiters see the line.
            lines.lock().unwrap().push(line.clone());
            let Ok(event) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if event["message"] == "listening" {
                let addr = event["addr"].as_str().and_then(|a| a.parse().ok());
                match event["protocol"].as_str() {
                    Some("resp") => resp = addr,
                    Some("memcache") => memcache = addr,
                    Some("http") => http = addr,
                    Some("metrics") => metrics = addr,
                    other => panic!("unexpected front end {other:?}"),
                }
                if until == Until::HttpListening && http.is_some() {
                    let _ = ready_tx.send([memcache, resp, http, metrics]);
                }
            } else if event["message"] == "strata ready" {
                let _ = ready_tx.send([memcache, resp, http, metrics]);
            }
        }
    });
    let mut spawned = Spawned {
        child,
        log,
        memcache: None,
        resp: None,
        http: None,
        metrics: None,
    };
    match ready_rx.recv_timeout(timeout) {
        Ok([memcache, resp, http, metrics]) => {
            (spawned.memcache, spawned.resp) = (memcache, resp);
            (spawned.http, spawned.metrics) = (http, metrics);
            Ok(spawned)
        }
        Err(_) => Err(spawned),
    }
}
