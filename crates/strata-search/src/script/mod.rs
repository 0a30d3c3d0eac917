//! Scripts in searches and updates, run by `strata-script`:
//! - this module: a request's `script` object compiled for a context,
//!   its errors as [`SearchError`]s;
//! - [`doc_values`]: `doc['field']` read from a segment's columns;
//! - [`score`]: the `script_score` and `function_score` queries;
//! - `run`: a script run inside tantivy, its failure carried through;
//! - [`fields`]: `script_fields` and `runtime_mappings` on hits;
//! - [`bucket`]: the `bucket_script` and `bucket_selector` pipelines, and
//!   `moving_fn` (`moving_fn`: its window of values and `MovingFunctions`);
//! - [`update`]: `_update` with a script (and `scripted_upsert`);
//! - [`stored`]: stored scripts (`PUT _scripts/<id>`).

pub mod bucket;
pub mod doc_values;
pub mod fields;
mod moving_fn;
pub(crate) mod run;
pub mod runtime_query;
pub mod score;
pub mod stored;
pub mod update;

use std::sync::Arc;

use serde_json::Value;
use strata_script::spec::{ScriptSource, SpecError};
use strata_script::{Context, Script, ScriptError, ScriptSpec};

use crate::error::{Result, SearchError};

/// A script ready to run, with its `params`.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The compiled script.
    pub script: Arc<Script>,
    /// Its `params` object.
    pub params: Arc<Value>,
}

/// Compiles a `script` value (a string or `{source, params, lang}`) for `context`.
pub fn compile(value: &Value, context: Context) -> Result<Compiled> {
    compile_spec(&parse_spec(value)?, context)
}

/// Parses a `script` value (a string or `{source, params, lang}`).
pub(crate) fn parse_spec(value: &Value) -> Result<ScriptSpec> {
    ScriptSpec::parse(value).map_err(|e| match e {
        SpecError::Parsing(m) => SearchError::parsing(m),
        SpecError::Lang(m) => SearchError::illegal(m),
    })
}

/// Compiles a parsed `script` for `context`.
pub(crate) fn compile_spec(spec: &ScriptSpec, context: Context) -> Result<Compiled> {
    let source = match &spec.source {
        ScriptSource::Inline(source) => source,
        ScriptSource::Stored(id) => {
            return Err(SearchError::ResourceNotFound(format!(
                "unable to find script [{id}] in cluster state"
            )))
        }
    };
    let script = Script::compile(source, context).map_err(script_error)?;
    Ok(Compiled {
        script: Arc::new(script),
        params: Arc::new(spec.params.clone()),
    })
}

/// A script failure as the engine's error.
pub fn script_error(e: ScriptError) -> SearchError {
    SearchError::Script(Box::new(e))
}
