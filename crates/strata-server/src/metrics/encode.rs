//! Helpers that write one metric family through prometheus-client's
//! encoder: a constant counter or gauge, the same by label set, and a
//! histogram from a [`HistogramSnapshot`] (cumulative counts at its
//! power-of-two edges, `+Inf` being the count).

use std::fmt::Result;

use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Unit;
use strata_metrics::HistogramSnapshot;

/// A label set: `(name, value)` pairs.
pub(crate) type Labels<'a> = Vec<(&'static str, &'a str)>;

/// A counter without labels (`_total` is appended to `name`).
pub(crate) fn counter(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    value: u64,
) -> Result {
    let family = enc.encode_descriptor(name, help, unit.as_ref(), MetricType::Counter)?;
    ConstCounter::new(value).encode(family)
}

/// A counter with one value per label set.
pub(crate) fn counters<L: EncodeLabelSet>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    rows: impl IntoIterator<Item = (L, u64)>,
) -> Result {
    let mut family = enc.encode_descriptor(name, help, unit.as_ref(), MetricType::Counter)?;
    for (labels, value) in rows {
        ConstCounter::new(value).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

/// A counter in (fractional) seconds, one value per label set.
pub(crate) fn seconds_counters<L: EncodeLabelSet>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (L, f64)>,
) -> Result {
    let unit = Unit::Seconds;
    let mut family = enc.encode_descriptor(name, help, Some(&unit), MetricType::Counter)?;
    for (labels, value) in rows {
        ConstCounter::new(value).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

/// A gauge without labels.
pub(crate) fn gauge(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    value: i64,
) -> Result {
    let family = enc.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?;
    ConstGauge::new(value).encode(family)
}

/// A fractional gauge without labels.
pub(crate) fn gauge_f64(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    value: f64,
) -> Result {
    let family = enc.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?;
    ConstGauge::new(value).encode(family)
}

/// A gauge with one value per label set.
pub(crate) fn gauges<L: EncodeLabelSet>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    rows: impl IntoIterator<Item = (L, i64)>,
) -> Result {
    let mut family = enc.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?;
    for (labels, value) in rows {
        ConstGauge::new(value).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

/// A duration histogram (`_seconds`), one per label set.
pub(crate) fn histograms<L: EncodeLabelSet>(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    rows: impl IntoIterator<Item = (L, HistogramSnapshot)>,
) -> Result {
    let unit = Unit::Seconds;
    let mut family = enc.encode_descriptor(name, help, Some(&unit), MetricType::Histogram)?;
    for (labels, snapshot) in rows {
        let cumulative = snapshot.cumulative_seconds();
        // The encoder sums per-bucket counts; the snapshot's are cumulative.
        let mut previous = 0;
        let buckets: Vec<(f64, u64)> = cumulative
            .iter()
            .map(|&(edge, total)| {
                let in_bucket = total - previous;
                previous = total;
                (edge, in_bucket)
            })
            .collect();
        // Read while recording goes on: `+Inf` is never below the buckets.
        let count = snapshot.count.max(previous);
        family
            .encode_family(&labels)?
            .encode_histogram::<NoLabelSet>(snapshot.sum_seconds(), count, &buckets, None)?;
    }
    Ok(())
}
