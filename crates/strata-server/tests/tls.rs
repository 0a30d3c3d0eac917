//! TLS on every port of a server started in-process: RESP on `tls_port`
//! beside the plain port, the memcached port with `memcache_tls`, the HTTP
//! port with `http_tls`, each spoken to by a Rust TLS client; the
//! certificate replaced on disk and served to new handshakes; client
//! certificates (`tls_ca_cert_file`, `tls_auth_clients`); refused
//! configurations naming the setting.

use crate::common;
use crate::transport_support;

use std::time::{Duration, Instant};

use common::test_config;
use strata_server::{Server, ServerError, TlsAuthClients};
use tokio::net::TcpStream;
use transport_support::{
    http_request, read_response, read_until_closed, round_trip, tls_connect, Pki, WAIT,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_port_speaks_tls_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let config = test_config(&dir, |c| {
        pki.configure(c);
        c.tls_port = Some(0);
        c.memcache_tls = true;
        c.http_tls = true;
    });
    let server = Server::start(&config).await.unwrap();
    let client = pki.client(None);

    // RESP over TLS on its own port; the plain port still serves.
    let tls_addr = server.resp_tls_addr().expect("tls_port listens");
    let mut resp = tls_connect(tls_addr, client.clone()).await.unwrap();
    round_trip(
        &mut resp,
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n",
        b"+OK\r\n",
    )
    .await;
    let mut plain = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    round_trip(
        &mut plain,
        b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
        b"$2\r\nv1\r\n",
    )
    .await;

    // The memcached port itself speaks TLS: plain text gets nothing.
    let mc_addr = server.memcache_addr().unwrap();
    let mut mc = tls_connect(mc_addr, client.clone()).await.unwrap();
    round_trip(&mut mc, b"get k\r\n", b"VALUE k 0 2\r\nv1\r\nEND\r\n").await;
    let mut mc_plain = TcpStream::connect(mc_addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut mc_plain, b"get k\r\n")
        .await
        .unwrap();
    let (got, closed) = read_until_closed(&mut mc_plain, WAIT).await;
    assert!(
        closed && !got.starts_with(b"VALUE"),
        "plain text on a TLS port: {got:?}"
    );

    // HTTPS, keep-alive: two requests on one connection.
    let mut http = tls_connect(server.http_addr().unwrap(), client)
        .await
        .unwrap();
    for _ in 0..2 {
        tokio::io::AsyncWriteExt::write_all(&mut http, &http_request("GET", "/", ""))
            .await
            .unwrap();
        let (status, body) = read_response(&mut http).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("\"cluster_name\""), "{body}");
    }
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_certificate_is_served_to_new_handshakes() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let config = test_config(&dir, |c| {
        pki.configure(c);
        c.tls_port = Some(0);
    });
    let server = Server::start(&config).await.unwrap();
    let addr = server.resp_tls_addr().unwrap();
    let leaf = |tls: &tokio_rustls::client::TlsStream<TcpStream>| {
        tls.get_ref().1.peer_certificates().unwrap()[0].to_vec()
    };
    let mut before = tls_connect(addr, pki.client(None)).await.unwrap();
    assert_eq!(leaf(&before), pki.server.der.to_vec());

    // Written to temporary files and renamed over the configured ones.
    let renewed = pki.ca.server_cert();
    let (cert, key) = renewed.write(dir.path(), "renewed");
    std::fs::rename(key, &pki.key).unwrap();
    std::fs::rename(cert, &pki.cert).unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        let tls = tls_connect(addr, pki.client(None)).await.unwrap();
        if leaf(&tls) == renewed.der.to_vec() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "renewed certificate not served in time"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The connection opened before the reload goes on.
    round_trip(&mut before, b"*1\r\n$4\r\nPING\r\n", b"+PONG\r\n").await;
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificates_are_checked_against_the_ca() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    // A CA file alone means tls_auth_clients = yes, as in Redis.
    let config = test_config(&dir, |c| {
        pki.configure(c);
        c.tls_port = Some(0);
        c.tls_ca_cert_file = Some(pki.ca_file.clone());
    });
    let server = Server::start(&config).await.unwrap();
    let addr = server.resp_tls_addr().unwrap();
    let alice = pki.ca.client_cert("alice");
    let mut ok = tls_connect(addr, pki.client(Some(&alice))).await.unwrap();
    round_trip(&mut ok, b"*1\r\n$4\r\nPING\r\n", b"+PONG\r\n").await;

    // Without a certificate the handshake (TLS 1.3: the first read) fails.
    let refused = match tls_connect(addr, pki.client(None)).await {
        Err(_) => true,
        Ok(mut tls) => {
            tokio::io::AsyncWriteExt::write_all(&mut tls, b"*1\r\n$4\r\nPING\r\n")
                .await
                .ok();
            let (got, closed) = read_until_closed(&mut tls, WAIT).await;
            closed && got.is_empty()
        }
    };
    assert!(refused, "a client without a certificate was served");
    server.shutdown(Duration::from_secs(5)).await;

    // `optional`: both are served.
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let config = test_config(&dir, |c| {
        pki.configure(c);
        c.tls_port = Some(0);
        c.tls_ca_cert_file = Some(pki.ca_file.clone());
        c.tls_auth_clients = Some(TlsAuthClients::Optional);
    });
    let server = Server::start(&config).await.unwrap();
    let addr = server.resp_tls_addr().unwrap();
    for identity in [None, Some(pki.ca.client_cert("bob"))] {
        let mut tls = tls_connect(addr, pki.client(identity.as_ref()))
            .await
            .unwrap();
        round_trip(&mut tls, b"*1\r\n$4\r\nPING\r\n", b"+PONG\r\n").await;
    }
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_certificate_file_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    std::fs::write(&pki.key, "not a key\n").unwrap();
    let config = test_config(&dir, |c| {
        pki.configure(c);
        c.http_tls = true;
    });
    let Err(err) = Server::start(&config).await else {
        panic!("started with an unusable key")
    };
    assert!(matches!(err, ServerError::Tls(_)), "{err}");
    assert!(err.to_string().contains("private key file"), "{err}");
}
