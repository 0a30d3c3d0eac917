//! [`Script`]: a compiled script and running it on an [`Input`], giving
//! an [`Output`]. Above the parser, the resolver and the interpreter.

use crate::env::{Context, DocLookup, Limits};
use crate::error::ScriptError;
use crate::interp;
use crate::{ast, parser, resolve, value};
use serde_json::{Map, Value as Json};

/// What a run gets.
#[derive(Default)]
pub struct Input<'a> {
    /// `params` (an object; none is `{}`).
    pub params: Option<&'a Json>,
    /// `ctx` (an object), for update scripts.
    pub ctx: Option<Json>,
    /// `doc`.
    pub doc: Option<&'a dyn DocLookup>,
    /// `_score`.
    pub score: Option<f64>,
    /// `values`, for `moving_fn` scripts.
    pub values: Option<&'a [f64]>,
    /// The budgets.
    pub limits: Limits,
}

/// What a run gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// The returned value (or the last expression's).
    pub value: Json,
    /// `ctx` as the script left it.
    pub ctx: Option<Json>,
    /// The values passed to `emit`.
    pub emitted: Vec<Json>,
}

/// A compiled script.
#[derive(Debug, Clone)]
pub struct Script {
    source: String,
    body: Vec<ast::Stmt>,
}

impl Script {
    /// Parses and checks `source` for `context`.
    pub fn compile(source: &str, context: Context) -> Result<Script, ScriptError> {
        let body = parser::parse(source)?;
        resolve::check(source, &body, context)?;
        Ok(Script {
            source: source.to_string(),
            body,
        })
    }

    /// The source text.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Runs the script once.
    pub fn run(&self, input: Input<'_>) -> Result<Output, ScriptError> {
        let mut it = interp::Interp::new(&self.source, input.limits);
        let whole = ast::Span {
            start: 0,
            end: self.source.len(),
        };
        let empty = Json::Object(Map::new());
        let params = it
            .heap
            .load_json(input.params.unwrap_or(&empty))
            .map_err(it.budget(whole))?;
        it.globals.push(("params", params));
        let ctx = match &input.ctx {
            Some(ctx) => {
                let v = it.heap.load_json(ctx).map_err(it.budget(whole))?;
                it.globals.push(("ctx", v.clone()));
                Some(v)
            }
            None => None,
        };
        if let Some(score) = input.score {
            it.globals.push(("_score", value::Value::Double(score)));
        }
        if let Some(values) = input.values {
            let list = Json::Array(values.iter().map(|v| Json::from(*v)).collect());
            let v = it.heap.load_json(&list).map_err(it.budget(whole))?;
            it.globals.push(("values", v));
        }
        it.doc = input.doc;
        it.emitted = Some(Vec::new());
        let result = it.run_body(&self.body)?;
        let too_deep = |it: &interp::Interp<'_>| {
            it.fail(
                whole,
                "illegal_argument_exception",
                "the script's result nests deeper than [100] levels",
            )
        };
        let value = it.heap.to_json(&result).ok_or_else(|| too_deep(&it))?;
        let ctx = match ctx {
            Some(v) => Some(it.heap.to_json(&v).ok_or_else(|| too_deep(&it))?),
            None => None,
        };
        let mut emitted = Vec::new();
        for v in it.emitted.take().unwrap_or_default() {
            emitted.push(it.heap.to_json(&v).ok_or_else(|| too_deep(&it))?);
        }
        Ok(Output {
            value,
            ctx,
            emitted,
        })
    }
}
