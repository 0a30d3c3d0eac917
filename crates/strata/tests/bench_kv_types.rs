//! `strata bench kv` against a real Strata server: the Redis data-type workloads and the
//! queue run without error replies, the queue's delivery check passes, every run reports the
//! server's CPU per request (`--server-pid`), and memcached refuses the type workloads.
//! Short runs (a few thousand requests each).

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::{binary, Server};

/// Runs `strata bench kv` with `args` against `server`'s RESP port and its pid; returns the
/// exit code, stdout and the JSON result (when written).
fn bench(server: &Server, json: &Path, args: &[&str]) -> (Option<i32>, String, Option<Value>) {
    let port = server.resp().port().to_string();
    let pid = server.pid().to_string();
    let mut argv = vec![
        "bench",
        "kv",
        "--port",
        &port,
        "--server-pid",
        &pid,
        "--quiet",
        "--json",
        json.to_str().unwrap(),
    ];
    argv.extend(args);
    let _ = std::fs::remove_file(json);
    let out = std::process::Command::new(binary())
        .args(&argv)
        .output()
        .expect("run strata bench kv");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || !stderr.is_empty(),
        "{argv:?} failed silently"
    );
    let result = std::fs::read(json)
        .ok()
        .map(|bytes| serde_json::from_slice(&bytes).expect("JSON result"));
    (out.status.code(), format!("{stdout}{stderr}"), result)
}

#[test]
fn type_workloads_and_queue_run_against_strata() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("result.json");
    for workload in ["hset-hget", "lpush-lpop", "zadd-zrange", "eval"] {
        let prefix = format!("{workload}:");
        let (code, output, result) = bench(
            &server,
            &json,
            &[
                "--workload",
                workload,
                "--key-prefix",
                &prefix,
                "--ratio",
                "1:1",
                "--connections",
                "4",
                "--pipeline",
                "4",
                "--key-max",
                "50",
                "--fields",
                "5",
                "--range",
                "3",
                "--requests",
                "4000",
            ],
        );
        assert_eq!(code, Some(0), "{workload}: {output}");
        let result = result.unwrap();
        assert_eq!(result["ops"], 4000, "{workload}");
        assert_eq!(result["errors"], 0, "{workload}: {output}");
        assert!(result["hits"].as_u64().unwrap() > 0, "{workload}: {output}");
        let cpu = &result["server_cpu"];
        assert_eq!(cpu["pid"], server.pid(), "{workload}");
        assert!(cpu["us_per_request"].as_f64().unwrap() >= 0.0);
        assert!(output.contains("server cpu (pid"), "{output}");
    }

    let (code, output, result) = bench(
        &server,
        &json,
        &[
            "--workload",
            "queue",
            "--connections",
            "4",
            "--consumers",
            "3",
            "--queues",
            "2",
            "--pipeline",
            "3",
            "--pop-timeout",
            "0.2",
            "--requests",
            "3000",
        ],
    );
    assert_eq!(code, Some(0), "queue: {output}");
    let queue = &result.unwrap()["queue"];
    assert_eq!(queue["pushed"], 3000, "{output}");
    assert_eq!(queue["delivered"], 3000, "{output}");
    for field in [
        "lost",
        "duplicated",
        "corrupt",
        "unacknowledged",
        "left_in_queues",
    ] {
        assert_eq!(queue[field], 0, "{field}: {output}");
    }
    assert!(output.contains("delivery check: 3000 pushed, 3000 delivered, 0 lost"));

    // Elements already in a list (here: pushed by hand) are foreign to the next run.
    let mut raw = support::Raw::connect(server.resp());
    let pushed = raw.request(
        b"*3\r\n$5\r\nLPUSH\r\n$9\r\nq:queue:0\r\n$5\r\nstale\r\n",
        b"\r\n",
    );
    assert_eq!(pushed, b":1\r\n");
    let (code, output, _) = bench(
        &server,
        &json,
        &[
            "--workload",
            "queue",
            "--key-prefix",
            "q:",
            "--connections",
            "2",
            "--queues",
            "1",
            "--pop-timeout",
            "0.2",
            "--requests",
            "200",
        ],
    );
    // "stale" is no element of any run: counted corrupt, and the run fails.
    assert_ne!(code, Some(0), "{output}");
    assert!(output.contains("1 corrupt"), "{output}");

    let memcache_port = server.memcache().port().to_string();
    let out = std::process::Command::new(binary())
        .args([
            "bench",
            "kv",
            "--protocol",
            "memcache",
            "--port",
            &memcache_port,
            "--workload",
            "hset-hget",
            "--requests",
            "10",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("needs --protocol resp"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
