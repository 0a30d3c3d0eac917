//! [`AggKind`]: the aggregation types this server computes, by their
//! Elasticsearch names. A name not listed is refused when the request is
//! parsed, in the words translation used before the tree existed.

/// One aggregation type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AggKind {
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `avg`.
    Avg,
    /// `sum`.
    Sum,
    /// `value_count`.
    ValueCount,
    /// `stats`.
    Stats,
    /// `extended_stats`.
    ExtendedStats,
    /// `percentiles`.
    Percentiles,
    /// `percentile_ranks`.
    PercentileRanks,
    /// `boxplot`.
    Boxplot,
    /// `median_absolute_deviation`.
    MedianAbsoluteDeviation,
    /// `rate`.
    Rate,
    /// `cardinality`.
    Cardinality,
    /// `weighted_avg`.
    WeightedAvg,
    /// `string_stats`.
    StringStats,
    /// `terms`.
    Terms,
    /// `multi_terms`.
    MultiTerms,
    /// `rare_terms`.
    RareTerms,
    /// `significant_terms`.
    SignificantTerms,
    /// `histogram`.
    Histogram,
    /// `date_histogram`.
    DateHistogram,
    /// `auto_date_histogram`.
    AutoDateHistogram,
    /// `range`.
    Range,
    /// `date_range`.
    DateRange,
    /// `ip_range`.
    IpRange,
    /// `filter`.
    Filter,
    /// `filters`.
    Filters,
    /// `global`.
    Global,
    /// `random_sampler`.
    RandomSampler,
    /// `sampler`.
    Sampler,
    /// `diversified_sampler`.
    DiversifiedSampler,
    /// `missing`.
    Missing,
    /// `composite`.
    Composite,
    /// `nested`.
    Nested,
    /// `reverse_nested`.
    ReverseNested,
    /// `top_hits`.
    TopHits,
    /// `top_metrics`.
    TopMetrics,
    /// `geo_centroid`.
    GeoCentroid,
    /// `geohash_grid`.
    GeohashGrid,
    /// `geotile_grid`.
    GeotileGrid,
    /// `geo_bounds`.
    GeoBounds,
    /// `derivative`.
    Derivative,
    /// `cumulative_sum`.
    CumulativeSum,
    /// `serial_diff`.
    SerialDiff,
    /// `moving_fn`.
    MovingFn,
    /// `normalize`.
    Normalize,
    /// `cumulative_cardinality`.
    CumulativeCardinality,
    /// `bucket_sort`.
    BucketSort,
    /// `bucket_script`.
    BucketScript,
    /// `bucket_selector`.
    BucketSelector,
    /// `avg_bucket`.
    AvgBucket,
    /// `max_bucket`.
    MaxBucket,
    /// `min_bucket`.
    MinBucket,
    /// `sum_bucket`.
    SumBucket,
    /// `stats_bucket`.
    StatsBucket,
    /// `extended_stats_bucket`.
    ExtendedStatsBucket,
    /// `percentiles_bucket`.
    PercentilesBucket,
}

