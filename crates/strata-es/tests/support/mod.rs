//! A node served on a free port and a raw HTTP/1.1 client
//! (`Connection: close`, one request per connection), so the tests see
//! exactly the bytes a client would.

#![allow(dead_code)] // Each test binary uses a different part.

pub mod logs;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use strata_es::{Node, NodeConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The commit the test node says it was built from (`build_hash`).
pub const BUILD_HASH: &str = "0123456789abcdef0123456789abcdef01234567";

/// How long [`send_to`] waits for a whole reply before failing the test,
/// counted by [`within`]. It turns a server that never answers into a
/// failure; it is not a latency check. A debug build on a loaded machine
/// (tests run at `nice -n 19` beside other builds) took over 10 s to
/// create an index or to run a 65,537-term query, so the bound is far
/// above any reply's time and still fails a hung request in bounded time.
pub const REPLY_DEADLINE: Duration = Duration::from_secs(300);

/// The step in which [`within`] counts its waiting.
const TICK: Duration = Duration::from_secs(1);

/// `fut`'s output, or `None` once `limit` has passed in steps of [`TICK`]
/// that ended on time. A step that ends a tick or more late (the process
/// was stopped, or starved of CPU) is not counted, so a machine's load
/// stretches the wait but never fails it.
pub async fn within<T>(limit: Duration, fut: impl std::future::Future<Output = T>) -> Option<T> {
    let mut fut = std::pin::pin!(fut);
    let mut waited = Duration::ZERO;
    while waited < limit {
        let step = std::time::Instant::now();
        if let Ok(out) = tokio::time::timeout(TICK, fut.as_mut()).await {
            return Some(out);
        }
        if step.elapsed() < 2 * TICK {
            waited += TICK;
        }
    }
    None
}

/// A running front end over a node in a temporary directory.
pub struct TestServer {
    pub addr: SocketAddr,
    pub node: Arc<Node>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    pub dir: Arc<tempfile::TempDir>,
}

impl TestServer {
    /// Starts a node in a fresh directory with a body limit of `max_body`.
    pub async fn start(max_body: usize) -> TestServer {
        let dir = Arc::new(tempfile::tempdir().unwrap());
        TestServer::start_in(dir, max_body).await
    }

    /// Starts a node over `dir` (reopening its indices).
    pub async fn start_in(dir: Arc<tempfile::TempDir>, max_body: usize) -> TestServer {
        TestServer::start_with(dir, max_body, None).await
    }

    /// Starts a node over `dir`, with HTTP security when `security` is set.
    pub async fn start_with(
        dir: Arc<tempfile::TempDir>,
        max_body: usize,
        security: Option<strata_es::SecurityConfig>,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let config = NodeConfig {
            root: dir.path().join("search"),
            node_name: "test-node".into(),
            cluster_name: "test-cluster".into(),
            max_body,
            http_addr: addr,
            storage: TestServer::storage(&dir),
            build_hash: BUILD_HASH.into(),
        };
        let node = tokio::task::spawn_blocking(move || Node::open(config))
            .await
            .unwrap()
            .unwrap();
        let node = match security {
            Some(security) => node.with_security(&security).unwrap(),
            None => node,
        };
        let node = Arc::new(node);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(strata_es::serve(
            listener,
            strata_es::NodeState::ready(Arc::clone(&node)),
            async move {
                let _ = stopped.await;
            },
        ));
        TestServer {
            addr,
            node,
            stop: Some(stop),
            task: Some(task),
            dir,
        }
    }

    /// The storage options of a test node: `dram` by default, a 4 MiB
    /// block cache, persistent memory emulated under the test directory.
    pub fn storage(dir: &tempfile::TempDir) -> strata_search::SearchStorage {
        strata_search::SearchStorage {
            default_tier: strata_search::StoreTier::Dram,
            cache: Arc::new(strata_search::BlockCache::new(4 << 20)),
            pmem_root: Some(dir.path().join("pmem")),
            ..Default::default()
        }
    }

    /// Stops serving; `flush` also closes the node as `strata serve` does.
    pub async fn stop(mut self, flush: bool) -> Arc<tempfile::TempDir> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
        if flush {
            let node = Arc::clone(&self.node);
            tokio::task::spawn_blocking(move || node.shutdown())
                .await
                .unwrap()
                .unwrap();
        }
        // A connection's task can hold the node for a moment after the
        // server's task has ended. A restart over the same directory must
        // find the node gone (its index writers hold the directories'
        // locks), so wait to be the last owner and drop it here.
        let TestServer { node, dir, .. } = self;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while Arc::strong_count(&node) > 1 && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::task::spawn_blocking(move || drop(node))
            .await
            .unwrap();
        dir
    }

    /// Sends a request with a JSON (or empty) body.
    pub async fn json(&self, method: &str, path: &str, body: Option<Value>) -> Response {
        let body = body.map(|b| b.to_string().into_bytes());
        self.send(
            method,
            path,
            &[("Content-Type", "application/json")],
            body.as_deref(),
        )
        .await
    }

    /// Sends raw bytes with the given headers.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Response {
        send_to(self.addr, method, path, headers, body).await
    }
}

/// Sends one request to `addr` (raw bytes with the given headers) and
/// reads the whole reply.
pub async fn send_to(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Response {
    {
        let mut request =
            format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        let body = body.unwrap_or_default();
        request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        // A server may answer (413) before reading the whole body.
        let _ = stream.write_all(body).await;
        let mut raw = Vec::new();
        within(REPLY_DEADLINE, stream.read_to_end(&mut raw))
            .await
            .unwrap_or_else(|| panic!("{method} {path}: no reply in {REPLY_DEADLINE:?}"))
            .unwrap();
        Response::parse(&raw, method == "HEAD")
    }
}

/// The data of a `Transfer-Encoding: chunked` body (hex size line, data,
/// CRLF, ..., a zero-size chunk).
pub fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = raw
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size line");
        let size_text = String::from_utf8_lossy(&raw[..line_end]).to_string();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("chunk size");
        raw = &raw[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

/// A parsed reply.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    fn parse(raw: &[u8], head: bool) -> Response {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("header end");
        let head_text = String::from_utf8_lossy(&raw[..split]).to_string();
        let mut lines = head_text.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let headers: Vec<(String, String)> = headers;
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
        let body = if head {
            Vec::new()
        } else if chunked {
            dechunk(&raw[split + 4..])
        } else {
            raw[split + 4..].to_vec()
        };
        Response {
            status,
            headers,
            body,
        }
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).to_string()
    }
}

/// `PUT /_cluster/settings` with `settings` in `scope`, which must succeed.
pub async fn put_cluster_settings(s: &TestServer, scope: &str, settings: Value) {
    let r = s
        .json(
            "PUT",
            "/_cluster/settings",
            Some(serde_json::json!({ scope: settings })),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
}

/// Asserts an Elasticsearch error reply: status, type (also as the root
/// cause) and the start of its reason.
pub fn assert_error(r: &Response, status: u16, kind: &str, reason: &str) {
    assert_eq!(r.status, status, "{}", r.text());
    let body = r.json();
    assert_eq!(body["status"], status);
    assert_eq!(body["error"]["type"], kind, "{body}");
    assert_eq!(body["error"]["root_cause"][0]["type"], kind);
    let got = body["error"]["reason"].as_str().unwrap();
    assert!(
        got.starts_with(reason),
        "reason [{got}] does not start with [{reason}]"
    );
}
