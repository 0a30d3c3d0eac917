//! The `script` object of a request: a string (the source), or
//! `{"source": ..., "params": {...}, "lang": "painless"}`, or a stored
//! script `{"id": ..., "params": {...}}`.

use serde_json::{Map, Value as Json};

/// Where the script's source is.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptSource {
    /// Given inline.
    Inline(String),
    /// A stored script's id (`PUT _scripts/<id>`), for the host to resolve.
    Stored(String),
}

/// A parsed `script` object.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptSpec {
    /// The source or stored id.
    pub source: ScriptSource,
    /// `params` (an object, `{}` when absent).
    pub params: Json,
}

/// A malformed `script` object: Elasticsearch's `parsing_exception` or
/// (for another language) `illegal_argument_exception`.
#[derive(Debug, Clone, PartialEq)]
pub enum SpecError {
    /// The shape is wrong.
    Parsing(String),
    /// A language other than Painless.
    Lang(String),
}

impl ScriptSpec {
    /// Parses a `script` value.
    pub fn parse(value: &Json) -> Result<ScriptSpec, SpecError> {
        let obj = match value {
            Json::String(source) => {
                return Ok(ScriptSpec {
                    source: ScriptSource::Inline(source.clone()),
                    params: Json::Object(Map::new()),
                })
            }
            Json::Object(obj) => obj,
            _ => {
                return Err(SpecError::Parsing(
                    "Unknown token [VALUE_NUMBER] in script: expected a string or an object".into(),
                ))
            }
        };
        let mut source = None;
        let mut params = Json::Object(Map::new());
        for (key, v) in obj {
            match key.as_str() {
                "source" | "inline" => match v {
                    Json::String(s) => source = Some(ScriptSource::Inline(s.clone())),
                    // Elasticsearch also takes a JSON object as the source of
                    // a mustache template; Painless needs a string.
                    _ => return Err(SpecError::Parsing("[script] failed to parse field [source]: must be a string".into())),
                },
                "id" => match v {
                    Json::String(s) => source = Some(ScriptSource::Stored(s.clone())),
                    _ => return Err(SpecError::Parsing("[script] failed to parse field [id]: must be a string".into())),
                },
                "params" => match v {
                    Json::Object(_) => params = v.clone(),
                    Json::Null => {}
                    _ => return Err(SpecError::Parsing(format!("[script] failed to parse field [params]: params must be an object, got [{v}]"))),
                },
                "lang" => match v.as_str() {
                    Some("painless") | None => {}
                    Some(other) => return Err(SpecError::Lang(format!("script_lang not supported [{other}]"))),
                },
                "options" => {}
                other => return Err(SpecError::Parsing(format!("[script] unknown field [{other}]"))),
            }
        }
        let source = source.ok_or_else(|| {
            SpecError::Parsing(
                "must specify either [source] for an inline script or [id] for a stored script"
                    .into(),
            )
        })?;
        Ok(ScriptSpec { source, params })
    }
}
