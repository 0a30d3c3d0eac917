//! The `normalize` pipeline's methods (Elasticsearch's
//! `NormalizePipelineMethods`): each bucket's value rescaled against the
//! values of all the parent's buckets. A gap (`None`, Elasticsearch's
//! NaN under the `skip` gap policy) takes no part in the statistics and
//! stays a gap; a division by zero gives a non-finite value, which the
//! response writes as `null` as Elasticsearch does.

use crate::error::{Result, SearchError};

/// One `method` of `normalize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormalizeMethod {
    /// `rescale_0_1`: `(x - min) / (max - min)`.
    RescaleZeroToOne,
    /// `rescale_0_100`: `100 * (x - min) / (max - min)`.
    RescaleZeroToOneHundred,
    /// `percent_of_sum`: `x / sum`.
    PercentOfSum,
    /// `mean`: `(x - mean) / (max - min)`.
    Mean,
    /// `z-score`: `(x - mean) / stdev` (the population's deviation).
    ZScore,
    /// `softmax`: `e^x / sum(e^y)`.
    Softmax,
}

impl NormalizeMethod {
    /// The method named `method` of pipeline `name`.
    pub fn parse(name: &str, method: &str) -> Result<NormalizeMethod> {
        Ok(match method {
            "rescale_0_1" => NormalizeMethod::RescaleZeroToOne,
            "rescale_0_100" => NormalizeMethod::RescaleZeroToOneHundred,
            "percent_of_sum" => NormalizeMethod::PercentOfSum,
            "mean" => NormalizeMethod::Mean,
            "z-score" => NormalizeMethod::ZScore,
            "softmax" => NormalizeMethod::Softmax,
            other => {
                return Err(SearchError::illegal(format!(
                    "invalid method [{other}] of normalize aggregation [{name}]"
                )))
            }
        })
    }

    /// `values` normalized, gaps kept as gaps.
    pub fn apply(self, values: &[Option<f64>]) -> Vec<Option<f64>> {
        let present = || values.iter().flatten().copied();
        let count = present().count() as f64;
        let sum: f64 = present().sum();
        let min = present().fold(f64::INFINITY, f64::min);
        let max = present().fold(f64::NEG_INFINITY, f64::max);
        let mean = sum / count;
        let f: Box<dyn Fn(f64) -> f64> = match self {
            NormalizeMethod::RescaleZeroToOne => Box::new(|x| (x - min) / (max - min)),
            NormalizeMethod::RescaleZeroToOneHundred => {
                Box::new(|x| 100.0 * (x - min) / (max - min))
            }
            NormalizeMethod::PercentOfSum => Box::new(|x| x / sum),
            NormalizeMethod::Mean => Box::new(|x| (x - mean) / (max - min)),
            NormalizeMethod::ZScore => {
                let variance = present().map(|x| (x - mean) * (x - mean)).sum::<f64>() / count;
                let stdev = variance.sqrt();
                Box::new(move |x| (x - mean) / stdev)
            }
            NormalizeMethod::Softmax => {
                let exp_sum: f64 = present().map(f64::exp).sum();
                Box::new(move |x| x.exp() / exp_sum)
            }
        };
        values.iter().map(|v| v.map(&f)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::NormalizeMethod::{self, *};

    fn run(method: NormalizeMethod, values: &[Option<f64>]) -> Vec<Option<f64>> {
        method.apply(values)
    }

    fn close(got: &[Option<f64>], want: &[Option<f64>]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            match (g, w) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{got:?} vs {want:?}"),
                (None, None) => {}
                _ => panic!("{got:?} vs {want:?}"),
            }
        }
    }

    #[test]
    fn gaps_take_no_part_and_stay_gaps() {
        let v = [Some(3.0), None, Some(1.0), Some(2.0)];
        close(
            &run(RescaleZeroToOne, &v),
            &[Some(1.0), None, Some(0.0), Some(0.5)],
        );
        close(
            &run(PercentOfSum, &v),
            &[Some(0.5), None, Some(1.0 / 6.0), Some(1.0 / 3.0)],
        );
        close(&run(Mean, &v), &[Some(0.5), None, Some(-0.5), Some(0.0)]);
    }

    #[test]
    fn equal_values_divide_by_zero_and_nothing_panics() {
        let got = run(RescaleZeroToOne, &[Some(2.0), Some(2.0)]);
        assert!(got.iter().all(|v| v.is_some_and(f64::is_nan)));
        assert!(run(ZScore, &[None, None]).iter().all(Option::is_none));
        assert!(run(Softmax, &[]).is_empty());
    }

    #[test]
    fn unknown_methods_are_refused() {
        assert!(NormalizeMethod::parse("n", "zscore").is_err());
        assert_eq!(
            NormalizeMethod::parse("n", "z-score").unwrap(),
            NormalizeMethod::ZScore
        );
    }
}
