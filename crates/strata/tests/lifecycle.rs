//! The process around the server: signals, configuration precedence, bad
//! options and the help text.

use crate::support;

use std::io::Write;
use std::net::TcpListener;
use std::time::Duration;

use support::{run_to_exit, Raw, Server};

const RESP_PING: &[u8] = b"*1\r\n$4\r\nPING\r\n";

fn stops_cleanly_on(signal: rustix::process::Signal) {
    let mut server = Server::start(&[]);
    // Open connections (one idle, one mid-conversation) must not hold the
    // shutdown up.
    let mut idle = Raw::connect(server.resp());
    let mut busy = Raw::connect(server.memcache());
    assert!(busy
        .request(b"set k 0 0 1\r\nv\r\n", b"\r\n")
        .starts_with(b"STORED"));
    server.signal(signal);
    let status = server
        .wait_exit(Duration::from_secs(10))
        .expect("exits within 10 s");
    assert!(
        status.success(),
        "exit status {status:?}; log:\n{}",
        server.log_text()
    );
    assert!(
        server.wait_for_event("shutdown complete", Duration::from_secs(2)),
        "log:\n{}",
        server.log_text()
    );
    assert!(
        idle.read_to_close().is_empty(),
        "idle client is disconnected"
    );
}

#[test]
fn sigterm_shuts_down_cleanly_with_exit_code_0() {
    stops_cleanly_on(rustix::process::Signal::TERM);
}

#[test]
fn sigint_shuts_down_cleanly_with_exit_code_0() {
    stops_cleanly_on(rustix::process::Signal::INT);
}

#[test]
fn config_file_settings_apply_and_flags_override_them() {
    // The file asks for a port we hold; only the overriding flag lets the
    // server start.
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let held_port = held.local_addr().unwrap().port();
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(
        file,
        "resp_port = {held_port}\nmemcache_enabled = false\nmax_connections = 1\nmemory_limit = \"32mb\"\nmax_item_size = \"2mb\""
    )
    .unwrap();
    let path = file.path().to_str().unwrap();
    let server = Server::start(&["--config", path, "--memory-limit", "48mb"]);

    assert_eq!(
        server.memcache, None,
        "memcache_enabled = false from the file"
    );
    assert_ne!(
        server.resp().port(),
        held_port,
        "--resp-port 0 overrides the file"
    );
    let ready = &server.events("strata ready")[0];
    assert_eq!(ready["memory_limit"], "48mb", "flag wins over file");
    assert_eq!(ready["max_item_size"], "2mb", "file wins over default");
    assert_eq!(ready["max_connections"], 1, "file wins over default");

    let mut first = Raw::connect(server.resp());
    assert_eq!(first.request(RESP_PING, b"\r\n"), b"+PONG\r\n");
    let refusal = Raw::connect(server.resp()).read_to_close();
    assert!(
        refusal.starts_with(b"-ERR"),
        "{:?}",
        String::from_utf8_lossy(&refusal)
    );
}

#[test]
fn bad_options_exit_with_code_2_and_say_why() {
    let cases: &[(&[&str], &str)] = &[
        (&["serve", "--memory-limit", "10xb"], "unknown unit `xb`"),
        (&["serve", "--memory-limit", "0"], "greater than zero"),
        (&["serve", "--max-item-size", "abc"], "expected a number"),
        (&["serve", "--max-item-size", "512"], "max_item_size"),
        (&["serve", "--max-item-size", "1gb"], "max_item_size"),
        (&["serve", "--eviction", "sometimes"], "--eviction"),
        (&["serve", "--threads", "0"], "threads"),
        (
            &["serve", "--no-memcache", "--no-resp", "--no-http"],
            "every front end",
        ),
        (&["serve", "--no-such-option"], "--no-such-option"),
        (
            &["serve", "--config", "/nonexistent/strata.toml"],
            "/nonexistent/strata.toml",
        ),
        (&["frobnicate"], "frobnicate"),
    ];
    for (args, needle) in cases {
        let (code, stderr) = run_to_exit(args);
        assert_eq!(code, Some(2), "{args:?}: stderr {stderr}");
        assert!(
            stderr.contains(needle),
            "{args:?}: stderr lacks {needle:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_bad_config_file_exits_with_code_2_naming_the_key() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "memory_limt = \"1gb\"").unwrap();
    let (code, stderr) = run_to_exit(&["serve", "--config", file.path().to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("memory_limt"), "{stderr}");
}

#[test]
fn a_port_in_use_is_an_error_not_a_panic() {
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_str().unwrap();
    let (code, stderr) = run_to_exit(&[
        "serve",
        "--resp-port",
        &port,
        "--memcache-port",
        "0",
        "--data-dir",
        dir,
    ]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("cannot listen"), "{stderr}");
}

#[test]
fn help_documents_every_serve_option() {
    let output = std::process::Command::new(support::binary())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--config",
        "--bind",
        "--memcache-port",
        "--resp-port",
        "--no-memcache",
        "--no-resp",
        "--threads",
        "--memory-limit",
        "--eviction",
        "--max-connections",
        "--max-item-size",
        "--requirepass",
        "--aclfile",
        "--memcache-auth-file",
        "--memcache-unauthenticated",
        "--data-dir",
        "--log-level",
        "--log-format",
    ] {
        assert!(help.contains(flag), "help lacks {flag}:\n{help}");
    }
}

#[test]
fn version_names_the_release() {
    let output = std::process::Command::new(support::binary())
        .arg("--version")
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    // The build's commit follows (checked by `tests/version.rs`).
    let release = format!("strata {} (commit ", env!("CARGO_PKG_VERSION"));
    assert!(text.trim().starts_with(&release), "{text:?}");
}

/// `INFO server` and memcached `stats` say how key-value connections are
/// served: the mode, the workers and how many take connections now.
#[test]
fn worker_mode_is_reported_by_both_front_ends() {
    let field = |info: &str, name: &str| {
        info.split("\r\n")
            .find_map(|l| l.strip_prefix(&format!("{name}:")))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no {name} in {info}"))
    };
    // Where threads' CPU time cannot be read the adaptive pool runs as a
    // fixed one (and says so); an idle adaptive pool serves with one
    // worker until load asks for more.
    let adaptive = if std::fs::read("/proc/thread-self/schedstat").is_ok() {
        ("adaptive", "adaptive", "1")
    } else {
        ("adaptive", "fixed", "2")
    };
    for (mode, shown, want_active) in [("fixed", "fixed", "2"), ("shared", "shared", "2"), adaptive]
    {
        let server = Server::start(&["--threads", "2", "--worker-mode", mode]);
        let info = Raw::connect(server.resp())
            .request(b"*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n", b"\r\n\r\n");
        let info = String::from_utf8_lossy(&info);
        assert_eq!(field(&info, "strata_worker_mode"), shown, "{info}");
        assert_eq!(field(&info, "strata_workers"), "2", "{info}");
        assert_eq!(field(&info, "strata_workers_active"), want_active, "{info}");
        let stats = Raw::connect(server.memcache()).request(b"stats\r\n", b"END\r\n");
        let stats = String::from_utf8_lossy(&stats);
        assert!(
            stats.contains(&format!("STAT strata_workers_active {want_active}\r\n")),
            "{stats}"
        );
    }
}
