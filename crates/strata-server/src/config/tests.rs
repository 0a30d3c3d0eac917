//! Parsing, precedence (flag > file > default) and refusal of bad values.

use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;

use clap::Parser;

use super::*;
use crate::error::ServerError;

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn flags(list: &[&str]) -> Result<ServeArgs, clap::Error> {
    let argv = std::iter::once("strata-serve").chain(list.iter().copied());
    Cli::try_parse_from(argv).map(|cli| cli.serve)
}

fn load(list: &[&str]) -> Result<ServerConfig, ServerError> {
    ServerConfig::load(&flags(list).expect("flags parse"))
}

fn config_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(text.as_bytes()).expect("write temp file");
    file
}

#[test]
fn defaults_are_the_documented_ones() {
    let config = load(&[]).unwrap();
    assert_eq!(config.bind, "127.0.0.1".parse::<IpAddr>().unwrap());
    assert_eq!((config.memcache_port, config.resp_port), (11211, 6379));
    assert!(config.memcache_enabled && config.resp_enabled);
    assert!(config.threads >= 1);
    assert_eq!(config.memory_limit.bytes(), 1 << 30);
    assert_eq!(config.eviction, EvictionMode::On);
    assert_eq!(config.max_connections, 10_000);
    assert_eq!(config.max_item_size.bytes(), 1 << 20);
    assert_eq!(config.proto_max_bulk_len.bytes(), 512 << 20);
    assert_eq!(config.requirepass, None);
    assert_eq!(config.data_dir, PathBuf::from("./strata-data"));
    assert_eq!(config.log_level, "info");
    assert_eq!(config.log_format, LogFormat::Text);
}

#[test]
fn every_flag_is_applied() {
    let config = load(&[
        "--bind",
        "0.0.0.0",
        "--memcache-port",
        "1",
        "--resp-port",
        "2",
        "--no-memcache",
        "--threads",
        "3",
        "--memory-limit",
        "64mb",
        "--eviction",
        "off",
        "--max-connections",
        "7",
        "--max-item-size",
        "2mb",
        "--proto-max-bulk-len",
        "8mb",
        "--requirepass",
        "secret",
        "--data-dir",
        "/tmp/x",
        "--log-level",
        "debug",
        "--log-format",
        "json",
        "--shards",
        "8",
        "--ssd-io-engine",
        "threads",
    ])
    .unwrap();
    assert_eq!(config.bind, "0.0.0.0".parse::<IpAddr>().unwrap());
    assert_eq!((config.memcache_port, config.resp_port), (1, 2));
    assert!(!config.memcache_enabled && config.resp_enabled);
    assert_eq!(config.threads, 3);
    assert_eq!(config.memory_limit.bytes(), 64 << 20);
    assert_eq!(
        config.eviction.policy(),
        strata_kv::EvictionPolicy::NoEviction
    );
    assert_eq!(config.max_connections, 7);
    assert_eq!(config.max_item_size.bytes(), 2 << 20);
    assert_eq!(config.proto_max_bulk_len.bytes(), 8 << 20);
    assert_eq!(config.requirepass.as_deref(), Some("secret"));
    assert_eq!(config.data_dir, PathBuf::from("/tmp/x"));
    assert_eq!(config.log_level, "debug");
    assert_eq!(config.log_format, LogFormat::Json);
    assert_eq!(config.shards, 8);
    assert_eq!(config.ssd_io_engine, SsdIoEngine::Threads);
}

#[test]
fn enable_debug_command_from_file_and_flag() {
    use crate::config::DebugCommand;
    use strata_resp::protected::Protected;
    assert_eq!(load(&[]).unwrap().enable_debug_command, DebugCommand::No);
    let file = config_file("enable_debug_command = \"local\"\n");
    let path = file.path().to_str().unwrap();
    let config = load(&["--config", path]).unwrap();
    assert_eq!(config.enable_debug_command.access(), Protected::Local);
    let config = load(&["--config", path, "--enable-debug-command", "yes"]).unwrap();
    assert_eq!(config.enable_debug_command.access(), Protected::Yes);
    assert!(flags(&["--enable-debug-command", "maybe"]).is_err());
}

