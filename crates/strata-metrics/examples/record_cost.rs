//! What recording one command costs on the hot path: two clock reads and
//! a `CommandTable::record`, against the two clock reads alone (std's
//! `Instant` and the [`Stopwatch`]), per call on one thread (`cargo run
//! --release -p strata-metrics --example record_cost`).

use std::hint::black_box;
use std::time::Instant;

use strata_metrics::{CommandTable, Stopwatch};

const CALLS: u64 = 20_000_000;

fn main() {
    let table = CommandTable::new(["get", "set"]);
    table.record(0, 1, false);
    for round in 0..3 {
        let start = Instant::now();
        for i in 0..CALLS {
            let t = Instant::now();
            black_box(i);
            black_box(t.elapsed().as_nanos() as u64);
        }
        let std_clocks = start.elapsed().as_nanos() as f64 / CALLS as f64;
        let start = Instant::now();
        for i in 0..CALLS {
            let t = Stopwatch::start();
            black_box(i);
            black_box(t.elapsed_nanos());
        }
        let clocks = start.elapsed().as_nanos() as f64 / CALLS as f64;
        let start = Instant::now();
        for i in 0..CALLS {
            let t = Stopwatch::start();
            black_box(i);
            table.record(black_box(0), t.elapsed_nanos(), false);
        }
        let recorded = start.elapsed().as_nanos() as f64 / CALLS as f64;
        println!(
            "round {round}: std clock reads {std_clocks:.1} ns/call, stopwatch {clocks:.1} ns/call, with record {recorded:.1} ns/call (record alone {:.1} ns)",
            recorded - clocks
        );
    }
    assert_eq!(table.get(0).map(|s| s.calls), Some(3 * CALLS + 1));
}
