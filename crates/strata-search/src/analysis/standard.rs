//! [`StandardTokenizer`]: Elasticsearch's (Lucene's) `standard` tokenizer,
//! which splits text at Unicode word boundaries (UAX #29) and keeps the
//! words that hold a letter or a digit: `The 2 QUICK Brown-Foxes jumped
//! over the lazy dog's bone.` gives `The`, `2`, `QUICK`, `Brown`, `Foxes`,
//! `jumped`, `over`, `the`, `lazy`, `dog's`, `bone`. Numbers with dots or
//! commas (`83.149.9.216`, `1,000.5`), words joined by `.` or `'`
//! (`example.com`, `dog's`) and by `_` (`foo_bar`) are one token; each Han
//! ideograph is its own token. A word longer than 255 characters is cut
//! into pieces of 255, as Lucene's `maxTokenLength` does. Emoji, which
//! Lucene also emits, are dropped (they hold no letter or digit). ASCII
//! text, nearly all of it in logs, is split by [`AsciiWords`] without the
//! Unicode tables, at the same boundaries.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use unicode_segmentation::{UWordBoundIndices, UnicodeSegmentation};

use super::ascii_words::AsciiWords;

/// Characters in a token at most; longer words are cut (Lucene's default).
const MAX_TOKEN_CHARS: usize = 255;

/// The `standard` tokenizer (see the module).
#[derive(Clone, Default)]
pub struct StandardTokenizer {
    token: Token,
}

/// The tokens of one text.
pub struct StandardTokenStream<'a> {
    text: &'a str,
    words: Words<'a>,
    /// The rest of a word longer than [`MAX_TOKEN_CHARS`]: its offset.
    long_rest: Option<usize>,
    /// Where the word being cut ends.
    long_end: usize,
    token: &'a mut Token,
}

/// Where the words of a text come from: the ASCII split or UAX #29's.
enum Words<'a> {
    Ascii(AsciiWords<'a>),
    Unicode(UWordBoundIndices<'a>),
}

impl Words<'_> {
    /// The next word holding a letter or a digit: its start and end.
    fn next_alphanumeric(&mut self) -> Option<(usize, usize)> {
        match self {
            Words::Ascii(words) => words.next(),
            Words::Unicode(words) => words
                .find(|(_, word)| word.chars().any(char::is_alphanumeric))
                .map(|(at, word)| (at, at + word.len())),
        }
    }
}

impl Tokenizer for StandardTokenizer {
    type TokenStream<'a> = StandardTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> StandardTokenStream<'a> {
        self.token.reset();
        StandardTokenStream {
            text,
            words: if text.is_ascii() {
                Words::Ascii(AsciiWords::new(text.as_bytes()))
            } else {
                Words::Unicode(text.split_word_bound_indices())
            },
            long_rest: None,
            long_end: 0,
            token: &mut self.token,
        }
    }
}

impl StandardTokenStream<'_> {
    /// Emits `text[from..]` up to [`MAX_TOKEN_CHARS`] characters of the
    /// word ending at `end`, keeping the rest for the next call.
    fn emit(&mut self, from: usize, end: usize) {
        // A word of at most MAX_TOKEN_CHARS bytes has no more characters
        // than that: most words skip the count.
        let cut = if end - from <= MAX_TOKEN_CHARS {
            end
        } else {
            self.text[from..end]
                .char_indices()
                .nth(MAX_TOKEN_CHARS)
                .map_or(end, |(at, _)| from + at)
        };
        self.long_rest = (cut < end).then_some(cut);
        self.long_end = end;
        self.token.offset_from = from;
        self.token.offset_to = cut;
        self.token.text.clear();
        self.token.text.push_str(&self.text[from..cut]);
        self.token.position = self.token.position.wrapping_add(1);
    }
}

impl TokenStream for StandardTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if let Some(from) = self.long_rest {
            self.emit(from, self.long_end);
            return true;
        }
        match self.words.next_alphanumeric() {
            Some((from, end)) => {
                self.emit(from, end);
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (term, start, end, position) of each token.
    fn tokens(text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut tokenizer = StandardTokenizer::default();
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
        }
        out
    }

    fn terms(text: &str) -> Vec<String> {
        tokens(text).into_iter().map(|t| t.0).collect()
    }

    #[test]
    fn elasticsearchs_documented_example() {
        // The `standard` tokenizer's page in Elasticsearch's reference.
        assert_eq!(
            terms("The 2 QUICK Brown-Foxes jumped over the lazy dog's bone."),
            [
                "The", "2", "QUICK", "Brown", "Foxes", "jumped", "over", "the", "lazy", "dog's",
                "bone"
            ]
        );
    }

    #[test]
    fn an_access_log_line() {
        let line = r#"83.149.9.216 - - [17/May/2015:10:05:03 +0000] "GET /presentations/logstash-monitorama-2013/images/kibana-search.png HTTP/1.1" 200 203023 "http://semicomplete.com/" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) Chrome/32.0.1700.77""#;
        assert_eq!(
            terms(line),
            [
                "83.149.9.216",
                "17",
                "May",
                "2015",
                "10",
                "05",
                "03",
                "0000",
                "GET",
                "presentations",
                "logstash",
                "monitorama",
                "2013",
                "images",
                "kibana",
                "search.png",
                "HTTP",
                "1.1",
                "200",
                "203023",
                "http",
                "semicomplete.com",
                "Mozilla",
                "5.0",
                "Macintosh",
                "Intel",
                "Mac",
                "OS",
                "X",
                "10_9_1",
                "Chrome",
                "32.0.1700.77"
            ]
        );
    }

    #[test]
    fn offsets_and_positions_count_tokens_only() {
        assert_eq!(
            tokens("  a, b.c ¿d?"),
            [
                ("a".into(), 2, 3, 0),
                ("b.c".into(), 5, 8, 1),
                ("d".into(), 11, 12, 2)
            ]
        );
        assert!(tokens("").is_empty());
        assert!(tokens(" ... --- ___ ").is_empty());
    }

    #[test]
    fn ideographs_are_tokens_of_their_own() {
        assert_eq!(terms("东京 Tokyo"), ["东", "京", "Tokyo"]);
    }

    #[test]
    fn words_over_255_characters_are_cut() {
        let word = "é".repeat(600);
        let got = tokens(&format!("x {word} y"));
        let lengths: Vec<usize> = got.iter().map(|t| t.0.chars().count()).collect();
        assert_eq!(lengths, [1, 255, 255, 90, 1]);
        let positions: Vec<usize> = got.iter().map(|t| t.3).collect();
        assert_eq!(positions, [0, 1, 2, 3, 4]);
        // The pieces tile the word.
        assert_eq!((got[1].1, got[3].2), (2, 2 + word.len()));
        assert_eq!(got[1].2, got[2].1);
    }

    #[test]
    fn ascii_words_over_255_characters_are_cut_too() {
        let word = "ab.".repeat(200) + "c";
        let got = tokens(&format!("x {word} y"));
        let lengths: Vec<usize> = got.iter().map(|t| t.0.len()).collect();
        assert_eq!(lengths, [1, 255, 255, 91, 1]);
        assert_eq!(got[3].2, 2 + word.len());
    }
}
