//! The statistics Elasticsearch's `extended_stats` derives from its count,
//! sum and sum of squares (`InternalExtendedStats`): the variances
//! (population and sampling), standard deviations and their `sigma`
//! bounds around the mean. The `extended_stats_bucket` pipeline writes
//! them over its buckets' values; a `random_sampler` writes them again
//! from its scaled count, sum and sum of squares.

use serde_json::{json, Map, Value};

use super::java_double::java_number;

/// The derived part of an `extended_stats` reply (from `sum_of_squares`
/// on) over `count` values summing to `sum`, their squares to `squares`:
/// all `null` without values; a NaN (one value's sampling variance) as
/// Java writes it, the string "NaN".
pub(crate) fn derived(count: u64, sum: f64, squares: f64, sigma: f64) -> Map<String, Value> {
    let n = count as f64;
    let spread = squares - sum * sum / n;
    // Java's `variance < 0 ? 0 : variance`, which keeps NaN.
    let floor = |v: f64| if v < 0.0 { 0.0 } else { v };
    let (population, sampling) = (floor(spread / n), floor(spread / (n - 1.0)));
    let avg = sum / n;
    let (sd, sd_sampling) = (population.sqrt(), sampling.sqrt());
    let stat = |v: f64| {
        if count == 0 {
            Value::Null
        } else {
            java_number(v)
        }
    };
    let out = json!({
        "sum_of_squares": stat(squares),
        "variance": stat(population),
        "variance_population": stat(population),
        "variance_sampling": stat(sampling),
        "std_deviation": stat(sd),
        "std_deviation_population": stat(sd),
        "std_deviation_sampling": stat(sd_sampling),
        "std_deviation_bounds": {
            "upper": stat(avg + sd * sigma),
            "lower": stat(avg - sd * sigma),
            "upper_population": stat(avg + sd * sigma),
            "lower_population": stat(avg - sd * sigma),
            "upper_sampling": stat(avg + sd_sampling * sigma),
            "lower_sampling": stat(avg - sd_sampling * sigma),
        },
    });
    match out {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