/// Every kind with its name; names are unique.
const NAMES: &[(AggKind, &str)] = &[
    (AggKind::Min, "min"),
    (AggKind::Max, "max"),
    (AggKind::Avg, "avg"),
    (AggKind::Sum, "sum"),
    (AggKind::ValueCount, "value_count"),
    (AggKind::Stats, "stats"),
    (AggKind::ExtendedStats, "extended_stats"),
    (AggKind::Percentiles, "percentiles"),
    (AggKind::PercentileRanks, "percentile_ranks"),
    (AggKind::Boxplot, "boxplot"),
    (
        AggKind::MedianAbsoluteDeviation,
        "median_absolute_deviation",
    ),
    (AggKind::Rate, "rate"),
    (AggKind::Cardinality, "cardinality"),
    (AggKind::WeightedAvg, "weighted_avg"),
    (AggKind::StringStats, "string_stats"),
    (AggKind::Terms, "terms"),
    (AggKind::MultiTerms, "multi_terms"),
    (AggKind::RareTerms, "rare_terms"),
    (AggKind::SignificantTerms, "significant_terms"),
    (AggKind::Histogram, "histogram"),
    (AggKind::DateHistogram, "date_histogram"),
    (AggKind::AutoDateHistogram, "auto_date_histogram"),
    (AggKind::Range, "range"),
    (AggKind::DateRange, "date_range"),
    (AggKind::IpRange, "ip_range"),
    (AggKind::Filter, "filter"),
    (AggKind::Filters, "filters"),
    (AggKind::Global, "global"),
    (AggKind::RandomSampler, "random_sampler"),
    (AggKind::Sampler, "sampler"),
    (AggKind::DiversifiedSampler, "diversified_sampler"),
    (AggKind::Missing, "missing"),
    (AggKind::Composite, "composite"),
    (AggKind::Nested, "nested"),
    (AggKind::ReverseNested, "reverse_nested"),
    (AggKind::TopHits, "top_hits"),
    (AggKind::TopMetrics, "top_metrics"),
    (AggKind::GeoCentroid, "geo_centroid"),
    (AggKind::GeohashGrid, "geohash_grid"),
    (AggKind::GeotileGrid, "geotile_grid"),
    (AggKind::GeoBounds, "geo_bounds"),
    (AggKind::Derivative, "derivative"),
    (AggKind::CumulativeSum, "cumulative_sum"),
    (AggKind::SerialDiff, "serial_diff"),
    (AggKind::MovingFn, "moving_fn"),
    (AggKind::Normalize, "normalize"),
    (AggKind::CumulativeCardinality, "cumulative_cardinality"),
    (AggKind::BucketSort, "bucket_sort"),
    (AggKind::BucketScript, "bucket_script"),
    (AggKind::BucketSelector, "bucket_selector"),
    (AggKind::AvgBucket, "avg_bucket"),
    (AggKind::MaxBucket, "max_bucket"),
    (AggKind::MinBucket, "min_bucket"),
    (AggKind::SumBucket, "sum_bucket"),
    (AggKind::StatsBucket, "stats_bucket"),
    (AggKind::ExtendedStatsBucket, "extended_stats_bucket"),
    (AggKind::PercentilesBucket, "percentiles_bucket"),
];

impl AggKind {
    /// The kind named `name`, if this server computes it.
    pub fn from_name(name: &str) -> Option<AggKind> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(k, _)| *k)
    }

    /// Whether it may have sub-aggregations: the metrics (`percentile_ranks`
    /// among them), `top_hits`, `top_metrics`,
    /// `geo_centroid`, `geo_bounds` and the pipelines may not, even an empty `aggs`
    /// (Elasticsearch refuses the key itself).
    pub fn takes_subs(self) -> bool {
        use AggKind::*;
        !matches!(
            self,
            Min | Max
                | Avg
                | Sum
                | ValueCount
                | Stats
                | ExtendedStats
                | Percentiles
                | PercentileRanks
                | Boxplot
                | MedianAbsoluteDeviation
                | Rate
                | Cardinality
                | WeightedAvg
                | StringStats
                | TopHits
                | TopMetrics
                | GeoCentroid
                | GeoBounds
                | Derivative
                | CumulativeSum
                | SerialDiff
                | MovingFn
                | Normalize
                | CumulativeCardinality
                | BucketSort
                | BucketScript
                | BucketSelector
                | AvgBucket
                | MaxBucket
                | MinBucket
                | SumBucket
                | StatsBucket
                | ExtendedStatsBucket
                | PercentilesBucket
        )
    }

    /// The Elasticsearch name of this kind.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(k, _)| *k == self)
            .map_or("", |(_, n)| n)
    }
}

#[cfg(test)]
mod tests {
    use super::{AggKind, NAMES};

    #[test]
    fn names_and_kinds_map_one_to_one() {
        for (kind, name) in NAMES {
            assert_eq!(AggKind::from_name(name), Some(*kind));
            assert_eq!(kind.name(), *name);
        }
        assert_eq!(AggKind::from_name("scripted_metric"), None);
    }
}
