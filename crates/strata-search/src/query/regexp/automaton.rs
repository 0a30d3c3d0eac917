//! [`TermAutomaton`]: a whole-term matcher for the term dictionary, built
//! with `regex-automata`'s dense DFA under a state budget, as Lucene
//! determinizes a regexp under `max_determinized_states`.
//!
//! A JSON field's term keys start with the field's path and type: the
//! automaton matches those prefix bytes literally, then runs the DFA over
//! the value, which must match it whole (never a part of a term).

use std::collections::HashSet;

use regex_automata::dfa::{dense, Automaton as _, StartKind};
use regex_automata::nfa::thompson;
use regex_automata::util::primitives::StateID;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};

use crate::breaker::MemoryAccount;
use crate::error::{Result, SearchError};

/// Worst-case bytes of one DFA state's transitions (a stride of 512 with
/// 4-byte state ids): the builder's size limit, so a hostile pattern is
/// refused before it takes more memory than its state budget allows.
const STATE_BYTES: usize = 512 * 4;

/// Where a match stands: in the key's literal prefix, or in the DFA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pos {
    /// This many prefix bytes matched.
    Prefix(usize),
    /// Past the prefix, at this DFA state.
    Value(StateID),
}

/// See the module docs.
#[derive(Debug)]
pub struct TermAutomaton {
    prefix: Box<[u8]>,
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
}

impl TermAutomaton {
    /// Matches keys that are `prefix` followed by a value matching
    /// `pattern` (`regex-syntax`, Unicode) whole. Refuses patterns whose
    /// DFA has more than `max_states` states.
    /// The DFA's memory is reserved on `memory`; a DFA the breakers have
    /// no room for is refused with their error.
    pub fn new(
        prefix: &[u8],
        pattern: &str,
        case_insensitive: bool,
        max_states: usize,
        kind: &str,
        memory: &MemoryAccount,
    ) -> Result<TermAutomaton> {
        let by_states = max_states.saturating_add(2).saturating_mul(STATE_BYTES);
        let room = usize::try_from(memory.room()).unwrap_or(usize::MAX);
        let limit = by_states.min(room);
        let too_complex = || {
            if limit < by_states {
                return memory.refusal(by_states as u64, &format!("<{kind} automaton>"));
            }
            SearchError::illegal(format!(
                "[{kind}] determinizing [{pattern}] would result in more than {max_states} states; \
                 set [max_determinized_states] higher to allow it"
            ))
        };
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .start_kind(StartKind::Anchored)
                    // Any alternative that matches the whole value counts,
                    // not only the leftmost-first one.
                    .match_kind(MatchKind::All)
                    .dfa_size_limit(Some(limit))
                    .determinize_size_limit(Some(limit)),
            )
            // Counted repetitions multiply (`((a{100}){100}){100}` is a
            // million NFA states): the NFA is held to the same budget.
            .thompson(thompson::Config::new().nfa_size_limit(Some(limit)))
            .syntax(
                syntax::Config::new()
                    .case_insensitive(case_insensitive)
                    .dot_matches_new_line(true),
            )
            .build(pattern)
            .map_err(|e| {
                let nfa_too_large = std::error::Error::source(&e)
                    .and_then(|s| s.downcast_ref::<thompson::BuildError>())
                    .is_some_and(|s| s.size_limit().is_some());
                if e.is_size_limit_exceeded() || nfa_too_large {
                    too_complex()
                } else {
                    SearchError::parsing(format!("[{kind}] invalid pattern [{pattern}]: {e}"))
                }
            })?;
        let start = dfa
            .start_state_forward(&Input::new("").anchored(Anchored::Yes))
            .map_err(|e| SearchError::parsing(format!("[{kind}] invalid pattern: {e}")))?;
        memory.reserve(dfa.memory_usage() as u64, &format!("<{kind} automaton>"))?;
        let automaton = TermAutomaton {
            prefix: prefix.into(),
            dfa,
            start,
        };
        if automaton.states() > max_states {
            return Err(too_complex());
        }
        Ok(automaton)
    }

    /// States reachable from the start (the dead state included).
    fn states(&self) -> usize {
        let classes = self.dfa.byte_classes();
        let mut seen = HashSet::from([self.start]);
        let mut todo = vec![self.start];
        while let Some(s) = todo.pop() {
            for class in classes.representatives(..) {
                let Some(byte) = class.as_u8() else { continue };
                let next = self.dfa.next_state(s, byte);
                if seen.insert(next) {
                    todo.push(next);
                }
            }
        }
        seen.len()
    }

    fn is_dead(&self, s: StateID) -> bool {
        self.dfa.is_dead_state(s) || self.dfa.is_quit_state(s)
    }
}

