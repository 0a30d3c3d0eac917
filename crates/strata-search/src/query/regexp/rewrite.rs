//! [`Rewrite`]: how a multi-term query (`regexp`, `wildcard`, `prefix`)
//! scores, Elasticsearch's `rewrite` parameter; and [`MultiTermQuery`],
//! which runs a [`TermAutomaton`] with it.
//!
//! The constant-score rewrites match every document with one score (the
//! query's boost). The scoring ones expand the automaton to the terms it
//! matches in the shard and score them as a `bool` of `should` term
//! queries, as Lucene rewrites them: `scoring_boolean` takes every term
//! (at most [`MAX_CLAUSES`], beyond which the query fails as Lucene's does),
//! `top_terms_N` the first N in term order (all terms of a pattern weigh
//! the same, so Lucene's top N are the N smallest), `top_terms_boost_N`
//! scores each matched term 1 instead of BM25, and
//! `top_terms_blended_freqs_N` gives every term the IDF of the most
//! frequent one, so rarity does not favour misspellings.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use tantivy::query::{
    AutomatonWeight, BooleanQuery, BoostQuery, ConstScoreQuery, EnableScoring, Occur, Query,
    TermQuery, Weight,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, TantivyError, Term};

use crate::query::term_options::Rewrite;

/// Most terms a `scoring_boolean` rewrite expands to (Elasticsearch's
/// `indices.query.bool.max_clause_count` floor).
pub const MAX_CLAUSES: usize = 4096;

/// What a [`MultiTermQuery`] matches terms with: an automaton over the
/// term dictionary's keys, and the weight of each matched key among the
/// others (Lucene's term boost).
pub trait TermMatcher:
    tantivy_fst::Automaton<State = Self::Pos> + fmt::Debug + Send + Sync + 'static
{
    /// The automaton's state.
    type Pos: Clone;
    /// Every match weighs 1, so the top N terms are the first N in term
    /// order (patterns); otherwise [`boost`](Self::boost) ranks them.
    const UNIFORM: bool;
    /// The weight of matched key `key` (1 for patterns; closer is higher
    /// for fuzzy terms).
    fn boost(&self, key: &[u8]) -> f32;
}

/// A term matcher over one field with a rewrite (see the module docs).
#[derive(Debug)]
pub struct MultiTermQuery<A> {
    field: Field,
    /// The key prefix of the JSON path, which bounds the term scan.
    path: Arc<[u8]>,
    matcher: Arc<A>,
    rewrite: Rewrite,
}

impl<A> Clone for MultiTermQuery<A> {
    fn clone(&self) -> Self {
        MultiTermQuery {
            field: self.field,
            path: Arc::clone(&self.path),
            matcher: Arc::clone(&self.matcher),
            rewrite: self.rewrite,
        }
    }
}

impl<A: TermMatcher> MultiTermQuery<A> {
    /// Terms of `field` under `path` matching `matcher`, scored by
    /// `rewrite`.
    pub fn new(field: Field, path: &[u8], matcher: A, rewrite: Rewrite) -> Self {
        MultiTermQuery {
            field,
            path: path.into(),
            matcher: Arc::new(matcher),
            rewrite,
        }
    }

