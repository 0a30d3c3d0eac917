//! How an index splits `text` values into terms, at indexing and at query
//! time alike: what tantivy's tokenizer named `default` is in the index's
//! tokenizer manager, which every text path (indexing, `match`,
//! `query_string`, highlighting, `_analyze` on the index) asks for.
//!
//! Indices created since [`TextTokens::Standard`] split text as
//! Elasticsearch's `standard` analyzer does (`standard`); indices created
//! before keep the split their segments were written with
//! ([`TextTokens::Simple`]), recorded by `index.version.created`, so their
//! terms and their queries' terms stay the same.

mod ascii_words;
mod standard;

use tantivy::tokenizer::{
    LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer, TokenizerManager,
};

use standard::StandardTokenizer;

/// The tokenizer name text fields are indexed and queried under.
const TEXT_TOKENIZER: &str = "default";

/// The version ids `index.version.created` records (Elasticsearch's field
/// for what changes with the version that created an index).
const CREATED_SIMPLE: &str = "8521000";
const CREATED_STANDARD: &str = "8521100";

/// How an index's text values become terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextTokens {
    /// Runs of alphanumeric characters, lowercased, tokens of 40 bytes or
    /// more dropped (tantivy's default analyzer): indices created before
    /// the standard split.
    Simple,
    /// Elasticsearch's `standard` analyzer: Unicode word boundaries
    /// (UAX #29), so `83.149.9.216`, `foo.png`, `5.0` and `dog's` stay
    /// one term each; lowercased; words longer than 255 characters cut
    /// into pieces of 255.
    Standard,
}

impl TextTokens {
    /// The split of an index whose `index.version.created` is `created`
    /// (`None`: written before the field was read, hence simple).
    pub fn of_created(created: Option<&str>) -> TextTokens {
        match created {
            None | Some(CREATED_SIMPLE) => TextTokens::Simple,
            Some(_) => TextTokens::Standard,
        }
    }

    /// The `index.version.created` recording this split.
    pub fn created(self) -> &'static str {
        match self {
            TextTokens::Simple => CREATED_SIMPLE,
            TextTokens::Standard => CREATED_STANDARD,
        }
    }

    /// The analyzer: the tokenizer and its filters.
    pub fn analyzer(self) -> TextAnalyzer {
        match self {
            TextTokens::Simple => TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(RemoveLongFilter::limit(40))
                .filter(LowerCaser)
                .build(),
            TextTokens::Standard => TextAnalyzer::builder(StandardTokenizer::default())
                .filter(LowerCaser)
                .build(),
        }
    }

    /// Makes this split the text analyzer of `tokenizers` (an index's).
    pub fn register(self, tokenizers: &TokenizerManager) {
        tokenizers.register(TEXT_TOKENIZER, self.analyzer());
    }

    /// The tokens of `text`: byte offsets and the term.
    pub fn tokens(self, text: &str) -> Vec<(usize, usize, String)> {
        spans(&mut self.analyzer(), text)
    }
}

/// The tokens `analyzer` makes of `text`: byte offsets and the term.
pub fn spans(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(usize, usize, String)> {
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let t = stream.token();
        out.push((t.offset_from, t.offset_to, t.text.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(tokens: TextTokens, text: &str) -> Vec<String> {
        tokens.tokens(text).into_iter().map(|t| t.2).collect()
    }

    #[test]
    fn created_versions_round_trip() {
        for t in [TextTokens::Simple, TextTokens::Standard] {
            assert_eq!(TextTokens::of_created(Some(t.created())), t);
        }
        assert_eq!(TextTokens::of_created(None), TextTokens::Simple);
    }

    #[test]
    fn the_two_splits_differ_where_words_hold_punctuation() {
        let text = "GET /kibana-search.png from 83.149.9.216";
        assert_eq!(
            terms(TextTokens::Simple, text),
            ["get", "kibana", "search", "png", "from", "83", "149", "9", "216"]
        );
        assert_eq!(
            terms(TextTokens::Standard, text),
            ["get", "kibana", "search.png", "from", "83.149.9.216"]
        );
    }

    #[test]
    fn the_registered_analyzer_is_the_one_chosen() {
        let manager = TokenizerManager::default();
        TextTokens::Standard.register(&manager);
        let mut analyzer = manager.get(TEXT_TOKENIZER).unwrap();
        let got: Vec<String> = spans(&mut analyzer, "A.B c")
            .into_iter()
            .map(|t| t.2)
            .collect();
        assert_eq!(got, ["a.b", "c"]);
    }
}
