//! The server started in-process on port 0: both front ends share one
//! keyspace, the settings report the actual ports, and shutdown closes
//! open connections; keyspace notifications set at start.

use crate::common;

use std::time::Duration;

use common::{round_trip, test_config};
use strata_server::{Server, ServerConfig, ServerError};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_front_ends_share_the_keyspace_and_shutdown_closes_connections() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&test_config(&dir, |_| {})).await.unwrap();
    assert!(dir.path().join("data").is_dir(), "data dir created");

    let mc_addr = server.memcache_addr().expect("memcache on");
    let resp_addr = server.resp_addr().expect("resp on");
    assert_ne!(mc_addr.port(), 0);
    assert_ne!(resp_addr.port(), 0);
    let settings = &server.info().settings;
    assert_eq!(settings.memcache_port, Some(mc_addr.port()));
    assert_eq!(settings.resp_port, Some(resp_addr.port()));
    assert_eq!(server.keyspace().memory_limit(), 64 << 20);

    let mut mc = TcpStream::connect(mc_addr).await.unwrap();
    round_trip(&mut mc, b"set k 0 0 5\r\nhello\r\n", b"STORED\r\n").await;
    let mut resp = TcpStream::connect(resp_addr).await.unwrap();
    round_trip(
        &mut resp,
        b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
        b"$5\r\nhello\r\n",
    )
    .await;

    tokio::time::timeout(
        Duration::from_secs(10),
        server.shutdown(Duration::from_secs(5)),
    )
    .await
    .expect("shutdown in time");
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), resp.read_to_end(&mut rest)).await;
    assert!(
        matches!(read, Ok(Ok(0))),
        "idle connection closed: {read:?}"
    );
    assert!(
        TcpStream::connect(mc_addr).await.is_err(),
        "listener closed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_switched_off_front_end_does_not_listen() {
    let dir = tempfile::tempdir().unwrap();
    let config = ServerConfig {
        memcache_enabled: false,
        ..test_config(&dir, |_| {})
    };
    let server = Server::start(&config).await.unwrap();
    assert_eq!(server.memcache_addr(), None);
    assert_eq!(server.info().settings.memcache_port, None);
    assert!(server.resp_addr().is_some());
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_port_is_a_bind_error() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = ServerConfig {
        resp_port: held.local_addr().unwrap().port(),
        ..test_config(&dir, |_| {})
    };
    match Server::start(&config).await {
        Err(
            err @ ServerError::Bind {
                protocol: "resp", ..
            },
        ) => {
            assert_eq!(err.exit_code(), 1);
            assert!(err.to_string().contains("cannot listen"), "{err}");
        }
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("bound a busy port"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_front_end_serves_search_and_flushes_at_shutdown() {
    use tokio::io::AsyncWriteExt;
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&test_config(&dir, |_| {})).await.unwrap();
    let addr = server.http_addr().expect("http on by default");
    assert_ne!(addr.port(), 0);
    server.search_recovered().await.unwrap();
    let body = r#"{"title":"hello"}"#;
    let request = format!(
        "PUT /notes/_doc/1?refresh=true HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    assert!(reply.starts_with("HTTP/1.1 201"), "{reply}");
    assert!(reply
        .to_ascii_lowercase()
        .contains("x-elastic-product: elasticsearch"));
    server.shutdown(Duration::from_secs(5)).await;
    assert!(dir.path().join("data/search/notes/index.json").is_file());

    let off = Server::start(&test_config(&dir, |c| c.http_enabled = false))
        .await
        .unwrap();
    assert!(off.http_addr().is_none());
    off.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_alone_starts_without_the_key_value_front_ends() {
    use tokio::io::AsyncWriteExt;
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&test_config(&dir, |c| {
        c.memcache_enabled = false;
        c.resp_enabled = false;
    }))
    .await
    .unwrap();
    assert!(server.memcache_addr().is_none() && server.resp_addr().is_none());
    let addr = server.http_addr().expect("http on");
    server.search_recovered().await.unwrap();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /_cluster/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"status\":\"green\""), "{reply}");
    server.shutdown(Duration::from_secs(5)).await;
}

/// `notify_keyspace_events` applies at start: RESP writes announce
/// themselves, memcached writes do not (only their keys' expiry would).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyspace_events_set_at_start_announce_resp_writes_only() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(&dir, |c| c.notify_keyspace_events = "EKA".into());
    let server = Server::start(&config).await.unwrap();
    let resp_addr = server.resp_addr().expect("resp on");
    let mut admin = TcpStream::connect(resp_addr).await.unwrap();
    round_trip(
        &mut admin,
        b"*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$22\r\nnotify-keyspace-events\r\n",
        b"*2\r\n$22\r\nnotify-keyspace-events\r\n$3\r\nAKE\r\n",
    )
    .await;
    let mut sub = TcpStream::connect(resp_addr).await.unwrap();
    round_trip(
        &mut sub,
        b"*2\r\n$9\r\nSUBSCRIBE\r\n$18\r\n__keyevent@0__:set\r\n",
        b"*3\r\n$9\r\nsubscribe\r\n$18\r\n__keyevent@0__:set\r\n:1\r\n",
    )
    .await;
    let mut mc = TcpStream::connect(server.memcache_addr().expect("mc on"))
        .await
        .unwrap();
    round_trip(&mut mc, b"set quiet 0 0 1\r\nv\r\n", b"STORED\r\n").await;
    round_trip(
        &mut admin,
        b"*3\r\n$3\r\nSET\r\n$4\r\nloud\r\n$1\r\nv\r\n",
        b"+OK\r\n",
    )
    .await;
    // Only the RESP write's event arrives.
    let want = b"*3\r\n$7\r\nmessage\r\n$18\r\n__keyevent@0__:set\r\n$4\r\nloud\r\n";
    let mut got = vec![0u8; want.len()];
    tokio::time::timeout(Duration::from_secs(5), sub.read_exact(&mut got))
        .await
        .expect("event in time")
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want));
    server.shutdown(Duration::from_secs(5)).await;
}