    /// The distinct matching terms over the searcher's segments with their
    /// boosts: the best `limit` by boost, then in term order (`None` when
    /// there are more and the rewrite must take them all).
    fn expand(
        &self,
        searcher: &Searcher,
        limit: usize,
    ) -> tantivy::Result<Option<Vec<(Term, f32)>>> {
        let take_all = self.rewrite == Rewrite::ScoringBoolean;
        let mut keys: BTreeMap<Vec<u8>, f32> = BTreeMap::new();
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(self.field)?;
            let mut stream = inverted
                .terms()
                .search(&*self.matcher)
                .ge(&*self.path)
                .into_stream()?;
            while stream.advance() {
                let key = stream.key();
                if keys.contains_key(key) {
                    continue;
                }
                keys.insert(key.to_vec(), self.matcher.boost(key));
                if keys.len() > limit && take_all {
                    return Ok(None);
                }
                if A::UNIFORM && keys.len() > limit {
                    // Terms come in order per segment: the rest sort later.
                    keys.pop_last();
                    break;
                }
                if keys.len() >= 2 * limit.max(1) {
                    keys = best(keys, limit);
                }
            }
        }
        let keys = best(keys, limit);
        Ok(Some(
            keys.into_iter()
                .map(|(k, boost)| (Term::from_field_bytes(self.field, &k), boost))
                .collect(),
        ))
    }

    fn scored(&self, searcher: &Searcher) -> tantivy::Result<Box<dyn Query>> {
        let limit = match self.rewrite {
            Rewrite::ConstantScore | Rewrite::ScoringBoolean => MAX_CLAUSES,
            Rewrite::TopTerms(n) | Rewrite::TopTermsBoost(n) | Rewrite::TopTermsBlendedFreqs(n) => {
                n.min(MAX_CLAUSES)
            }
        };
        let terms = self.expand(searcher, limit)?.ok_or_else(|| {
            TantivyError::InvalidArgument(format!(
                "too_many_clauses: maxClauseCount is set to {MAX_CLAUSES}"
            ))
        })?;
        let idf = |df: u64| {
            let n = searcher.num_docs() as f32;
            let df = df as f32;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        };
        let max_df = match self.rewrite {
            Rewrite::TopTermsBlendedFreqs(_) => terms
                .iter()
                .map(|(t, _)| searcher.doc_freq(t))
                .try_fold(0, |m, df| df.map(|df| m.max(df)))?,
            _ => 0,
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::with_capacity(terms.len());
        for (term, boost) in terms {
            let q: Box<dyn Query> =
                Box::new(TermQuery::new(term.clone(), IndexRecordOption::WithFreqs));
            let (q, boost): (Box<dyn Query>, f32) = match self.rewrite {
                Rewrite::TopTermsBoost(_) => (Box::new(ConstScoreQuery::new(q, 1.0)), boost),
                Rewrite::TopTermsBlendedFreqs(_) => {
                    // BM25 is idf x tf-norm: rescale to the shared idf.
                    let own = idf(searcher.doc_freq(&term)?);
                    let factor = if own > 0.0 { idf(max_df) / own } else { 1.0 };
                    (q, boost * factor)
                }
                _ => (q, boost),
            };
            let q: Box<dyn Query> = if boost == 1.0 {
                q
            } else {
                Box::new(BoostQuery::new(q, boost))
            };
            clauses.push((Occur::Should, q));
        }
        Ok(Box::new(BooleanQuery::new(clauses)))
    }
}

/// The `limit` best keys: highest boost first, then term order.
fn best(keys: BTreeMap<Vec<u8>, f32>, limit: usize) -> BTreeMap<Vec<u8>, f32> {
    if keys.len() <= limit {
        return keys;
    }
    let mut ranked: Vec<_> = keys.into_iter().collect();
    ranked.sort_by(|(ka, ba), (kb, bb)| bb.total_cmp(ba).then_with(|| ka.cmp(kb)));
    ranked.truncate(limit);
    ranked.into_iter().collect()
}

impl<A: TermMatcher> Query for MultiTermQuery<A> {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        // `top_terms_*` match only their N terms, scored or not (a hit
        // count runs unscored); `scoring_boolean` without scores matches
        // what the constant rewrite does. Without a searcher (scoring off
        // from the schema alone) there are no terms to pick from.
        let expand = match self.rewrite {
            Rewrite::ConstantScore => false,
            Rewrite::ScoringBoolean => enable_scoring.is_scoring_enabled(),
            _ => true,
        };
        match enable_scoring.searcher() {
            Some(searcher) if expand => self.scored(searcher)?.weight(enable_scoring),
            _ => Ok(Box::new(AutomatonWeight::<A>::new_for_json_path(
                self.field,
                Arc::clone(&self.matcher),
                &self.path,
            ))),
        }
    }
}
