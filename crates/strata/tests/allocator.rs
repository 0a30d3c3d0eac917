//! The process allocator's counters (jemalloc, registered by `main.rs`
//! through `strata_metrics::allocator`) reach `INFO memory` as Redis's
//! `allocator_*` fields and `mem_allocator`, and the metrics port as
//! `strata_allocator_bytes{state=...}`.

use crate::support;

use std::time::Duration;

use support::{http, Raw, Server};

/// `field`'s value in an `INFO` reply.
fn info_field<'a>(info: &'a str, field: &str) -> &'a str {
    info.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in {info}"))
}

#[test]
fn info_memory_and_the_metrics_port_report_the_allocator() {
    let server = Server::start(&["--metrics", "--metrics-port", "0"]);
    let mut resp = Raw::connect(server.resp());
    let value = "x".repeat(200_000);
    let set = format!(
        "*3\r\n$3\r\nSET\r\n$1\r\nv\r\n${}\r\n{value}\r\n",
        value.len()
    );
    assert_eq!(resp.request(set.as_bytes(), b"\r\n"), b"+OK\r\n");
    let info = resp.request(b"*2\r\n$4\r\nINFO\r\n$6\r\nmemory\r\n", b"\r\n\r\n");
    let info = String::from_utf8_lossy(&info);
    let num = |field| info_field(&info, field).parse::<u64>().unwrap();
    let (allocated, active, resident) = (
        num("allocator_allocated"),
        num("allocator_active"),
        num("allocator_resident"),
    );
    assert!(
        200_000 < allocated && allocated <= active && active <= resident,
        "{info}"
    );
    let frag: f64 = info_field(&info, "allocator_frag_ratio").parse().unwrap();
    assert!(
        (frag - active as f64 / allocated as f64).abs() < 0.01,
        "{info}"
    );
    assert!(info_field(&info, "mem_allocator").starts_with("jemalloc-5."));

    let scrape = http::request(
        server.metrics(),
        "GET",
        "/metrics",
        None,
        Duration::from_secs(10),
    )
    .unwrap();
    let text = String::from_utf8_lossy(&scrape.body);
    for state in ["allocated", "active", "resident", "mapped", "retained"] {
        let prefix = format!("strata_allocator_bytes{{state=\"{state}\"}} ");
        let bytes = text
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("no {prefix} in {text}"));
        assert!(bytes.parse::<u64>().is_ok(), "{bytes}");
    }
}
