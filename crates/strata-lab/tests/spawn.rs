//! `--spawn` end to end. This test binary has no libtest harness so that it can also play the
//! server: run as `<this binary> serve ...` it starts the fake server on the ports it is
//! given, exactly as the real `strata serve` would be started.

mod support;

use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use strata_lab::kv::{run_kv, KvArgs, Protocol};
use strata_lab::spawn::ServerProcess;
use strata_lab::LabError;
use support::{Behaviour, State, Wire};

/// The extra arguments the tests pass through `--server-arg`; the fake refuses to start
/// without them, proving they arrive.
const MARKER: [&str; 2] = ["--marker", "yes"];

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("serve") {
        fake_serve(&argv[1..]);
    }
    if argv.iter().any(|a| a == "--list") {
        return; // Test listers (IDEs, nextest) get no tests to schedule individually.
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        spawned_server_serves_both_protocols().await;
        stop_terminates_the_child().await;
        early_exit_is_reported_with_the_log().await;
    });
    println!("spawn: 3 tests passed");
}

/// `serve --bind 127.0.0.1 --memcache-port P1 --resp-port P2 --data-dir D --marker yes`.
fn fake_serve(args: &[String]) -> ! {
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    assert_eq!(value("--bind").as_deref(), Some("127.0.0.1"));
    assert!(std::path::Path::new(&value("--data-dir").unwrap()).is_dir());
    if value(MARKER[0]).as_deref() != Some(MARKER[1]) {
        eprintln!("fake serve: missing {MARKER:?}");
        std::process::exit(3);
    }
    let state = Arc::new(Mutex::new(State::default()));
    for (flag, wire) in [
        ("--memcache-port", Wire::Memcache),
        ("--resp-port", Wire::Resp),
    ] {
        let listener =
            TcpListener::bind(("127.0.0.1", value(flag).unwrap().parse::<u16>().unwrap())).unwrap();
        support::serve(listener, wire, Behaviour::default(), Arc::clone(&state));
    }
    loop {
        std::thread::park();
    }
}

fn spawn_args(extra: &[&str]) -> KvArgs {
    let exe = std::env::current_exe().unwrap();
    let mut argv = vec![
        "--spawn",
        "--server-binary",
        exe.to_str().unwrap(),
        "--quiet",
        "--connections",
        "2",
    ];
    argv.extend_from_slice(extra);
    KvArgs::try_parse_from(argv).unwrap()
}

async fn spawned_server_serves_both_protocols() {
    for protocol in ["resp", "memcache"] {
        let args = spawn_args(&[
            "--protocol",
            protocol,
            "--requests",
            "200",
            "--ratio",
            "1:1",
            "--server-arg",
            MARKER[0],
            "--server-arg",
            MARKER[1],
        ]);
        let result = run_kv(&args).await.unwrap();
        assert_eq!((result.ops, result.errors), (200, 0));
        assert!(result.config.spawned && result.config.server_args == MARKER);
    }
}

async fn stop_terminates_the_child() {
    let exe = std::env::current_exe().unwrap();
    let marker = MARKER.map(str::to_owned);
    let server = ServerProcess::start(Some(&exe), &marker).await.unwrap();
    let port = server.port(Protocol::Resp);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    server.stop().await.unwrap();
    // The child has been reaped, so its listening socket is closed.
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}

async fn early_exit_is_reported_with_the_log() {
    let outcome = run_kv(&spawn_args(&["--requests", "10"])).await;
    match outcome {
        Err(LabError::ServerNotReady { reason, log, .. }) => {
            assert!(reason.contains("exited"), "{reason}");
            assert!(log.contains("missing"), "{log}");
        }
        other => panic!("expected ServerNotReady, got {other:?}"),
    }
}
