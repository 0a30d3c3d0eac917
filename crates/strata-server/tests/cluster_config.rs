//! Cluster mode's node id and epoch survive a restart through the cluster
//! config file (Redis's `nodes.conf`) in the data directory; a damaged
//! file refuses the start, as Redis refuses a corrupted one; an empty one
//! means a new node.

use crate::common::test_config;

use std::time::Duration;

use strata_server::{Server, ServerConfig, ServerError};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Sends `words` as one RESP2 request; the reply's text (a simple string,
/// an error or a bulk).
async fn ask(stream: &mut BufReader<TcpStream>, words: &[&str]) -> String {
    let mut request = format!("*{}\r\n", words.len());
    for word in words {
        request.push_str(&format!("${}\r\n{word}\r\n", word.len()));
    }
    stream
        .get_mut()
        .write_all(request.as_bytes())
        .await
        .unwrap();
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_line(&mut line))
        .await
        .expect("reply in time")
        .unwrap();
    let line = line.trim_end().to_string();
    let Some(len) = line.strip_prefix('$') else {
        return line[1..].to_string();
    };
    let mut bulk = vec![0; len.parse::<usize>().unwrap() + 2];
    stream.read_exact(&mut bulk).await.unwrap();
    String::from_utf8(bulk[..bulk.len() - 2].to_vec()).unwrap()
}

async fn connect(server: &Server) -> BufReader<TcpStream> {
    BufReader::new(
        TcpStream::connect(server.resp_addr().unwrap())
            .await
            .unwrap(),
    )
}

fn cluster_config(dir: &tempfile::TempDir, file: &str) -> ServerConfig {
    test_config(dir, |c| {
        c.cluster_enabled = true;
        c.cluster_config_file = file.into();
        c.http_enabled = false;
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_keeps_the_node_id_and_epoch() {
    let dir = tempfile::tempdir().unwrap();
    let config = cluster_config(&dir, "nodes.conf");
    let server = Server::start(&config).await.unwrap();
    let mut c = connect(&server).await;
    let id = ask(&mut c, &["CLUSTER", "MYID"]).await;
    assert_eq!(id.len(), 40, "{id}");
    assert_eq!(ask(&mut c, &["CLUSTER", "BUMPEPOCH"]).await, "BUMPED 1");
    assert_eq!(ask(&mut c, &["CLUSTER", "SAVECONFIG"]).await, "OK");
    let file = dir.path().join("data").join("nodes.conf");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(&format!("{id} ")), "{text}");
    assert!(
        text.contains(" myself,master - 0 0 1 connected 0-16383\n"),
        "{text}"
    );
    server.shutdown(Duration::from_secs(5)).await;

    let server = Server::start(&config).await.unwrap();
    let mut c = connect(&server).await;
    assert_eq!(ask(&mut c, &["CLUSTER", "MYID"]).await, id);
    assert!(ask(&mut c, &["CLUSTER", "INFO"])
        .await
        .contains("cluster_my_epoch:1\r\n"));
    assert_eq!(ask(&mut c, &["CLUSTER", "BUMPEPOCH"]).await, "STILL 1");
    server.shutdown(Duration::from_secs(5)).await;

    // An empty file is a new node, as in Redis.
    std::fs::write(&file, b"").unwrap();
    let server = Server::start(&config).await.unwrap();
    let mut c = connect(&server).await;
    let fresh = ask(&mut c, &["CLUSTER", "MYID"]).await;
    assert!(fresh.len() == 40 && fresh != id, "{fresh}");
    server.shutdown(Duration::from_secs(5)).await;
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(&format!("{fresh} ")), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_file_refuses_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = cluster_config(&dir, "cluster/my-nodes.conf");
    std::fs::create_dir_all(dir.path().join("data/cluster")).unwrap();
    let file = dir.path().join("data/cluster/my-nodes.conf");
    std::fs::write(&file, b"garbage\n").unwrap();
    let Err(err) = Server::start(&config).await else {
        panic!("started on a damaged cluster config file");
    };
    assert!(matches!(err, ServerError::ClusterConfig(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("corrupted cluster config file"), "{text}");
    assert!(text.contains("my-nodes.conf"), "{text}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        b"garbage\n",
        "left as it was"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_config_name_is_shown_and_unused_without_cluster_mode() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(&dir, |c| {
        c.cluster_config_file = "elsewhere.conf".into();
        c.http_enabled = false;
    });
    let server = Server::start(&config).await.unwrap();
    let mut c = connect(&server).await;
    c.get_mut()
        .write_all(b"*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$19\r\ncluster-config-file\r\n")
        .await
        .unwrap();
    let want = b"*2\r\n$19\r\ncluster-config-file\r\n$14\r\nelsewhere.conf\r\n";
    let mut got = vec![0; want.len()];
    c.read_exact(&mut got).await.unwrap();
    assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want));
    server.shutdown(Duration::from_secs(5)).await;
    assert!(!dir.path().join("data/elsewhere.conf").exists());
}
