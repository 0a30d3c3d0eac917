//! Protected mode with clients that are not on the loopback interface.
//!
//! Such a client needs an address of this machine other than 127.0.0.0/8.
//! Rather than use the machine's real interfaces, the test runs itself
//! again inside a new network namespace (`unshare --net`) whose loopback
//! device also carries 192.0.2.1 (TEST-NET-1, reserved for
//! documentation): there the server binds 0.0.0.0 and a client connecting
//! to 192.0.2.1 comes from 192.0.2.1, not a loopback address, while no
//! packet leaves the namespace. Where namespaces cannot be made (no
//! privilege, no `unshare` or `ip`), the test says so and passes without
//! checking; the decision itself is unit-tested in `strata-net`.

use crate::common;
use crate::transport_support;

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use common::test_config;
use strata_server::{ProtectedModeSetting, Server};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use transport_support::{http_request, read_response, read_until_closed, round_trip, Pki, WAIT};

const INSIDE: &str = "STRATA_TEST_IN_NETNS";
const OUTSIDE_ADDR: &str = "192.0.2.1";

#[test]
fn non_loopback_clients_of_ports_without_authentication_are_refused() {
    if std::env::var_os(INSIDE).is_some() {
        return tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(checks());
    }
    let probe = Command::new("unshare")
        .args(["--net", "--", "sh", "-c", "ip link set lo up"])
        .output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            eprintln!(
                "SKIPPED: cannot make a network namespace here ({}); protected mode is only unit-tested",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return;
        }
        Err(err) => {
            eprintln!("SKIPPED: no `unshare` ({err}); protected mode is only unit-tested");
            return;
        }
    }
    let exe = std::env::current_exe().unwrap();
    let script =
        format!("ip link set lo up && ip addr add {OUTSIDE_ADDR}/32 dev lo && exec \"$0\" \"$@\"");
    let out = Command::new("unshare")
        .args(["--net", "--", "sh", "-c", &script])
        .arg(exe)
        .args([
            "--exact",
            &this_test_name(),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(INSIDE, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "in the namespace:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("1 passed"),
        "the checks did not run:\n{stdout}\n{stderr}"
    );
}

/// The full name libtest knows this test by: its module path below the
/// test binary's root (the files of `tests/` are modules of one binary).
fn this_test_name() -> String {
    let test = "non_loopback_clients_of_ports_without_authentication_are_refused";
    match module_path!().split_once("::") {
        Some((_root, module)) => format!("{module}::{test}"),
        None => test.to_owned(),
    }
}

/// `addr`'s port at the non-loopback address.
fn outside(addr: SocketAddr) -> SocketAddr {
    SocketAddr::new(OUTSIDE_ADDR.parse().unwrap(), addr.port())
}

async fn checks() {
    let dir = tempfile::tempdir().unwrap();
    let pki = Pki::new(dir.path());
    let config = test_config(&dir, |c| {
        c.bind = "0.0.0.0".parse().unwrap();
        pki.configure(c);
        c.tls_port = Some(0);
    });
    let server = Server::start(&config).await.unwrap();
    let ping = b"*1\r\n$4\r\nPING\r\n";

    // RESP: Redis's refusal, then the connection is closed.
    let mut resp = TcpStream::connect(outside(server.resp_addr().unwrap()))
        .await
        .unwrap();
    assert_ne!(resp.local_addr().unwrap().ip().to_string(), "127.0.0.1");
    let (got, closed) = read_until_closed(&mut resp, WAIT).await;
    let text = String::from_utf8_lossy(&got);
    assert!(closed, "left open");
    assert!(
        text.starts_with("-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user.")
            && text.ends_with("\r\n"),
        "{text}"
    );
    // The same over TLS: the refusal is encrypted, after the handshake.
    let client = strata_net::test_certs::client_config(&[&pki.ca], None);
    let tcp = TcpStream::connect(outside(server.resp_tls_addr().unwrap()))
        .await
        .unwrap();
    let name = rustls::pki_types::ServerName::IpAddress(
        OUTSIDE_ADDR.parse::<std::net::IpAddr>().unwrap().into(),
    );
    let mut tls = tokio_rustls::TlsConnector::from(client)
        .connect(name, tcp)
        .await
        .unwrap();
    let (got, closed) = read_until_closed(&mut tls, WAIT).await;
    assert!(
        closed && got.starts_with(b"-DENIED "),
        "{:?}",
        String::from_utf8_lossy(&got)
    );

    // memcached: a SERVER_ERROR line.
    let mut mc = TcpStream::connect(outside(server.memcache_addr().unwrap()))
        .await
        .unwrap();
    let (got, closed) = read_until_closed(&mut mc, WAIT).await;
    let text = String::from_utf8_lossy(&got);
    assert!(
        closed && text.starts_with("SERVER_ERROR Strata is running in protected mode"),
        "{text}"
    );

    // HTTP: 403 security_exception, connection closed.
    let mut http = TcpStream::connect(outside(server.http_addr().unwrap()))
        .await
        .unwrap();
    http.write_all(&http_request("GET", "/", "")).await.unwrap();
    let (status, body) = read_response(&mut http).await;
    assert_eq!(status, 403);
    assert!(
        body.contains("security_exception") && body.contains("protected mode"),
        "{body}"
    );
    assert!(read_until_closed(&mut http, WAIT).await.1);

    // Loopback clients are served on every port.
    let mut local = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    round_trip(&mut local, ping, b"+PONG\r\n").await;

    // A password set at run time opens RESP (its clients must now AUTH),
    // not the ports still without authentication.
    round_trip(
        &mut local,
        b"*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$11\r\nrequirepass\r\n$6\r\nsecret\r\n",
        b"+OK\r\n",
    )
    .await;
    let mut resp = TcpStream::connect(outside(server.resp_addr().unwrap()))
        .await
        .unwrap();
    round_trip(&mut resp, ping, b"-NOAUTH Authentication required.\r\n").await;
    let mut mc = TcpStream::connect(outside(server.memcache_addr().unwrap()))
        .await
        .unwrap();
    let (got, _) = read_until_closed(&mut mc, WAIT).await;
    assert!(got.starts_with(b"SERVER_ERROR"));
    server.shutdown(Duration::from_secs(5)).await;

    // protected_mode = no: everyone is served.
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(&dir, |c| {
        c.bind = "0.0.0.0".parse().unwrap();
        c.protected_mode = ProtectedModeSetting::No;
    });
    let server = Server::start(&config).await.unwrap();
    let mut resp = TcpStream::connect(outside(server.resp_addr().unwrap()))
        .await
        .unwrap();
    round_trip(&mut resp, ping, b"+PONG\r\n").await;
    let mut mc = TcpStream::connect(outside(server.memcache_addr().unwrap()))
        .await
        .unwrap();
    round_trip(&mut mc, b"set k 0 0 1\r\nv\r\n", b"STORED\r\n").await;
    let mut http = TcpStream::connect(outside(server.http_addr().unwrap()))
        .await
        .unwrap();
    http.write_all(&http_request("GET", "/", "")).await.unwrap();
    assert_eq!(read_response(&mut http).await.0, 200);
    server.shutdown(Duration::from_secs(5)).await;
}