impl super::rewrite::TermMatcher for TermAutomaton {
    type Pos = Option<Pos>;
    const UNIFORM: bool = true;

    fn boost(&self, _key: &[u8]) -> f32 {
        1.0
    }
}

impl tantivy_fst::Automaton for TermAutomaton {
    type State = Option<Pos>;

    fn start(&self) -> Option<Pos> {
        Some(if self.prefix.is_empty() {
            Pos::Value(self.start)
        } else {
            Pos::Prefix(0)
        })
    }

    fn is_match(&self, state: &Option<Pos>) -> bool {
        match *state {
            Some(Pos::Value(s)) => self.dfa.is_match_state(self.dfa.next_eoi_state(s)),
            _ => false,
        }
    }

    fn can_match(&self, state: &Option<Pos>) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Option<Pos>, byte: u8) -> Option<Pos> {
        match (*state)? {
            Pos::Prefix(i) if self.prefix[i] != byte => None,
            Pos::Prefix(i) if i + 1 == self.prefix.len() => Some(Pos::Value(self.start)),
            Pos::Prefix(i) => Some(Pos::Prefix(i + 1)),
            Pos::Value(s) => {
                let next = self.dfa.next_state(s, byte);
                (!self.is_dead(next)).then_some(Pos::Value(next))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl TermAutomaton {
        /// Whether `key` matches whole.
        fn matches(&self, key: &[u8]) -> bool {
            use tantivy_fst::Automaton;
            let mut state = self.start();
            for &b in key {
                state = self.accept(&state, b);
                if !self.can_match(&state) {
                    return false;
                }
            }
            self.is_match(&state)
        }
    }

    fn auto(pattern: &str) -> TermAutomaton {
        TermAutomaton::new(
            b"f\x00s",
            pattern,
            false,
            10_000,
            "regexp",
            &MemoryAccount::unaccounted(),
        )
        .unwrap()
    }

    #[test]
    fn matches_whole_values_after_the_prefix() {
        let a = auto("ab+c");
        assert!(a.matches(b"f\x00sabbc"));
        assert!(!a.matches(b"f\x00sabbcd"), "a part of a term never matches");
        assert!(!a.matches(b"g\x00sabc"), "another field's prefix");
        assert!(!a.matches(b"abc"));
    }

    #[test]
    fn any_alternative_matching_the_whole_value_counts() {
        let a = auto("a|ab");
        assert!(a.matches(b"f\x00sab"));
        assert!(a.matches(b"f\x00sa"));
    }

    #[test]
    fn unicode_and_case_folding() {
        let a = auto("caf.");
        assert!(a.matches("f\x00scafé".as_bytes()));
        let ci = TermAutomaton::new(
            b"",
            "straße",
            true,
            10_000,
            "regexp",
            &MemoryAccount::unaccounted(),
        )
        .unwrap();
        assert!(ci.matches("STRAßE".as_bytes()));
    }

    #[test]
    fn the_state_budget_is_enforced() {
        // `[ab]{n}` needs about n states.
        assert!(TermAutomaton::new(
            b"",
            "[ab]{40}",
            false,
            100,
            "regexp",
            &MemoryAccount::unaccounted()
        )
        .is_ok());
        let err = TermAutomaton::new(
            b"",
            "[ab]{400}",
            false,
            100,
            "regexp",
            &MemoryAccount::unaccounted(),
        )
        .unwrap_err();
        assert_eq!(err.status(), 400);
        assert!(err.to_string().contains("100 states"), "{err}");
        // A blow-up pattern (the n-th last symbol) is refused, not built.
        let err = TermAutomaton::new(
            b"",
            "[ab]*a[ab]{20}",
            false,
            10_000,
            "regexp",
            &MemoryAccount::unaccounted(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("max_determinized_states"), "{err}");
    }
}
