//! `strata bench eventdata`: Rally's eventdata track reproduced against any
//! Elasticsearch-compatible server over HTTP.
//!
//! It generates nginx access-log documents (the track's fields, mapping and skewed value
//! distributions, deterministic from `--seed`), bulk-indexes them with concurrent clients,
//! runs the track's Kibana dashboards ("traffic", "content_issues", "discover") over
//! "current" and "relative" time windows, and finally indexes at a target rate while
//! querying. It owns no server code: servers are measured over HTTP only.
//!
//! # Layout
//! - [`args`]: the command line ([`EventdataArgs`]) and its validation.
//! - [`generator`], `tables`, `weighted`, [`timestamp`]: the documents.
//! - [`mapping`]: the index settings and mapping.
//! - [`queries`]: the dashboards as `_msearch` bodies, windows, histogram intervals.
//! - [`http`]: the HTTP client; [`replies`]: reading replies and counting errors.
//! - `phases`: setup, index, query and mixed phases; `pacing`: the token bucket.
//! - `stats`, `progress`: measurement and progress bars.
//! - [`report`]: [`EventdataResult`], the human report and the JSON file.

pub mod args;
pub mod generator;
pub mod http;
pub mod mapping;
mod pacing;
mod phases;
mod progress;
pub mod queries;
pub mod replies;
pub mod report;
mod stats;
mod tables;
pub mod timestamp;
mod weighted;

use std::sync::Arc;

pub use args::{EventdataArgs, Phase};
pub use report::EventdataResult;

use crate::kv::Machine;
use crate::LabError;
use generator::EventGenerator;
use http::EsClient;
use phases::{index, mixed, query, setup, DataSpan, Run};
use report::EventdataConfig;

/// Runs the phases asked for on the caller's tokio runtime and returns what they measured.
///
/// Fails before any phase when the arguments are invalid, the server is unreachable or the
/// index cannot be prepared; failures during phases are counted in the result instead.
/// Prints nothing but progress bars (on a terminal, unless `--quiet`).
pub async fn run_eventdata(args: &EventdataArgs) -> Result<EventdataResult, LabError> {
    args.validate()?;
    let start_ms = args.start_ms()?;
    let run = Arc::new(Run {
        args: args.clone(),
        client: EsClient::new(args.base_url()?, args.request_timeout()),
        generator: EventGenerator::new(args.seed, start_ms, args.event_rate),
    });
    let mut notes = Vec::new();
    let server = setup::server_info(&run, &mut notes).await?;
    let setup = setup::prepare_index(&run, &mut notes).await?;
    let mut expected = setup.docs_before;

    let index = if args.runs(Phase::Index) {
        let result = index::run_index(&run, expected, &mut notes).await?;
        expected += result.docs_indexed;
        Some(result)
    } else {
        None
    };
    let generated = index.as_ref().map(|_| DataSpan {
        oldest_ms: run.generator.timestamp_ms(0),
        newest_ms: run.generator.timestamp_ms(args.docs - 1),
    });
    let needs_span = args.runs(Phase::Query) || args.runs(Phase::Mixed);
    let measured = if needs_span {
        query::data_span(&run, &mut notes).await
    } else {
        None
    };
    let span = measured.or_else(|| {
        if needs_span && generated.is_some() {
            notes.push("using the generated documents' time span instead".into());
        }
        generated
    });

    let query = match (args.runs(Phase::Query), span) {
        (false, _) => None,
        (true, Some(span)) => Some(query::run_query(&run, span).await),
        (true, None) => {
            return Err(LabError::Config(format!(
                "index {} has no documents with @timestamp to query",
                args.index
            )))
        }
    };

    let mixed = if args.runs(Phase::Mixed) {
        // Continue the simulated log after the newest document.
        let first_doc = match (&index, span) {
            (Some(_), _) => args.docs,
            (None, Some(span)) => {
                let after = (span.newest_ms - start_ms + 1).max(0) as f64;
                (after * args.event_rate / 1000.0).ceil() as u64
            }
            (None, None) => 0,
        };
        let oldest_ms = span.map_or(run.generator.timestamp_ms(first_doc), |s| s.oldest_ms);
        Some(mixed::run_mixed(&run, first_doc, oldest_ms, expected).await?)
    } else {
        None
    };

    Ok(EventdataResult {
        config: EventdataConfig::from_args(args),
        machine: Machine::current(),
        server,
        setup,
        index,
        query,
        mixed,
        notes,
    })
}
