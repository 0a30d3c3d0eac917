//! strata-es's integration tests linked as one binary: one link and one
//! executable instead of one per file keeps CI's build time and disk small.
//! Each file is a module named after it; run one with
//! `cargo test -p strata-es --test integration <file>::`.

#[path = "support/mod.rs"]
mod support;

#[path = "admin.rs"]
mod admin;
#[path = "aliases.rs"]
mod aliases;
#[path = "api.rs"]
mod api;
#[path = "app_compat.rs"]
mod app_compat;
#[path = "breakers.rs"]
mod breakers;
#[path = "compat_aggs.rs"]
mod compat_aggs;
#[path = "compat_ip_range.rs"]
mod compat_ip_range;
#[path = "compat_percentiles.rs"]
mod compat_percentiles;
#[path = "compat_spread.rs"]
mod compat_spread;
#[path = "disk_usage.rs"]
mod disk_usage;
#[path = "exact_numbers.rs"]
mod exact_numbers;
#[path = "fetch_failures.rs"]
mod fetch_failures;
#[path = "hostile_requests.rs"]
mod hostile_requests;
#[path = "indices_options.rs"]
mod indices_options;
#[path = "limits.rs"]
mod limits;
#[path = "parse_positions.rs"]
mod parse_positions;
#[path = "partial_results.rs"]
mod partial_results;
#[path = "placement.rs"]
mod placement;
#[path = "pressure.rs"]
mod pressure;
#[path = "query_dsl.rs"]
mod query_dsl;
#[path = "rollover.rs"]
mod rollover;
#[path = "rust_client/main.rs"]
mod rust_client;
#[path = "search.rs"]
mod search;
#[path = "search_body_fuzz.rs"]
mod search_body_fuzz;
#[path = "security.rs"]
mod security;
#[path = "sliced.rs"]
mod sliced;
#[path = "sliced_aggs.rs"]
mod sliced_aggs;
#[path = "source.rs"]
mod source;
#[path = "startup.rs"]
mod startup;
#[path = "templates.rs"]
mod templates;
#[path = "updates.rs"]
mod updates;
