//! The transport settings: defaults, flags and file keys, TLS defaults
//! (`tls_auth_clients`), and refusals naming the setting.

use std::io::Write;
use std::time::Duration;

use clap::Parser;
use strata_net::{ClientAuth, ProtectedMode};

use super::*;
use crate::error::ServerError;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn load(list: &[&str]) -> Result<ServerConfig, ServerError> {
    let argv = std::iter::once("strata-serve").chain(list.iter().copied());
    ServerConfig::load(&Cli::try_parse_from(argv).expect("flags parse").serve)
}

fn refused_option(list: &[&str]) -> (&'static str, String) {
    match load(list) {
        Err(ServerError::InvalidOption { option, message }) => (option, message),
        other => panic!("{list:?} gave {other:?}"),
    }
}

#[test]
fn defaults() {
    let config = load(&[]).unwrap();
    assert_eq!(config.protected_mode(), ProtectedMode::On);
    assert_eq!((config.timeout, config.idle_timeout), (0, 0));
    assert_eq!(config.request_timeout.0, Duration::from_secs(30));
    let http = config.http_limits();
    assert_eq!(http.max_connections, 10_000);
    assert_eq!(http.header_timeout, Duration::from_secs(30));
    assert_eq!(http.body_timeout, Duration::from_secs(60));
    assert!(!config.tls_used() && config.tls_files().is_none());
}

#[test]
fn flags_and_file_keys() {
    let config = load(&[
        "--tls-port",
        "6380",
        "--memcache-tls",
        "--http-tls",
        "--tls-cert-file",
        "/c.crt",
        "--tls-key-file",
        "/c.key",
        "--tls-ca-cert-file",
        "/ca.crt",
        "--tls-auth-clients",
        "optional",
        "--protected-mode",
        "no",
        "--timeout",
        "300",
        "--idle-timeout",
        "60",
        "--request-timeout",
        "5s",
        "--http-header-timeout",
        "10s",
        "--http-body-timeout",
        "2m",
    ])
    .unwrap();
    assert_eq!(config.tls_port, Some(6380));
    assert!(config.memcache_tls && config.http_tls);
    let files = config.tls_files().unwrap();
    assert_eq!(files.cert.to_str(), Some("/c.crt"));
    assert_eq!(files.key.to_str(), Some("/c.key"));
    assert_eq!(
        files.ca.as_deref().and_then(|p| p.to_str()),
        Some("/ca.crt")
    );
    assert_eq!(files.client_auth, ClientAuth::Optional);
    assert_eq!(config.protected_mode(), ProtectedMode::Off);
    assert_eq!((config.timeout, config.idle_timeout), (300, 60));
    assert_eq!(config.request_timeout.0, Duration::from_secs(5));
    assert_eq!(config.http_limits().header_timeout, Duration::from_secs(10));
    assert_eq!(config.http_limits().body_timeout, Duration::from_secs(120));

    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(
        br#"
tls_port = 0
tls_cert_file = "/c.crt"
tls_key_file = "/c.key"
tls_ca_cert_file = "/ca.crt"
protected_mode = "no"
timeout = 5
idle_timeout = 7
request_timeout = "1s"
"#,
    )
    .unwrap();
    let path = file.path().to_str().unwrap();
    let config = load(&["--config", path]).unwrap();
    assert_eq!(config.tls_port, Some(0));
    // A CA file alone asks for client certificates, as Redis's default.
    assert_eq!(config.tls_client_auth(), ClientAuth::Required);
    assert_eq!(config.protected_mode(), ProtectedMode::Off);
    assert_eq!((config.timeout, config.idle_timeout), (5, 7));
    // Flags win over the file.
    let config = load(&[
        "--config",
        path,
        "--protected-mode",
        "yes",
        "--tls-auth-clients",
        "no",
    ])
    .unwrap();
    assert_eq!(config.protected_mode(), ProtectedMode::On);
    assert_eq!(config.tls_client_auth(), ClientAuth::No);
}

#[test]
fn refusals_name_the_setting() {
    let (option, message) = refused_option(&["--tls-port", "6380"]);
    assert_eq!(option, "tls_cert_file");
    assert!(message.contains("tls_port"), "{message}");
    let (option, message) = refused_option(&["--http-tls", "--tls-cert-file", "/c.crt"]);
    assert_eq!(option, "tls_key_file");
    assert!(message.contains("http_tls"), "{message}");
    // Files that no port would use are a mistake, not ignored.
    let (option, message) =
        refused_option(&["--tls-cert-file", "/c.crt", "--tls-key-file", "/c.key"]);
    assert_eq!(option, "tls_cert_file");
    assert!(message.contains("no port speaks TLS"), "{message}");
    // memcache_tls with memcached switched off uses no TLS either.
    let (option, _) = refused_option(&[
        "--no-memcache",
        "--memcache-tls",
        "--tls-cert-file",
        "/c",
        "--tls-key-file",
        "/k",
    ]);
    assert_eq!(option, "tls_cert_file");
    let tls = [
        "--tls-port",
        "6380",
        "--tls-cert-file",
        "/c",
        "--tls-key-file",
        "/k",
    ];
    let with = |extra: &[&'static str]| [&tls[..], extra].concat();
    assert_eq!(
        refused_option(&with(&["--tls-auth-clients", "yes"])).0,
        "tls_auth_clients"
    );
    assert_eq!(
        refused_option(&with(&["--tls-auth-clients", "optional"])).0,
        "tls_auth_clients"
    );
    let (option, message) = refused_option(&with(&["--resp-port", "6380"]));
    assert_eq!(option, "tls_port");
    assert!(message.contains("resp_port"), "{message}");
    assert_eq!(
        refused_option(&with(&["--request-timeout", "50ms"])).0,
        "request_timeout"
    );
    assert_eq!(
        refused_option(&["--http-header-timeout", "61m"]).0,
        "http_header_timeout"
    );
    assert_eq!(
        refused_option(&["--http-body-timeout", "0ms"]).0,
        "http_body_timeout"
    );
    assert_eq!(refused_option(&["--timeout", "4294967296"]).0, "timeout");
    assert_eq!(
        refused_option(&["--idle-timeout", "2147483648"]).0,
        "idle_timeout"
    );
    // RESP over TLS alone is a served front end.
    let config = load(&with(&["--no-resp", "--no-memcache"])).unwrap();
    assert!(!config.resp_enabled && config.tls_port == Some(6380));
}
