//! Runs per second of a typical score script, for the record
//! (`cargo test --release -p strata-script --test integration throughput:: -- --ignored --nocapture`).

use std::time::Instant;

use serde_json::json;
use strata_script::{Context, DocLookup, DocValue, Input, LookupError, Script};

struct Doc;
impl DocLookup for Doc {
    fn field(&self, name: &str) -> Result<Vec<DocValue>, LookupError> {
        Ok(match name {
            "price" => vec![DocValue::Double(12.5)],
            _ => vec![DocValue::Int(7)],
        })
    }
    fn contains(&self, _: &str) -> bool {
        true
    }
}

#[test]
#[ignore]
fn score_script_runs_per_second() {
    let script = Script::compile(
        "doc['price'].value * params.f + Math.log(2 + doc['qty'].value)",
        Context::Score,
    )
    .unwrap();
    let params = json!({"f": 2});
    let n = 200_000;
    let started = Instant::now();
    let mut sum = 0.0;
    for _ in 0..n {
        let out = script
            .run(Input {
                params: Some(&params),
                doc: Some(&Doc),
                score: Some(1.0),
                ..Input::default()
            })
            .unwrap();
        sum += out.value.as_f64().unwrap();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{n} runs in {secs:.3} s: {:.0} runs/s, {:.2} µs each (checksum {sum:.1})",
        f64::from(n) / secs,
        secs * 1e6 / f64::from(n)
    );
    assert!(sum > 0.0);
}