#[test]
fn authentication_settings_from_file_and_flags() {
    let defaults = load(&[]).unwrap();
    assert_eq!(defaults.aclfile, None);
    assert_eq!(defaults.memcache_auth_file, None);
    assert!(!defaults.memcache_unauthenticated);
    let file = config_file(
        "aclfile = \"/etc/strata/users.acl\"\n\
         memcache_auth_file = \"/etc/strata/mc.auth\"\n\
         memcache_unauthenticated = true\n",
    );
    let path = file.path().to_str().unwrap();
    let config = load(&["--config", path]).unwrap();
    assert_eq!(config.aclfile, Some(PathBuf::from("/etc/strata/users.acl")));
    assert_eq!(
        config.memcache_auth_file,
        Some(PathBuf::from("/etc/strata/mc.auth"))
    );
    assert!(config.memcache_unauthenticated);
    let config = load(&[
        "--config",
        path,
        "--aclfile",
        "/other.acl",
        "--memcache-auth-file",
        "/other.auth",
    ])
    .unwrap();
    assert_eq!(config.aclfile, Some(PathBuf::from("/other.acl")));
    assert_eq!(
        config.memcache_auth_file,
        Some(PathBuf::from("/other.auth"))
    );
    let config = load(&["--memcache-unauthenticated"]).unwrap();
    assert!(config.memcache_unauthenticated);
}

#[test]
fn the_file_overrides_defaults_and_flags_override_the_file() {
    let file = config_file(
        r#"
        resp_port = 7000
        memcache_port = 7001
        memory_limit = "64mb"
        max_item_size = 4096
        eviction = "off"
        memcache_enabled = false
        requirepass = "from-file"
        "#,
    );
    let path = file.path().to_str().unwrap();
    let config = load(&[
        "--config",
        path,
        "--resp-port",
        "7100",
        "--memory-limit",
        "2gb",
    ])
    .unwrap();
    assert_eq!(config.resp_port, 7100, "flag wins over file");
    assert_eq!(config.memory_limit.bytes(), 2 << 30, "flag wins over file");
    assert_eq!(config.memcache_port, 7001, "file wins over default");
    assert_eq!(config.max_item_size.bytes(), 4096);
    assert_eq!(config.eviction, EvictionMode::Off);
    assert!(!config.memcache_enabled);
    assert_eq!(config.requirepass.as_deref(), Some("from-file"));
    assert_eq!(config.max_connections, 10_000, "default where neither says");
}

#[test]
fn an_empty_password_means_none() {
    let file = config_file("requirepass = \"\"\n");
    let config = load(&["--config", file.path().to_str().unwrap()]).unwrap();
    assert_eq!(config.requirepass, None);
}

#[test]
fn bad_sizes_on_the_command_line_are_clap_errors() {
    for bad in ["0", "abc", "10xb", "-1", "1.mb", ".5mb"] {
        let arg = format!("--memory-limit={bad}");
        let err = flags(&[&arg]).unwrap_err();
        assert_eq!(err.exit_code(), 2, "{bad}");
        assert!(err.to_string().contains("--memory-limit"), "{bad}: {err}");
    }
    let err = flags(&["--max-item-size", "10xb"]).unwrap_err();
    assert!(err.to_string().contains("unknown unit `xb`"), "{err}");
    // Fractions read as everywhere else in Strata (`strata job --dram-budget 1.5gb`).
    assert!(flags(&["--memory-limit=1.5mb"]).is_ok());
}

#[test]
fn bad_enum_and_number_flags_are_clap_errors() {
    for list in [
        &["--eviction", "maybe"][..],
        &["--log-format", "xml"],
        &["--ssd-io-engine", "aio"],
        &["--threads", "many"],
        &["--resp-port", "70000"],
        &["--bind", "localhost:1"],
        &["--no-such-flag"],
    ] {
        let err = flags(list).unwrap_err();
        assert_eq!(err.exit_code(), 2, "{list:?}");
    }
}

#[test]
fn out_of_bounds_values_are_refused_with_the_option_name() {
    let cases: &[(&[&str], &str)] = &[
        (&["--max-item-size", "512"], "max_item_size"),
        (&["--max-item-size", "129mb"], "max_item_size"),
        (&["--proto-max-bulk-len", "1000kb"], "proto_max_bulk_len"),
        (&["--proto-max-bulk-len", "513mb"], "proto_max_bulk_len"),
        (&["--memory-limit", "1kb"], "memory_limit"),
        (
            &["--memory-limit", "2mb", "--max-item-size", "4mb"],
            "max_item_size",
        ),
        (&["--threads", "0"], "threads"),
        (&["--max-connections", "0"], "max_connections"),
        (&["--shards", "3"], "shards"),
        (
            &["--no-memcache", "--no-resp", "--no-http"],
            "no_memcache/no_resp/no_http",
        ),
        (
            &["--memcache-port", "5000", "--resp-port", "5000"],
            "memcache_port/resp_port",
        ),
        (&["--log-level", "info,[[["], "log_level"),
    ];
    for (list, option) in cases {
        match load(list) {
            Err(err @ ServerError::InvalidOption { .. }) => {
                assert_eq!(err.exit_code(), 2);
                assert!(err.to_string().contains(option), "{list:?}: {err}");
            }
            other => panic!("{list:?} gave {other:?}"),
        }
    }
}

