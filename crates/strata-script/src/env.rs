//! What a script runs against: where it runs ([`Context`]), its budgets
//! ([`Limits`]) and the documents it may read ([`DocLookup`],
//! [`DocValue`], [`LookupError`]). A leaf below the resolver and the
//! interpreter.

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
    /// `moving_fn`: `params` and `values` (the window, a list of doubles).
    MovingFn,
}

impl Context {
    /// The names of the globals.
    pub fn globals(self) -> &'static [&'static str] {
        match self {
            Context::Update => &["ctx", "params"],
            Context::Field | Context::RuntimeField => &["doc", "params"],
            Context::Score => &["doc", "params", "_score"],
            Context::Bucket => &["params"],
            Context::MovingFn => &["params", "values"],
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
