//! How `multi_terms` buckets are ordered: by count, by key, or by a
//! single-value metric sub-aggregation (`min`, `max`, `sum`, `avg`,
//! `value_count`, or one value of a `stats`/`extended_stats`: `s.avg`),
//! which the scan computes per bucket beside the count ([`MetricAcc`])
//! so every candidate bucket can be ranked before any sub-aggregation
//! runs. Other sub-aggregations are refused as order paths; an average
//! over no value (NaN) sorts last in either direction (Elasticsearch's
//! `compareDiscardNaN`). Ties end on the key ascending.

use std::cmp::Ordering;

use crate::error::{Result, SearchError};
use crate::search::agg_tree::{AggKind, AggNode, OrderKey, TypedParams};

/// A statistic of a metric field's values in a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stat {
    Min,
    Max,
    Sum,
    Avg,
    Count,
}

/// The values a metric order reads: a sub-aggregation's field and
/// `missing`, and the statistic ordered by.
#[derive(Debug, Clone)]
pub(super) struct OrderMetric {
    pub(super) field: String,
    pub(super) missing: Option<f64>,
    pub(super) stat: Stat,
}

/// One criterion, resolved.
#[derive(Debug, Clone, Copy)]
pub(super) enum Criterion {
    Count,
    Key,
    /// The metric at this index of the plan's metrics.
    Metric(usize),
}

/// A bucket's running statistics of one metric field.
#[derive(Debug, Clone, Copy)]
pub(super) struct MetricAcc {
    sum: f64,
    count: u64,
    min: f64,
    max: f64,
}

impl Default for MetricAcc {
    fn default() -> MetricAcc {
        MetricAcc {
            sum: 0.0,
            count: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl MetricAcc {
    pub(super) fn add(&mut self, v: f64) {
        self.sum += v;
        self.count += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    pub(super) fn merge(&mut self, other: &MetricAcc) {
        self.sum += other.sum;
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// The statistic as the metric aggregation reports it: over no value
    /// a count and a sum of 0, a minimum of +∞, a maximum of -∞, an
    /// average of NaN.
    pub(super) fn value(&self, stat: Stat) -> f64 {
        match stat {
            Stat::Count => self.count as f64,
            Stat::Min => self.min,
            Stat::Max => self.max,
            Stat::Sum => self.sum,
            Stat::Avg if self.count == 0 => f64::NAN,
            Stat::Avg => self.sum / self.count as f64,
        }
    }
}

/// The resolved criteria (descending?), in order.
pub(super) type Criteria = Vec<(Criterion, bool)>;

/// Resolves `order` against the sub-aggregations `subs` of the
/// `multi_terms` `name`: its criteria, and the metrics they read.
pub(super) fn resolve(
    name: &str,
    order: &[(OrderKey, bool)],
    subs: &[AggNode],
) -> Result<(Criteria, Vec<OrderMetric>)> {
    let mut criteria = Vec::with_capacity(order.len());
    let mut metrics = Vec::new();
    for (key, descending) in order {
        let criterion = match key {
            OrderKey::Count => Criterion::Count,
            OrderKey::Key => Criterion::Key,
            OrderKey::Path(path) => {
                metrics.push(metric(name, path, subs)?);
                Criterion::Metric(metrics.len() - 1)
            }
        };
        criteria.push((criterion, *descending));
    }
    Ok((criteria, metrics))
}

/// The metric the order path `path` names among `subs`.
fn metric(name: &str, path: &str, subs: &[AggNode]) -> Result<OrderMetric> {
    let bracketed = path
        .strip_suffix(']')
        .and_then(|p| p.split_once('['))
        .map(|(a, m)| (a, Some(m)));
    let (agg, value) = match (bracketed, path.split_once('.')) {
        (Some(pair), _) => pair,
        (None, Some((a, m))) => (a, Some(m)),
        (None, None) => (path, None),
    };
    let node = subs.iter().find(|n| n.name == agg).ok_or_else(|| {
        SearchError::illegal(format!(
            "Invalid aggregator order path [{path}]. The provided aggregation [{agg}] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets."
        ))
    })?;
    let stat = match (node.kind, value) {
        (AggKind::Min, None) => Some(Stat::Min),
        (AggKind::Max, None) => Some(Stat::Max),
        (AggKind::Sum, None) => Some(Stat::Sum),
        (AggKind::Avg, None) => Some(Stat::Avg),
        (AggKind::ValueCount, None) => Some(Stat::Count),
        (AggKind::Stats | AggKind::ExtendedStats, Some(v)) => match v {
            "min" => Some(Stat::Min),
            "max" => Some(Stat::Max),
            "sum" => Some(Stat::Sum),
            "avg" => Some(Stat::Avg),
            "count" => Some(Stat::Count),
            _ => None,
        },
        _ => None,
    };
    match (stat, &node.typed) {
        (Some(stat), TypedParams::Metric(m)) => Ok(OrderMetric {
            field: m.field.clone(),
            missing: m.missing,
            stat,
        }),
        _ => Err(SearchError::illegal(format!(
            "ordering [multi_terms] aggregation [{name}] by [{path}] (a [{}]) is not supported by this server: order by _count, _key or a min, max, sum, avg, value_count or stats value",
            node.kind.name()
        ))),
    }
}

/// `a` before `b` when it sorts first, NaN last whatever the direction.
pub(super) fn cmp_metric(a: f64, b: f64, descending: bool) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ if descending => b.total_cmp(&a),
        _ => a.total_cmp(&b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_and_nan_last() {
        let mut acc = MetricAcc::default();
        assert!(acc.value(Stat::Avg).is_nan());
        assert_eq!(acc.value(Stat::Count), 0.0);
        assert_eq!(acc.value(Stat::Sum), 0.0);
        assert_eq!(acc.value(Stat::Min), f64::INFINITY);
        for v in [3.0, 1.0, 5.0] {
            acc.add(v);
        }
        let mut other = MetricAcc::default();
        other.add(7.0);
        acc.merge(&other);
        assert_eq!(
            [Stat::Min, Stat::Max, Stat::Sum, Stat::Avg, Stat::Count].map(|s| acc.value(s)),
            [1.0, 7.0, 16.0, 4.0, 4.0]
        );
        assert_eq!(cmp_metric(f64::NAN, 1.0, true), Ordering::Greater);
        assert_eq!(cmp_metric(f64::NAN, 1.0, false), Ordering::Greater);
        assert_eq!(cmp_metric(2.0, 1.0, true), Ordering::Less);
        assert_eq!(cmp_metric(2.0, 1.0, false), Ordering::Greater);
    }
}
