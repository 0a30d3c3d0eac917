//! TLS through a [`Listener`] with a Rust TLS client (tokio-rustls):
//! handshakes and data both ways, certificate reload on file change and on
//! SIGHUP (a bad new certificate keeping the old one), client certificate
//! verification in its three modes, the handshake time bound and refusals
//! before a handshake. Everything on 127.0.0.1, bounded in time.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_net::test_certs::{client_config, server_name, Issued, TestCa};
use strata_net::{ClientAuth, Listener, TlsAcceptor, TlsFiles};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(10);

/// Files of a server identity in `dir`.
fn write_identity(dir: &Path, server: &Issued, ca: Option<&TestCa>, auth: ClientAuth) -> TlsFiles {
    let (cert, key) = server.write(dir, "server");
    TlsFiles {
        cert,
        key,
        ca: ca.map(|ca| ca.write(dir, "ca")),
        client_auth: auth,
    }
}

/// An echo server on a TLS port: every connection echoes what it reads.
async fn echo_server(acceptor: TlsAcceptor, handshake: Duration) -> SocketAddr {
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let mut listener = Listener::from(tcp).with_tls(acceptor, handshake);
    tokio::spawn(async move {
        loop {
            let incoming = listener.accept().await;
            tokio::spawn(async move {
                let Ok(mut conn) = incoming.establish().await else {
                    return;
                };
                let mut buf = [0u8; 1024];
                while let Ok(n) = conn.read(&mut buf).await {
                    if n == 0 || conn.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    if conn.flush().await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    addr
}

/// Connects, sends a line and reads it back; returns the server's leaf
/// certificate. `Err` when the handshake or the exchange fails.
async fn exchange(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
) -> Result<Vec<u8>, std::io::Error> {
    let tcp = TcpStream::connect(addr).await?;
    let connector = tokio_rustls::TlsConnector::from(config);
    let mut tls = tokio::time::timeout(WAIT, connector.connect(server_name(), tcp))
        .await
        .map_err(|_| std::io::Error::other("handshake timed out"))??;
    let leaf = tls.get_ref().1.peer_certificates().unwrap()[0].to_vec();
    tls.write_all(b"ping\r\n").await?;
    tls.flush().await?;
    let mut got = [0u8; 6];
    tokio::time::timeout(WAIT, tls.read_exact(&mut got))
        .await
        .map_err(|_| std::io::Error::other("no echo in time"))??;
    assert_eq!(&got, b"ping\r\n");
    Ok(leaf)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_port_serves_a_rust_client() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("test CA");
    let server = ca.server_cert();
    let acceptor =
        TlsAcceptor::load(write_identity(dir.path(), &server, None, ClientAuth::No)).unwrap();
    let addr = echo_server(acceptor, WAIT).await;
    let leaf = exchange(addr, client_config(&[&ca], None)).await.unwrap();
    assert_eq!(leaf, server.der.to_vec());
    // A client that does not trust the CA fails.
    let other = TestCa::new("other CA");
    assert!(exchange(addr, client_config(&[&other], None))
        .await
        .is_err());
}

/// Waits until new handshakes present `want`.
async fn wait_for_certificate(addr: SocketAddr, config: Arc<rustls::ClientConfig>, want: &Issued) {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Ok(leaf) = exchange(addr, config.clone()).await {
            if leaf == want.der.to_vec() {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the new certificate was not served in time"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificate_files_replaced_are_served_to_new_handshakes() {
    let dir = tempfile::tempdir().unwrap();
    let (ca1, ca2) = (TestCa::new("first CA"), TestCa::new("second CA"));
    let (first, second) = (ca1.server_cert(), ca2.server_cert());
    let files = write_identity(dir.path(), &first, None, ClientAuth::No);
    let acceptor = TlsAcceptor::load(files.clone()).unwrap();
    let shutdown = CancellationToken::new();
    let _watch = strata_net::tls::watch::spawn(
        acceptor.clone(),
        Duration::from_millis(50),
        shutdown.clone(),
    );
    let addr = echo_server(acceptor.clone(), WAIT).await;
    let both = client_config(&[&ca1, &ca2], None);
    assert_eq!(
        exchange(addr, both.clone()).await.unwrap(),
        first.der.to_vec()
    );

    // A half-written replacement (a certificate that does not parse) is
    // refused: the first certificate keeps being served.
    std::fs::write(&files.cert, "-----BEGIN CERTIFICATE-----\nnot base64!\n").unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(acceptor.reload().is_err());
    assert_eq!(
        exchange(addr, both.clone()).await.unwrap(),
        first.der.to_vec()
    );
    // A certificate whose key is the old one's does not match: refused too.
    std::fs::write(&files.cert, &second.cert_pem).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        exchange(addr, both.clone()).await.unwrap(),
        first.der.to_vec()
    );

    // The key arrives: the second certificate is served from now on,
    // also to clients trusting only its CA.
    std::fs::write(&files.key, &second.key_pem).unwrap();
    wait_for_certificate(addr, both.clone(), &second).await;
    exchange(addr, client_config(&[&ca2], None)).await.unwrap();
    assert!(exchange(addr, client_config(&[&ca1], None)).await.is_err());

    // A new file renamed over the old one (how tools like certbot
    // replace them) counts as a change too.
    let third = ca1.server_cert();
    let (staged_cert, staged_key) = third.write(dir.path(), "staged");
    std::fs::rename(&staged_key, &files.key).unwrap();
    std::fs::rename(&staged_cert, &files.cert).unwrap();
    wait_for_certificate(addr, both, &third).await;
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_reloads_the_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("test CA");
    let (first, second) = (ca.server_cert(), ca.server_cert());
    let files = write_identity(dir.path(), &first, None, ClientAuth::No);
    let acceptor = TlsAcceptor::load(files.clone()).unwrap();
    let shutdown = CancellationToken::new();
    // Polling so slow that only the signal can cause the reload.
    let _watch = strata_net::tls::watch::spawn(
        acceptor.clone(),
        Duration::from_secs(3600),
        shutdown.clone(),
    );
    let addr = echo_server(acceptor, WAIT).await;
    let config = client_config(&[&ca], None);
    assert_eq!(
        exchange(addr, config.clone()).await.unwrap(),
        first.der.to_vec()
    );
    second.write(dir.path(), "server");
    let status = std::process::Command::new("kill")
        .args(["-HUP", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    wait_for_certificate(addr, config, &second).await;
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificates_required() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("test CA");
    let files = write_identity(
        dir.path(),
        &ca.server_cert(),
        Some(&ca),
        ClientAuth::Required,
    );
    let addr = echo_server(TlsAcceptor::load(files).unwrap(), WAIT).await;
    let alice = ca.client_cert("alice");
    exchange(addr, client_config(&[&ca], Some(&alice)))
        .await
        .unwrap();
    assert!(
        exchange(addr, client_config(&[&ca], None)).await.is_err(),
        "no certificate"
    );
    let stranger = TestCa::new("stranger CA").client_cert("mallory");
    assert!(
        exchange(addr, client_config(&[&ca], Some(&stranger)))
            .await
            .is_err(),
        "certificate from another CA"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificates_optional() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("test CA");
    let files = write_identity(
        dir.path(),
        &ca.server_cert(),
        Some(&ca),
        ClientAuth::Optional,
    );
    let addr = echo_server(TlsAcceptor::load(files).unwrap(), WAIT).await;
    exchange(addr, client_config(&[&ca], Some(&ca.client_cert("alice"))))
        .await
        .unwrap();
    exchange(addr, client_config(&[&ca], None)).await.unwrap();
    let stranger = TestCa::new("stranger CA").client_cert("mallory");
    assert!(exchange(addr, client_config(&[&ca], Some(&stranger)))
        .await
        .is_err());
}

#[test]
fn unusable_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("test CA");
    let server = ca.server_cert();
    let mut files = write_identity(dir.path(), &server, None, ClientAuth::No);
    let missing = TlsFiles {
        cert: dir.path().join("missing.crt"),
        ..files.clone()
    };
    let err = TlsAcceptor::load(missing).unwrap_err().to_string();
    assert!(
        err.contains("certificate file") && err.contains("missing.crt"),
        "{err}"
    );
    std::fs::write(&files.key, "no key here\n").unwrap();
    let err = TlsAcceptor::load(files.clone()).unwrap_err().to_string();
    assert!(err.contains("private key file"), "{err}");
    files.key = server.write(dir.path(), "server").1;
    files.client_auth = ClientAuth::Required;
    let err = TlsAcceptor::load(files.clone()).unwrap_err().to_string();
    assert!(err.contains("CA certificate"), "{err}");
    files.ca = Some(dir.path().join("server.key"));
    let err = TlsAcceptor::load(files).unwrap_err().to_string();
    assert!(err.contains("CA certificate file"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handshake_sent_a_byte_at_a_time_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("test CA");
    let files = write_identity(dir.path(), &ca.server_cert(), None, ClientAuth::No);
    let bound = Duration::from_millis(500);
    let addr = echo_server(TlsAcceptor::load(files).unwrap(), bound).await;
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    // The start of a ClientHello record, one byte every 100 ms.
    let mut closed = false;
    for byte in [
        0x16u8, 0x03, 0x01, 0x00, 0xff, 0x01, 0x00, 0x00, 0xfb, 0x03, 0x03,
    ]
    .iter()
    .cycle()
    .take(60)
    {
        if tcp.write_all(&[*byte]).await.is_err() {
            closed = true;
            break;
        }
        let mut buf = [0u8; 64];
        match tokio::time::timeout(Duration::from_millis(100), tcp.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => {
                closed = true;
                break;
            }
            _ => {}
        }
    }
    let elapsed = started.elapsed();
    assert!(closed, "the slow handshake was never cut off");
    assert!(
        // The server's clock starts at accept, a moment before ours.
        elapsed >= bound * 9 / 10 && elapsed < bound * 4,
        "closed after {elapsed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_before_the_handshake() {
    // Plain port: the message arrives, then the connection closes.
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let mut listener = Listener::from(tcp);
    let client = tokio::spawn(async move {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        let mut got = Vec::new();
        tokio::time::timeout(WAIT, stream.read_to_end(&mut got))
            .await
            .unwrap()
            .unwrap();
        got
    });
    // Let the request arrive first, as a real client's would.
    let incoming = listener.accept().await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    incoming.refuse(b"-ERR max number of clients reached\r\n");
    assert_eq!(
        client.await.unwrap(),
        b"-ERR max number of clients reached\r\n"
    );

    // TLS port: nothing can be said before a handshake; just closed.
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("test CA");
    let files = write_identity(dir.path(), &ca.server_cert(), None, ClientAuth::No);
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let mut listener = Listener::from(tcp).with_tls(TlsAcceptor::load(files).unwrap(), WAIT);
    let client = tokio::spawn(exchange(addr, client_config(&[&ca], None)));
    listener
        .accept()
        .await
        .refuse(b"-ERR max number of clients reached\r\n");
    assert!(client.await.unwrap().is_err());
}
