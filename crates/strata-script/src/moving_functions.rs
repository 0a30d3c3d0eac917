//! `MovingFunctions`: the functions a `moving_fn` pipeline's script calls
//! on its window of values, as Elasticsearch defines them
//! (`org.elasticsearch.search.aggregations.pipeline.MovingFunctions`). A
//! NaN value in the window is skipped; a window with no value gives NaN
//! (`sum`: 0). `holtWinters` is not provided.

/// `MovingFunctions.name(values, args...)`; `None` for an unknown name or
/// arity.
pub fn call(name: &str, values: &[f64], args: &[f64]) -> Option<f64> {
    Some(match (name, args) {
        ("max", []) => fold(values, f64::max),
        ("min", []) => fold(values, f64::min),
        ("sum", []) => present(values).sum(),
        ("unweightedAvg", []) => unweighted_avg(values),
        ("linearWeightedAvg", []) => linear_weighted_avg(values),
        ("ewma", [alpha]) => ewma(values, *alpha),
        ("stdDev", [avg]) => std_dev(values, *avg),
        ("holt", [alpha, beta]) => holt(values, *alpha, *beta),
        _ => return None,
    })
}

fn present(values: &[f64]) -> impl Iterator<Item = f64> + '_ {
    values.iter().copied().filter(|v| !v.is_nan())
}

fn fold(values: &[f64], f: fn(f64, f64) -> f64) -> f64 {
    present(values).reduce(f).unwrap_or(f64::NAN)
}

fn unweighted_avg(values: &[f64]) -> f64 {
    let (sum, count) = present(values).fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    if count == 0 {
        f64::NAN
    } else {
        sum / count as f64
    }
}

/// Weights 1, 2, ... over the values present, oldest first.
fn linear_weighted_avg(values: &[f64]) -> f64 {
    let (mut avg, mut total, mut current) = (0.0, 0.0, 1.0);
    for v in present(values) {
        avg += v * current;
        total += current;
        current += 1.0;
    }
    if total == 0.0 {
        f64::NAN
    } else {
        avg / total
    }
}

/// Exponentially weighted: each value weighs `alpha`, the past `1 - alpha`.
fn ewma(values: &[f64], alpha: f64) -> f64 {
    present(values).fold(f64::NAN, |avg, v| {
        if avg.is_nan() {
            v
        } else {
            v * alpha + avg * (1.0 - alpha)
        }
    })
}

/// The population standard deviation of the values around `avg`.
fn std_dev(values: &[f64], avg: f64) -> f64 {
    if avg.is_nan() {
        return f64::NAN;
    }
    let (squares, count) =
        present(values).fold((0.0, 0u64), |(s, n), v| (s + (v - avg).powi(2), n + 1));
    (squares / count as f64).sqrt()
}

/// Double exponential smoothing: the level after the values, plus no trend
/// step (the next value's forecast, Elasticsearch's `holtForecast(.., 1)`).
fn holt(values: &[f64], alpha: f64, beta: f64) -> f64 {
    // (level, trend) after the values so far.
    let mut state: Option<(f64, f64)> = None;
    for v in present(values) {
        state = Some(match state {
            None => (v, 0.0),
            Some((last_s, last_b)) => {
                let s = alpha * v + (1.0 - alpha) * (last_s + last_b);
                (s, beta * (s - last_s) + (1.0 - beta) * last_b)
            }
        });
    }
    state.map_or(f64::NAN, |(s, _)| s)
}

#[cfg(test)]
mod tests {
    use super::call;

    #[test]
    fn functions_are_elasticsearchs() {
        let v = [1.0, f64::NAN, 4.0, 9.0];
        assert_eq!(call("max", &v, &[]), Some(9.0));
        assert_eq!(call("min", &v, &[]), Some(1.0));
        assert_eq!(call("sum", &v, &[]), Some(14.0));
        assert_eq!(call("unweightedAvg", &v, &[]), Some(14.0 / 3.0));
        // Weights 1, 2, 3 over the three values present.
        assert_eq!(
            call("linearWeightedAvg", &v, &[]),
            Some((1.0 + 8.0 + 27.0) / 6.0)
        );
        // 1, then 4 * 0.5 + 1 * 0.5 = 2.5, then 9 * 0.5 + 2.5 * 0.5 = 5.75.
        assert_eq!(call("ewma", &v, &[0.5]), Some(5.75));
        let sd = call("stdDev", &v, &[14.0 / 3.0]).unwrap();
        let want = ((1.0f64 - 14.0 / 3.0).powi(2)
            + (4.0f64 - 14.0 / 3.0).powi(2)
            + (9.0f64 - 14.0 / 3.0).powi(2))
            / 3.0;
        assert!((sd - want.sqrt()).abs() < 1e-12);
        // s: 1; 0.5 * 4 + 0.5 * 1 = 2.5 (b = 0.5 * 1.5 = 0.75); 0.5 * 9 + 0.5 * 3.25 = 6.125.
        assert_eq!(call("holt", &v, &[0.5, 0.5]), Some(6.125));
        assert_eq!(call("holtWinters", &v, &[0.5, 0.5, 0.5, 2.0, 0.0]), None);
        assert_eq!(call("max", &v, &[1.0]), None);
    }

    #[test]
    fn an_empty_window_is_nan_but_for_sum() {
        for name in ["max", "min", "unweightedAvg", "linearWeightedAvg"] {
            assert!(call(name, &[], &[]).unwrap().is_nan(), "{name}");
        }
        assert!(call("ewma", &[f64::NAN], &[0.3]).unwrap().is_nan());
        assert!(call("holt", &[], &[0.3, 0.1]).unwrap().is_nan());
        assert!(call("stdDev", &[1.0], &[f64::NAN]).unwrap().is_nan());
        assert_eq!(call("sum", &[], &[]), Some(0.0));
    }
}
