//! # strata-script: a Painless-compatible scripting subset
//!
//! Elasticsearch's scripts (`_update` scripts, `script_fields`, runtime
//! fields, `script_score`, bucket scripts) are written in Painless, a
//! Java-like language. This crate runs the common subset of it over JSON
//! values, with no knowledge of indices or HTTP: the host passes
//! `params`, `ctx`, a [`DocLookup`] for `doc['field']` and `_score`, and
//! gets back the script's value, the changed `ctx` and emitted values.
//!
//! ## Layout
//! - [`lexer`], [`parser`], [`ast`]: source to a syntax tree; nesting is
//!   bounded by [`parser::MAX_DEPTH`], so nothing recurses without limit.
//! - [`resolve`]: names checked before running (`cannot resolve symbol`).
//! - `interp`, `ops`, `methods`, `statics`: the interpreter.
//! - [`value`]: runtime values and the per-run heap with its byte budget.
//! - [`spec`]: the `script` object of requests (`source`, `id`, `params`, `lang`).
//! - [`update`]: running an `_update` script over a document's `_source`.
//! - [`error`]: [`ScriptError`], with what `script_exception` carries.
//!
//! ## What the subset covers
//! Statements: declarations (`def`, `int`, `long`, `double`, `boolean`,
//! `String`, `List`, `Map`, arrays), `if`/`else`, `for`, for-each
//! (`for (def x : xs)`, `for (x in xs)`), `while`, `do`/`while`,
//! `break`, `continue`, `return`, `throw new XException(msg)`.
//! Expressions: Java's operators with its precedence, `?:` (elvis),
//! ternaries, `?.`, casts, `instanceof`, `++`/`--`, compound assignment,
//! list `[a, b]` and map `[k: v]` literals, `new ArrayList()`,
//! `new HashMap()`, `new def[n]`. Members: `String` (length, substring,
//! indexOf, contains, startsWith, endsWith, toLowerCase, toUpperCase,
//! trim, replace, splitOnToken, charAt, equals, compareTo, ...), `List`
//! (add, get, set, remove, contains, indexOf, size, isEmpty, addAll,
//! clear, sort(null)), `Map` (get, put, getOrDefault, containsKey,
//! remove, keySet, values, entrySet, size, putAll, ...), `doc['f']` (`.value`,
//! `.size()`, `.empty`, `[i]`), dates (`getYear()`, `getMonthValue()`,
//! `toInstant().toEpochMilli()`, `getMillis()`, ...), `Math.*`,
//! `Integer/Long/Double.parse*`, `String.valueOf/join`,
//! `Collections.sort/reverse`, `emit(v)` in runtime fields.
//!
//! Not covered, refused at compile time with a message naming them:
//! lambdas and method references (`removeIf`, `stream()`), regular
//! expressions (`=~`, `/re/`, `String.split`), function definitions,
//! `switch`, `try`/`catch`, other classes.
//! Differences: `int` and `long` are both 64-bit (an `int` sum that
//! overflows 32 bits wraps in Java and does not here); map keys are
//! strings, as in JSON; maps iterate in key order.
//!
//! ## Budgets
//! A run executes at most [`Limits::max_statements`] statements and loop
//! iterations (Painless's 1,000,000 loop counter) and allocates at most
//! [`Limits::max_bytes`]; past either it fails with a `script_exception`.

#![deny(unsafe_code)]

pub mod ast;
mod dates;
pub mod error;
mod interp;
pub mod lexer;
mod methods;
mod ops;
pub mod parser;
pub mod resolve;
pub mod spec;
mod statics;
pub mod update;
pub mod value;

use serde_json::{Map, Value as Json};

pub use error::{Phase, ScriptError};
pub use spec::ScriptSpec;
pub use update::{apply_update_script, UpdateMeta, UpdateOp};

/// Where a script runs, which decides the globals it sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// `_update` and `_update_by_query`: `ctx`, `params`.
    Update,
    /// `script_fields` and `script` queries: `doc`, `params`.
    Field,
    /// `script_score` and `function_score`: `doc`, `params`, `_score`.
    Score,
    /// Runtime fields: `doc`, `params`, `emit(value)`.
    RuntimeField,
    /// `bucket_script` and `bucket_selector`: `params` (with the
    /// `buckets_path` variables in it).
    Bucket,
}

impl Context {
    /// The names of the globals.
    pub fn globals(self) -> &'static [&'static str] {
        match self {
            Context::Update => &["ctx", "params"],
            Context::Field | Context::RuntimeField => &["doc", "params"],
            Context::Score => &["doc", "params", "_score"],
            Context::Bucket => &["params"],
        }
    }

    /// Whether `emit` may be called.
    pub fn emits(self) -> bool {
        self == Context::RuntimeField
    }
}

/// What one run may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Statements and loop iterations (Painless's loop counter).
    pub max_statements: u64,
    /// Bytes allocated in total (strings, list and map cells).
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_statements: 1_000_000,
            max_bytes: 64 << 20,
        }
    }
}

/// A value of a doc-values field.
#[derive(Debug, Clone, PartialEq)]
pub enum DocValue {
    /// A `long`, `integer`, `short` or `byte` value.
    Int(i64),
    /// A `double` or `float` value.
    Double(f64),
    /// A `boolean` value.
    Bool(bool),
    /// A `keyword` value.
    Str(String),
    /// Epoch milliseconds.
    Date(i64),
}

/// Why `doc['f']` cannot be read.
#[derive(Debug, Clone, PartialEq)]
pub struct LookupError {
    /// The exception type (`illegal_argument_exception`).
    pub kind: &'static str,
    /// Its reason.
    pub reason: String,
}

/// The host's doc values of the current document.
pub trait DocLookup {
    /// The values of `field` (sorted, as doc values are), or why the
    /// field cannot be read (unmapped, a `text` field).
    fn field(&self, name: &str) -> Result<Vec<DocValue>, LookupError>;
    /// Whether `field` is mapped (`doc.containsKey('f')`).
    fn contains(&self, name: &str) -> bool;
}

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