#[test]
fn search_alone_is_a_valid_server() {
    let config = load(&["--no-memcache", "--no-resp"]).unwrap();
    assert!(!config.memcache_enabled && !config.resp_enabled && config.http_enabled);
}

#[test]
fn edges_of_the_item_size_bounds_are_accepted() {
    assert_eq!(
        load(&["--max-item-size", "1kb"])
            .unwrap()
            .max_item_size
            .bytes(),
        1024
    );
    assert_eq!(
        load(&["--max-item-size", "128mb"])
            .unwrap()
            .max_item_size
            .bytes(),
        128 << 20
    );
    assert!(
        load(&["--memcache-port", "0", "--resp-port", "0"]).is_ok(),
        "port 0 twice is fine"
    );
}

#[test]
fn bad_files_are_refused_with_the_key_and_path() {
    let unknown = config_file("memory_limt = \"1gb\"\n");
    let err = load(&["--config", unknown.path().to_str().unwrap()]).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("memory_limt"), "{err}");
    assert!(
        err.to_string().contains(unknown.path().to_str().unwrap()),
        "{err}"
    );

    for text in [
        "memory_limit = \"10xb\"\n",
        "memory_limit = 0\n",
        "resp_port = \"x\"\n",
        "eviction = \"maybe\"\n",
        "= broken",
    ] {
        let file = config_file(text);
        let err = load(&["--config", file.path().to_str().unwrap()]).unwrap_err();
        assert!(
            matches!(err, ServerError::ParseConfig { .. }),
            "{text}: {err:?}"
        );
    }

    let err = load(&["--config", "/nonexistent/strata.toml"]).unwrap_err();
    assert!(matches!(err, ServerError::ReadConfig { .. }), "{err:?}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn eviction_accepts_mode_names() {
    assert_eq!(
        load(&["--eviction", "store"]).unwrap().eviction,
        EvictionMode::Off
    );
    assert_eq!(
        load(&["--eviction", "cache"]).unwrap().eviction,
        EvictionMode::On
    );
    assert_eq!(
        ServerConfig::from_toml("eviction = \"store\"")
            .unwrap()
            .eviction,
        EvictionMode::Off
    );
}

#[test]
fn http_front_end_defaults_flags_and_file_keys() {
    let config = load(&[]).unwrap();
    assert_eq!((config.http_port, config.http_enabled), (9200, true));
    assert_eq!(config.http_max_body.bytes(), 100 << 20);

    let config = load(&["--http-port", "0", "--no-http", "--http-max-body", "1mb"]).unwrap();
    assert_eq!((config.http_port, config.http_enabled), (0, false));
    assert_eq!(config.http_max_body.bytes(), 1 << 20);

    let file = config_file("http_port = 9300\nhttp_enabled = false\nhttp_max_body = \"2mb\"\n");
    let path = file.path().to_str().unwrap();
    let config = load(&["--config", path]).unwrap();
    assert_eq!((config.http_port, config.http_enabled), (9300, false));
    assert_eq!(config.http_max_body.bytes(), 2 << 20);
    let config = load(&["--config", path, "--http-port", "9400"]).unwrap();
    assert_eq!(config.http_port, 9400, "flag wins over file");
}

#[test]
fn http_port_clashes_and_bad_body_limits_are_refused() {
    let err = load(&["--http-port", "6379"]).unwrap_err();
    assert!(err.to_string().contains("http_port"), "{err}");
    // No clash when the other front end is off, or the port is 0.
    assert!(load(&["--http-port", "6379", "--no-resp"]).is_ok());
    assert!(load(&["--http-port", "0", "--resp-port", "0"]).is_ok());
    let err = load(&["--http-max-body", "512"]).unwrap_err();
    assert!(err.to_string().contains("http_max_body"), "{err}");
}
