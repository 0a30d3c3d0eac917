//! [`AsciiWords`]: the words of an ASCII text that hold a letter or a
//! digit, split exactly where UAX #29's word boundaries split them, without
//! the Unicode property tables (whose lookup per character was a twentieth
//! of indexing's CPU on log lines, which are ASCII nearly always).
//!
//! In ASCII the rules that can join characters holding a letter or a digit
//! are few. Letters (`ALetter`), digits (`Numeric`) and `_` (`ExtendNumLet`)
//! always join each other (WB5, WB8-10, WB13a-b). Between two letters,
//! `:` (`MidLetter`), `.` and `'` (`MidNumLet`, `Single_Quote`) join
//! (WB6-7); between two digits, `,` and `;` (`MidNum`), `.` and `'` join
//! (WB11-12). Every other character is its own segment or a run of
//! spaces, neither of which holds a letter or a digit. The test below
//! checks this against `unicode-segmentation` on random ASCII text.

/// The words (start and end byte offsets) of an ASCII text that hold a
/// letter or a digit, in order.
pub struct AsciiWords<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> AsciiWords<'a> {
    /// The words of `bytes`, which must be ASCII (other bytes split as
    /// punctuation would, not as UAX #29 splits them).
    pub fn new(bytes: &'a [u8]) -> AsciiWords<'a> {
        AsciiWords { bytes, at: 0 }
    }
}

/// A letter, a digit or `_`: the characters that always join each other.
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `mid` between `before` and `after` keeps them in one word.
fn joins(before: u8, mid: u8, after: u8) -> bool {
    let letters = before.is_ascii_alphabetic() && after.is_ascii_alphabetic();
    let digits = before.is_ascii_digit() && after.is_ascii_digit();
    match mid {
        b'.' | b'\'' => letters || digits,
        b':' => letters,
        b',' | b';' => digits,
        _ => false,
    }
}

impl Iterator for AsciiWords<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let bytes = self.bytes;
        loop {
            while self.at < bytes.len() && !is_word(bytes[self.at]) {
                self.at += 1;
            }
            if self.at == bytes.len() {
                return None;
            }
            let start = self.at;
            let mut alphanumeric = false;
            loop {
                while self.at < bytes.len() && is_word(bytes[self.at]) {
                    alphanumeric |= bytes[self.at] != b'_';
                    self.at += 1;
                }
                // A joining character needs a word character on both sides:
                // the one before is bytes[at - 1] (the run just read).
                match bytes.get(self.at..self.at + 2) {
                    Some(&[mid, after]) if joins(bytes[self.at - 1], mid, after) => {
                        self.at += 1;
                    }
                    _ => break,
                }
            }
            if alphanumeric {
                return Some((start, self.at));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    /// The words `unicode-segmentation` finds that hold a letter or digit.
    fn reference(text: &str) -> Vec<(usize, usize)> {
        text.split_word_bound_indices()
            .filter(|(_, w)| w.chars().any(char::is_alphanumeric))
            .map(|(at, w)| (at, at + w.len()))
            .collect()
    }

    fn words(text: &str) -> Vec<(usize, usize)> {
        AsciiWords::new(text.as_bytes()).collect()
    }

    #[test]
    fn the_joining_rules() {
        for text in [
            "a.b a:b a'b a,b a;b 1.2 1:2 1'2 1,2 1;2 a.1 1.a",
            "a..b a. .a _ __ a_ _1 a_.b 1_,2 x:y:z 1,2,3;4 10:05:03",
            "83.149.9.216 - - [17/May/2015:10:05:03 +0000] \"GET /a.png HTTP/1.1\"",
            "",
            "...",
        ] {
            assert_eq!(words(text), reference(text), "{text:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any ASCII text splits as UAX #29 splits it.
        #[test]
        fn any_ascii_text_splits_as_uax_29(text in "[\\x00-\\x7f]{0,40}") {
            prop_assert_eq!(words(&text), reference(&text));
        }

        /// Text dense in the joining characters, where the rules matter.
        #[test]
        fn joining_characters_split_as_uax_29(text in "[aZ09_.:',; \"\\-]{0,30}") {
            prop_assert_eq!(words(&text), reference(&text));
        }
    }
}
