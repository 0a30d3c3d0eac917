//! strata-search's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-search --test integration <file>::`.

#[path = "common/mod.rs"]
mod common;

#[path = "aliases_templates.rs"]
mod aliases_templates;
#[path = "auto_date_histogram.rs"]
mod auto_date_histogram;
#[path = "bucket_subaggs.rs"]
mod bucket_subaggs;
#[path = "calendar_aggs.rs"]
mod calendar_aggs;
#[path = "compat_aggs.rs"]
mod compat_aggs;
#[path = "compat_ip_range.rs"]
mod compat_ip_range;
#[path = "compat_multi_terms.rs"]
mod compat_multi_terms;
#[path = "compat_top_metrics.rs"]
mod compat_top_metrics;
#[path = "concurrent_refresh.rs"]
mod concurrent_refresh;
#[path = "cumulative_cardinality.rs"]
mod cumulative_cardinality;
#[path = "date_percentiles.rs"]
mod date_percentiles;
#[path = "date_ranges.rs"]
mod date_ranges;
#[path = "distinct_terms.rs"]
mod distinct_terms;
#[path = "docvalue_fields.rs"]
mod docvalue_fields;
#[path = "dynamic_templates.rs"]
mod dynamic_templates;
#[path = "engine.rs"]
mod engine;
#[path = "eventdata_dashboards.rs"]
mod eventdata_dashboards;
#[path = "exists.rs"]
mod exists;
#[path = "filter_agg.rs"]
mod filter_agg;
#[path = "flush_crash.rs"]
mod flush_crash;
#[path = "forced_merge.rs"]
mod forced_merge;
#[path = "geo.rs"]
mod geo;
#[path = "geo_tiles.rs"]
mod geo_tiles;
#[path = "highlight.rs"]
mod highlight;
#[path = "hostile_queries.rs"]
mod hostile_queries;
#[path = "metadata_crash.rs"]
mod metadata_crash;
#[path = "metric_formats.rs"]
mod metric_formats;
#[path = "more_aggs.rs"]
mod more_aggs;
#[path = "more_queries.rs"]
mod more_queries;
#[path = "multi_term.rs"]
mod multi_term;
#[path = "nested.rs"]
mod nested;
#[path = "node_store.rs"]
mod node_store;
#[path = "normalize_pipeline.rs"]
mod normalize_pipeline;
#[path = "norms.rs"]
mod norms;
#[path = "number_ranges.rs"]
mod number_ranges;
#[path = "numeric_percentiles.rs"]
mod numeric_percentiles;
#[path = "numeric_percentiles_depth.rs"]
mod numeric_percentiles_depth;
#[path = "numeric_sort.rs"]
mod numeric_sort;
#[path = "placement.rs"]
mod placement;
#[path = "pmem_crash.rs"]
mod pmem_crash;
#[path = "query_bytes_fuzz.rs"]
mod query_bytes_fuzz;
#[path = "random_sampler.rs"]
mod random_sampler;
#[path = "random_sampler_scaling.rs"]
mod random_sampler_scaling;
#[path = "rate_aggs.rs"]
mod rate_aggs;
#[path = "recovery.rs"]
mod recovery;
#[path = "runtime_aggs.rs"]
mod runtime_aggs;
#[path = "runtime_queries.rs"]
mod runtime_queries;
#[path = "sampler_aggs.rs"]
mod sampler_aggs;
#[path = "sort_and_paging.rs"]
mod sort_and_paging;
#[path = "sort_options.rs"]
mod sort_options;
#[path = "spread_aggs.rs"]
mod spread_aggs;
#[path = "string_stats.rs"]
mod string_stats;
#[path = "text_queries.rs"]
mod text_queries;
#[path = "text_split.rs"]
mod text_split;
#[path = "time_buckets.rs"]
mod time_buckets;
#[path = "top_terms.rs"]
mod top_terms;
#[path = "tree_paths.rs"]
mod tree_paths;
