//! End-to-end runs of `run_kv` against the in-test fake server, checking counts (never
//! timings).

use crate::support;

use strata_lab::kv::{report, run_kv, KvArgs, KvResult};
use strata_lab::LabError;
use support::{Behaviour, FakeServer, Wire};

fn args(server: &FakeServer, extra: &[&str]) -> KvArgs {
    let port = server.port();
    let mut argv = vec![
        "--host",
        "127.0.0.1",
        "--port",
        &port,
        "--quiet",
        "--connections",
        "4",
    ];
    argv.extend_from_slice(extra);
    KvArgs::try_parse_from(argv).unwrap()
}

async fn run(server: &FakeServer, extra: &[&str]) -> Result<KvResult, LabError> {
    run_kv(&args(server, extra)).await
}

const SET_300_SEQUENTIAL: &[&str] = &[
    "--ratio",
    "1:0",
    "--key-pattern",
    "sequential",
    "--key-max",
    "300",
    "--requests",
    "300",
    "--pipeline",
    "8",
];

#[tokio::test]
async fn sequential_set_only_run_sets_every_key_once() {
    for wire in [Wire::Resp, Wire::Memcache] {
        let server = FakeServer::start(wire, Behaviour::default());
        let protocol = if wire == Wire::Resp {
            "resp"
        } else {
            "memcache"
        };
        let result = run(
            &server,
            &[SET_300_SEQUENTIAL, &["--protocol", protocol]].concat(),
        )
        .await
        .unwrap();
        assert_eq!(
            (result.ops, result.sets, result.gets, result.errors),
            (300, 300, 0, 0)
        );
        let state = server.state.lock().unwrap();
        assert_eq!(state.set_counts.len(), 300);
        for n in 0..300 {
            assert_eq!(
                state.set_counts.get(format!("key:{n}").as_bytes()),
                Some(&1),
                "key:{n}"
            );
        }
        assert!(state.values.values().all(|v| v.len() == 50));
    }
}

#[tokio::test]
async fn gets_hit_after_sets_and_miss_after_flush() {
    for (wire, protocol) in [(Wire::Resp, "resp"), (Wire::Memcache, "memcache")] {
        let server = FakeServer::start(wire, Behaviour::default());
        let proto = ["--protocol", protocol];
        run(&server, &[SET_300_SEQUENTIAL, &proto].concat())
            .await
            .unwrap();
        let gets = [
            "--ratio",
            "0:1",
            "--key-max",
            "300",
            "--requests",
            "200",
            "--pipeline",
            "5",
        ];
        let hit = run(&server, &[&gets[..], &proto].concat()).await.unwrap();
        assert_eq!(
            (hit.gets, hit.hits, hit.misses, hit.errors),
            (200, 200, 0, 0)
        );
        let missed = run(&server, &[&gets[..], &proto, &["--flush"]].concat())
            .await
            .unwrap();
        assert_eq!(
            (missed.gets, missed.hits, missed.misses, missed.errors),
            (200, 0, 200, 0)
        );
    }
}

#[tokio::test]
async fn mixed_run_counts_add_up_and_timeline_round_trips_through_json() {
    let server = FakeServer::start(Wire::Resp, Behaviour::default());
    let extra = ["--ratio", "1:3", "--requests", "400", "--pipeline", "3"];
    let result = run(
        &server,
        &[
            &extra[..],
            &["--key-max", "50", "--timeline", "--key-pattern", "zipfian"],
        ]
        .concat(),
    )
    .await
    .unwrap();
    assert_eq!(result.ops, 400);
    assert_eq!(result.sets + result.gets, 400);
    assert_eq!(result.hits + result.misses, result.gets);
    assert!(result.sets > 0 && result.gets > result.sets && result.errors == 0);
    let timeline = result.timeline.as_ref().unwrap();
    assert_eq!(timeline.iter().map(|s| s.ops).sum::<u64>(), 400);
    assert_eq!(
        (result.config.connections, result.config.ratio.to_string()),
        (4, "1:3".to_owned())
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("result.json");
    report::write_json(&result, &path).unwrap();
    let loaded: KvResult = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(loaded, result);
    let table = report::render_table(&result);
    assert!(
        table.contains("p99.9") && table.contains("second"),
        "{table}"
    );
}

#[tokio::test]
async fn error_replies_are_counted_not_fatal() {
    let server = FakeServer::start(
        Wire::Memcache,
        Behaviour {
            always_error: true,
            ..Behaviour::default()
        },
    );
    let result = run(&server, &["--protocol", "memcache", "--requests", "100"])
        .await
        .unwrap();
    assert_eq!(
        (result.ops, result.errors, result.hits, result.misses),
        (100, 100, 0, 0)
    );
}

#[tokio::test]
async fn auth_is_sent_first_and_rejection_fails_the_run() {
    let behaviour = Behaviour {
        password: Some("s3cret".into()),
        ..Behaviour::default()
    };
    let server = FakeServer::start(Wire::Resp, behaviour);
    let ok = run(&server, &["--auth", "s3cret", "--requests", "50"])
        .await
        .unwrap();
    assert_eq!((ok.ops, ok.errors), (50, 0));
    let wrong = run(&server, &["--auth", "nope", "--requests", "50"]).await;
    assert!(
        matches!(
            wrong,
            Err(LabError::Rejected {
                command: "AUTH",
                ..
            })
        ),
        "{wrong:?}"
    );
    let missing = run(&server, &["--requests", "50"]).await.unwrap();
    assert_eq!(missing.errors, 50);
}

#[tokio::test]
async fn server_closing_a_connection_fails_the_run() {
    let server = FakeServer::start(
        Wire::Resp,
        Behaviour {
            close_after: Some(5),
            ..Behaviour::default()
        },
    );
    let outcome = run(&server, &["--requests", "1000"]).await;
    assert!(
        matches!(outcome, Err(LabError::Closed { .. } | LabError::Io { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn duration_and_warmup_bound_runs_finish() {
    let server = FakeServer::start(Wire::Resp, Behaviour::default());
    let result = run(
        &server,
        &[
            "--warmup",
            "0.1",
            "--duration",
            "0.2",
            "--key-pattern",
            "gaussian",
        ],
    )
    .await
    .unwrap();
    assert!(result.ops > 0);
    assert_eq!(result.sets + result.gets, result.ops);
}

#[tokio::test]
async fn unreachable_server_is_a_connect_error() {
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let args = KvArgs::try_parse_from(["--port", &port.to_string(), "--quiet", "--requests", "1"])
        .unwrap();
    assert!(matches!(run_kv(&args).await, Err(LabError::Connect { .. })));
}

#[tokio::test]
async fn server_cpu_is_reported_for_the_given_pid() {
    // The fake server runs in this process, so its CPU is this process's.
    let server = FakeServer::start(Wire::Resp, Behaviour::default());
    let pid = std::process::id().to_string();
    let result = run(
        &server,
        &[SET_300_SEQUENTIAL, &["--server-pid", &pid]].concat(),
    )
    .await
    .unwrap();
    let cpu = result.server_cpu.expect("server cpu with --server-pid");
    assert_eq!(cpu.pid, std::process::id());
    assert!(cpu.user_secs >= 0.0 && cpu.system_secs >= 0.0 && cpu.us_per_request >= 0.0);
    assert!(result.client_cpu.is_some());
    assert!(report::render_table(&result).contains(&format!("server cpu (pid {pid})")));
    let without = run(&server, SET_300_SEQUENTIAL).await.unwrap();
    assert!(without.server_cpu.is_none());
}
