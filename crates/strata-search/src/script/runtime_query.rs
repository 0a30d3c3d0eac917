//! Queries on runtime fields (`runtime_mappings` of the request or the
//! index mapping's `runtime` section): `term`, `terms`, `match`, `range`
//! and `exists` on a field no mapping has. The field's script runs for
//! every live document of a segment when its scorer is made (as
//! Elasticsearch evaluates runtime fields per document), each run under
//! the interpreter's usual limits; a failing script is the request's
//! `script_exception`, a value of the wrong type a 400.

use std::sync::Arc;

use serde_json::Value;
use strata_script::{Input, Limits};
use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, Score, SegmentReader, TantivyError};

use super::doc_values::SegmentDocValues;
use super::fields::RuntimeType;
use super::run::carry;
use super::Compiled;
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::Mappings;
use crate::query::ast::{QueryAst, RangeBound};
use crate::query::context::QueryContext;
use crate::query::nested::level::ListScorer;
use crate::query::params::with_boost;

/// A runtime field's value, comparable across the forms a script emits.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub(crate) enum Key {
    Text(String),
    Number(f64),
    Bool(bool),
}

pub(crate) fn key_of(ty: RuntimeType, v: &Value) -> Option<Key> {
    match (ty, v) {
        (RuntimeType::Keyword | RuntimeType::Ip, Value::String(s)) => Some(Key::Text(s.clone())),
        (RuntimeType::Keyword, Value::Number(n)) => Some(Key::Text(n.to_string())),
        (RuntimeType::Keyword, Value::Bool(b)) => Some(Key::Text(b.to_string())),
        (RuntimeType::Long | RuntimeType::Double, Value::Number(n)) => n.as_f64().map(Key::Number),
        (RuntimeType::Long | RuntimeType::Double, Value::String(s)) => {
            s.trim().parse().ok().map(Key::Number)
        }
        (RuntimeType::Date, Value::Number(n)) => n.as_f64().map(Key::Number),
        (RuntimeType::Date, Value::String(s)) => {
            DateFormat::parse("strict_date_optional_time||epoch_millis")
                .ok()
                .and_then(|f| f.parse_str(s).ok())
                .map(|ms| Key::Number(ms as f64))
        }
        (RuntimeType::Boolean, Value::Bool(b)) => Some(Key::Bool(*b)),
        (RuntimeType::Boolean, Value::String(s)) if s == "true" || s == "false" => {
            Some(Key::Bool(s == "true"))
        }
        _ => None,
    }
}

/// What the query asks of a document's emitted values.
#[derive(Debug, Clone)]
enum Predicate {
    /// At least one value.
    Exists,
    /// One value among these.
    AnyOf(Vec<Key>),
    /// One value within these bounds: (bound, inclusive).
    Range {
        lower: Option<(Key, bool)>,
        upper: Option<(Key, bool)>,
    },
}

impl Predicate {
    fn holds(&self, values: &[Key]) -> bool {
        match self {
            Predicate::Exists => !values.is_empty(),
            Predicate::AnyOf(keys) => values.iter().any(|v| keys.contains(v)),
            Predicate::Range { lower, upper } => values.iter().any(|v| {
                let above = lower
                    .as_ref()
                    .is_none_or(|(b, inc)| if *inc { v >= b } else { v > b });
                let below = upper
                    .as_ref()
                    .is_none_or(|(b, inc)| if *inc { v <= b } else { v < b });
                above && below
            }),
        }
    }
}

