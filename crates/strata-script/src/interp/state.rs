//! [`Interp`]: one execution's state (source, heap, variables, globals,
//! budgets) and [`Run`], its result type. A leaf below the evaluator
//! (`mod.rs`, `expr.rs`) and the operators (`ops.rs`) that work on it.

use crate::env::{DocLookup, Limits};
use crate::error::ScriptError;
use crate::value::{Heap, Value};

/// One execution's state.
pub struct Interp<'a> {
    pub source: &'a str,
    pub heap: Heap,
    /// Local variables, innermost last; `frames` marks where blocks begin.
    pub(super) vars: Vec<(String, Value)>,
    pub(super) frames: Vec<usize>,
    /// `params`, `ctx`, `_score`.
    pub globals: Vec<(&'static str, Value)>,
    pub doc: Option<&'a dyn DocLookup>,
    pub emitted: Option<Vec<Value>>,
    pub(super) statements: u64,
    pub(super) limits: Limits,
}

pub type Run<T> = Result<T, ScriptError>;
