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
//! - `env`: what a script runs against ([`Context`], [`Limits`],
//!   [`DocLookup`]); `interp` (its state in `interp/state.rs`), `ops`,
//!   `methods`, `statics`: the interpreter; `script`: [`Script`], compiling
//!   and running one. Modules import only downward (`scripts/import-graph`).
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
//! `Collections.sort/reverse`, `emit(v)` in runtime fields, and in
//! `moving_fn` scripts `values` and `MovingFunctions.*` (not `holtWinters`).
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
mod env;
pub mod error;
mod interp;
pub mod lexer;
mod methods;
mod moving_functions;
mod ops;
pub mod parser;
pub mod resolve;
mod script;
pub mod spec;
mod statics;
pub mod update;
pub mod value;

pub use env::{Context, DocLookup, DocValue, Limits, LookupError};
pub use script::{Input, Output, Script};

pub use error::{Phase, ScriptError};
pub use spec::ScriptSpec;
pub use update::{apply_update_script, UpdateMeta, UpdateOp};