/// The query as a query on a runtime field (`term`, `terms`, `match`,
/// `range`, `exists`); `None` when it names no runtime field (or the
/// query kind takes none).
pub(crate) fn build(
    ctx: &QueryContext<'_>,
    query: &QueryAst<'_>,
) -> Result<Option<Box<dyn Query>>> {
    let Some(runtime) = ctx.runtime else {
        return Ok(None);
    };
    let field = match query {
        QueryAst::Term(q) => q.field,
        QueryAst::Terms(q) => q.field,
        QueryAst::Match(q) => q.field,
        QueryAst::Range(q) => q.field,
        QueryAst::Exists(q) => q.field,
        _ => return Ok(None),
    };
    if ctx.leaf(field).is_some() {
        return Ok(None);
    }
    let Some((ty, compiled)) = runtime.runtime_field(field) else {
        return Ok(None);
    };
    let key = |v: &Value| {
        key_of(ty, v).ok_or_else(|| {
            SearchError::QueryShard(format!(
                "failed to create query: value [{v}] is not valid for runtime field [{field}] of type [{}]",
                ty.name()
            ))
        })
    };
    let bound = |b: &Option<RangeBound<'_>>| -> Result<Option<(Key, bool)>> {
        b.map(|b| Ok((key(b.value)?, b.inclusive))).transpose()
    };
    let (predicate, boost) = match query {
        QueryAst::Exists(q) => (Predicate::Exists, q.boost),
        QueryAst::Term(q) => (Predicate::AnyOf(vec![key(q.value)?]), q.boost),
        QueryAst::Match(q) => (Predicate::AnyOf(vec![key(q.query)?]), q.boost),
        QueryAst::Terms(q) => {
            ctx.limits.check_terms_count(q.values.len())?;
            let keys = q.values.iter().map(key).collect::<Result<_>>()?;
            (Predicate::AnyOf(keys), q.boost)
        }
        QueryAst::Range(q) => (
            Predicate::Range {
                lower: bound(&q.lower)?,
                upper: bound(&q.upper)?,
            },
            q.boost,
        ),
        _ => return Ok(None),
    };
    let query = Box::new(RuntimeQuery {
        name: field.to_string(),
        ty,
        script: compiled.clone(),
        predicate,
        mappings: Arc::new(ctx.mappings.clone()),
    });
    Ok(Some(with_boost(query, boost)))
}

/// Documents whose runtime field's values satisfy a predicate (score 1).
#[derive(Clone)]
struct RuntimeQuery {
    name: String,
    ty: RuntimeType,
    script: Compiled,
    predicate: Predicate,
    mappings: Arc<Mappings>,
}

impl std::fmt::Debug for RuntimeQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Runtime({}, {:?})", self.name, self.predicate)
    }
}

impl Query for RuntimeQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl RuntimeQuery {
    /// The segment's matching live documents.
    fn matches(&self, reader: &SegmentReader) -> tantivy::Result<Vec<(DocId, Score)>> {
        let doc_values = SegmentDocValues::new(reader, self.mappings.clone());
        let mut out = Vec::new();
        let mut keys = Vec::new();
        for doc in 0..reader.max_doc() {
            if reader.is_deleted(doc) {
                continue;
            }
            emitted_keys(
                &self.name,
                self.ty,
                &self.script,
                &doc_values,
                doc,
                &mut keys,
            )?;
            if self.predicate.holds(&keys) {
                out.push((doc, 1.0));
            }
        }
        Ok(out)
    }
}

/// The values the runtime field `name` (of type `ty`, computed by
/// `script`) emits for `doc`, as keys in `out` (cleared first); a script
/// failure is carried through tantivy (`carry`), a value of the wrong
/// type is an invalid argument.
pub(crate) fn emitted_keys(
    name: &str,
    ty: RuntimeType,
    script: &Compiled,
    doc_values: &SegmentDocValues,
    doc: DocId,
    out: &mut Vec<Key>,
) -> tantivy::Result<()> {
    doc_values.set_doc(doc);
    let run = script
        .script
        .run(Input {
            params: Some(&script.params),
            doc: Some(doc_values),
            limits: Limits::default(),
            ..Input::default()
        })
        .map_err(carry)?;
    out.clear();
    for v in &run.emitted {
        let key = key_of(ty, v).ok_or_else(|| {
            TantivyError::InvalidArgument(format!(
                "runtime field [{name}]: cannot emit [{v}] as a [{}] value",
                ty.name()
            ))
        })?;
        out.push(key);
    }
    Ok(())
}

impl Weight for RuntimeQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut docs = self.matches(reader)?;
        for d in &mut docs {
            d.1 = boost;
        }
        Ok(Box::new(ListScorer::new(docs)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        let docs = self.matches(reader)?;
        if docs.binary_search_by_key(&doc, |(d, _)| *d).is_ok() {
            Ok(Explanation::new("runtime field query", 1.0))
        } else {
            Err(TantivyError::InvalidArgument(format!(
                "document {doc} does not match"
            )))
        }
    }
}
