//! [`FuzzyMatcher`]: terms within an edit distance of a value, as Lucene's
//! `FuzzyQuery` finds them: the first `prefix_length` characters must
//! match exactly, the rest within `distance` edits (a transposition counts
//! as one edit when `transpositions` is on), and each term weighs
//! `1 - edits / min(len(value), len(term))` (in characters), so closer
//! terms win the `max_expansions` places.

use std::sync::OnceLock;

use levenshtein_automata::{Distance, LevenshteinAutomatonBuilder, DFA, SINK_STATE};

use super::rewrite::TermMatcher;

/// Levenshtein automaton builders by (distance, transpositions); building
/// one is the costly part, so each is built once.
fn builder(distance: u8, transpositions: bool) -> &'static LevenshteinAutomatonBuilder {
    static BUILDERS: [[OnceLock<LevenshteinAutomatonBuilder>; 2]; 3] =
        [const { [const { OnceLock::new() }, const { OnceLock::new() }] }; 3];
    BUILDERS[distance as usize][usize::from(transpositions)]
        .get_or_init(|| LevenshteinAutomatonBuilder::new(distance, transpositions))
}

/// Where a match stands: in the literal prefix (the key's path and the
/// value's exact characters), or in the Levenshtein DFA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuzzyPos {
    /// This many literal bytes matched.
    Literal(usize),
    /// Past the literal bytes, at this DFA state.
    Edit(u32),
}

/// See the module docs.
pub struct FuzzyMatcher {
    /// The key's path prefix, then the value's exact prefix.
    literal: Box<[u8]>,
    /// Bytes of `literal` that are the key's path prefix.
    path_len: usize,
    dfa: DFA,
    /// Characters of the whole value.
    value_chars: usize,
}

impl std::fmt::Debug for FuzzyMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FuzzyMatcher")
            .field("literal", &String::from_utf8_lossy(&self.literal))
            .field("value_chars", &self.value_chars)
            .finish()
    }
}

impl FuzzyMatcher {
    /// Keys that are `path` then a value within `distance` (0-2) edits of
    /// `value` whose first `prefix_length` characters equal `value`'s.
    pub fn new(
        path: &[u8],
        value: &str,
        distance: u8,
        prefix_length: usize,
        transpositions: bool,
    ) -> FuzzyMatcher {
        let split = value
            .char_indices()
            .nth(prefix_length)
            .map_or(value.len(), |(i, _)| i);
        let (exact, rest) = value.split_at(split);
        let mut literal = path.to_vec();
        literal.extend_from_slice(exact.as_bytes());
        FuzzyMatcher {
            literal: literal.into(),
            path_len: path.len(),
            dfa: builder(distance.min(2), transpositions).build_dfa(rest),
            value_chars: value.chars().count(),
        }
    }

    /// Edits between the value and matched key `key`'s value.
    fn edits(&self, key: &[u8]) -> u8 {
        match self
            .dfa
            .eval(key.get(self.literal.len()..).unwrap_or_default())
        {
            Distance::Exact(d) | Distance::AtLeast(d) => d,
        }
    }
}

impl TermMatcher for FuzzyMatcher {
    type Pos = Option<FuzzyPos>;
    const UNIFORM: bool = false;

    fn boost(&self, key: &[u8]) -> f32 {
        let term_chars = String::from_utf8_lossy(&key[self.path_len.min(key.len())..])
            .chars()
            .count();
        let shorter = self.value_chars.min(term_chars).max(1);
        (1.0 - f32::from(self.edits(key)) / shorter as f32).max(0.0)
    }
}

impl tantivy_fst::Automaton for FuzzyMatcher {
    type State = Option<FuzzyPos>;

    fn start(&self) -> Option<FuzzyPos> {
        Some(if self.literal.is_empty() {
            FuzzyPos::Edit(self.dfa.initial_state())
        } else {
            FuzzyPos::Literal(0)
        })
    }

    fn is_match(&self, state: &Option<FuzzyPos>) -> bool {
        match *state {
            Some(FuzzyPos::Edit(s)) => matches!(self.dfa.distance(s), Distance::Exact(_)),
            _ => false,
        }
    }

    fn can_match(&self, state: &Option<FuzzyPos>) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Option<FuzzyPos>, byte: u8) -> Option<FuzzyPos> {
        match (*state)? {
            FuzzyPos::Literal(i) if self.literal[i] != byte => None,
            FuzzyPos::Literal(i) if i + 1 == self.literal.len() => {
                Some(FuzzyPos::Edit(self.dfa.initial_state()))
            }
            FuzzyPos::Literal(i) => Some(FuzzyPos::Literal(i + 1)),
            FuzzyPos::Edit(s) => {
                let next = self.dfa.transition(s, byte);
                (next != SINK_STATE).then_some(FuzzyPos::Edit(next))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy_fst::Automaton;

    fn matches(m: &FuzzyMatcher, key: &str) -> bool {
        let mut state = m.start();
        for &b in key.as_bytes() {
            state = m.accept(&state, b);
            if !m.can_match(&state) {
                return false;
            }
        }
        m.is_match(&state)
    }

    #[test]
    fn edits_prefix_and_transpositions() {
        let m = FuzzyMatcher::new(b"p:", "quick", 1, 0, true);
        assert!(matches(&m, "p:quick"));
        assert!(matches(&m, "p:quack"));
        assert!(matches(&m, "p:qiuck"), "a transposition is one edit");
        assert!(!matches(&m, "p:qak"));
        assert!(!matches(&m, "x:quick"));
        let no_swap = FuzzyMatcher::new(b"p:", "quick", 1, 0, false);
        assert!(!matches(&no_swap, "p:qiuck"));
        let prefixed = FuzzyMatcher::new(b"p:", "quick", 1, 2, true);
        assert!(matches(&prefixed, "p:quack"));
        assert!(
            !matches(&prefixed, "p:xuick"),
            "the prefix must match exactly"
        );
    }

    #[test]
    fn closer_terms_weigh_more() {
        let m = FuzzyMatcher::new(b"", "quick", 2, 0, true);
        assert_eq!(m.boost(b"quick"), 1.0);
        assert!((m.boost(b"quack") - 0.8).abs() < 1e-6);
        assert!((m.boost(b"quac") - 0.5).abs() < 1e-6);
    }
}
