//! [`ScriptError`]: a script that does not compile or fails while running,
//! with what Elasticsearch's `script_exception` carries: the script, its
//! language, the `position` of the failing part, a `script_stack`
//! excerpt pointing at it, and the `caused_by` exception.

use serde_json::{json, Value};

/// Whether a script failed to compile or while running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Lexing, parsing or resolving names (`reason: "compile error"`).
    Compile,
    /// Running (`reason: "runtime error"`).
    Runtime,
}

/// A failed script.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptError {
    /// When it failed.
    pub phase: Phase,
    /// The script's source.
    pub script: String,
    /// Byte offsets of the failing part of the source.
    pub start: usize,
    /// Just past the failing part.
    pub end: usize,
    /// The `caused_by` type, in Elasticsearch's words
    /// (`illegal_argument_exception`, `null_pointer_exception`, ...).
    pub cause_type: &'static str,
    /// The `caused_by` reason.
    pub cause_reason: String,
}

impl ScriptError {
    /// A compile error at `start..end` of `script`.
    pub fn compile(
        script: &str,
        start: usize,
        end: usize,
        cause_type: &'static str,
        reason: &str,
    ) -> ScriptError {
        ScriptError {
            phase: Phase::Compile,
            script: script.to_string(),
            start,
            end,
            cause_type,
            cause_reason: reason.to_string(),
        }
    }

    /// The top-level `reason`.
    pub fn reason(&self) -> &'static str {
        match self.phase {
            Phase::Compile => "compile error",
            Phase::Runtime => "runtime error",
        }
    }

    /// Elasticsearch's excerpt: up to 25 characters either side of the
    /// failing offset, and a line with `^---- HERE` under it.
    pub fn script_stack(&self) -> Vec<String> {
        let chars: Vec<(usize, char)> = self.script.char_indices().collect();
        let at = chars
            .iter()
            .position(|(b, _)| *b >= self.start)
            .unwrap_or(chars.len());
        let from = at.saturating_sub(25);
        let to = (at + 25).min(chars.len());
        let mut line = String::new();
        if from > 0 {
            line.push_str("... ");
        }
        let pointer_col = line.chars().count() + (at - from);
        line.extend(
            chars[from..to]
                .iter()
                .map(|(_, c)| if *c == '\n' { ' ' } else { *c }),
        );
        if to < chars.len() {
            line.push_str(" ...");
        }
        vec![line, format!("{}^---- HERE", " ".repeat(pointer_col))]
    }

    /// The extra keys of the `script_exception` object beyond `type` and
    /// `reason`: `script_stack`, `script`, `lang`, `position`, `caused_by`.
    pub fn details(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("script_stack", json!(self.script_stack())),
            ("script", json!(self.script)),
            ("lang", json!("painless")),
            (
                "position",
                json!({"offset": self.start, "start": self.start, "end": self.end.max(self.start)}),
            ),
            (
                "caused_by",
                json!({"type": self.cause_type, "reason": self.cause_reason}),
            ),
        ]
    }
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.reason())
    }
}

impl std::error::Error for ScriptError {}
