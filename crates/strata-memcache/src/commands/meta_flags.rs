//! The flag parser shared by the meta commands (`mg`, `ms`, `md`, `ma`).
//!
//! memcached 1.6 runs one pre-parse over every meta command's flags: a flag
//! is the first byte of a word, optionally followed by a token. Flags known
//! to the pre-parse are accepted by every meta command (and ignored where
//! meaningless); unknown or repeated flags are refused before anything is
//! done. `md` and `ma` report every pre-parse failure with one message.

use std::borrow::Cow;

use crate::base64;
use crate::codec::{Tokens, MAX_WORDS};
use crate::numbers::{strtol32, strtoul32, strtoull};
use crate::reply::Error;

/// memcached refuses meta lines with more tokens than this (words plus the
/// terminal token).
const MAX_META_TOKENS: usize = 20;
/// Longest opaque word, the `O` included.
const MAX_OPAQUE: usize = 32;

/// Which meta command is being parsed (error texts and flags differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaKind {
    /// `mg`
    Get,
    /// `ms`
    Set,
    /// `md`
    Delete,
    /// `ma`
    Arithmetic,
}

/// The parsed flags of one meta command, plus its (decoded) key.
#[derive(Debug, Clone)]
pub struct MetaFlags<'a> {
    /// The key, base64-decoded when `b` was given.
    pub key: Cow<'a, [u8]>,
    words: [&'a [u8]; MAX_WORDS],
    len: usize,
    /// `b`: the key is base64; returned keys are encoded too.
    pub base64: bool,
    /// `q`: hide the "nothing to report" reply.
    pub quiet: bool,
    /// `v`: return the value.
    pub value: bool,
    /// `u`: do not bump the item in the LRU.
    pub no_bump: bool,
    /// `I`: invalidate (mark stale).
    pub invalidate: bool,
    /// `x` (`md`): empty the value, keep the item.
    pub remove_value: bool,
    /// `N<ttl>`: create on miss with this expiration time.
    pub vivify: Option<i32>,
    /// `R<ttl>`: win the recache token if less TTL than this remains.
    pub recache: Option<i32>,
    /// `T<ttl>`: new expiration time.
    pub ttl: Option<i32>,
    /// `F<flags>`: client flags to store.
    pub client_flags: Option<u32>,
    /// `C<cas>`: compare-and-swap value.
    pub compare_cas: Option<u64>,
    /// `M<mode>`: mode switch.
    pub mode: Option<u8>,
    /// `J<n>`: initial value for `ma` auto-creation.
    pub initial: Option<u64>,
    /// `D<n>`: delta for `ma`.
    pub delta: Option<u64>,
}

impl<'a> MetaFlags<'a> {
    /// Parses the flags from word `first` on, for the key at word 1.
    /// Checks the key length and flag count first, as memcached does.
    pub fn parse(tokens: &Tokens<'a>, first: usize, kind: MetaKind) -> Result<Self, Error> {
        let raw_key = tokens.get(1);
        if !crate::syntax::valid_key(raw_key) {
            return Err(Error::BadFormat);
        }
        if tokens.ntokens() > MAX_META_TOKENS {
            return Err(if kind == MetaKind::Get {
                Error::TooManyGetFlags
            } else {
                Error::TooManyFlags
            });
        }
        let mut flags = MetaFlags {
            key: Cow::Borrowed(raw_key),
            words: [&[]; MAX_WORDS],
            len: 0,
            base64: false,
            quiet: false,
            value: false,
            no_bump: false,
            invalidate: false,
            remove_value: false,
            vivify: None,
            recache: None,
            ttl: None,
            client_flags: None,
            compare_cas: None,
            mode: None,
            initial: None,
            delta: None,
        };
        flags
            .preparse(tokens, first, kind)
            .map_err(|e| match kind {
                MetaKind::Delete | MetaKind::Arithmetic => Error::InvalidOrDuplicateFlag,
                MetaKind::Get | MetaKind::Set => e,
            })?;
        if flags.words().any(|w| w[0] == b'O' && w.len() > MAX_OPAQUE) {
            return Err(Error::OpaqueTooLong);
        }
        Ok(flags)
    }

    fn preparse(&mut self, tokens: &Tokens<'a>, first: usize, kind: MetaKind) -> Result<(), Error> {
        let mut seen = [false; 128];
        // Token errors are remembered and reported after the whole line was
        // checked for unknown flags (the last one wins, as in memcached).
        let mut failed = false;
        let mut last_error: Option<Error> = None;
        let mut fail = |e: Option<Error>| {
            failed = true;
            if e.is_some() {
                last_error = e;
            }
        };
        for &word in &tokens.as_slice()[first.min(tokens.len())..] {
            let flag = word[0];
            if flag >= 127 || seen[flag as usize] {
                return Err(Error::DuplicateFlag);
            }
            seen[flag as usize] = true;
            self.words[self.len] = word;
            self.len += 1;
            let token = &word[1..];
            match flag {
                b'b' => {
                    self.base64 = true;
                    match base64::decode(&self.key) {
                        Some(k) => self.key = Cow::Owned(k),
                        None => fail(Some(Error::KeyDecode)),
                    }
                }
                b'N' => match strtol32(token) {
                    Some(t) => self.vivify = Some(t),
                    None => fail(Some(Error::BadToken)),
                },
                b'T' => match strtol32(token) {
                    Some(t) => self.ttl = Some(t),
                    None => fail(Some(Error::BadToken)),
                },
                b'R' => match strtol32(token) {
                    Some(t) => self.recache = Some(t),
                    None => fail(Some(Error::BadToken)),
                },
                b'F' => match strtoul32(token) {
                    Some(f) => self.client_flags = Some(f),
                    None => fail(None),
                },
                b'C' => match strtoull(token) {
                    Some(c) => self.compare_cas = Some(c),
                    None => fail(Some(Error::BadToken)),
                },
                b'M' => {
                    if word.len() == 2 {
                        self.mode = Some(word[1]);
                    } else {
                        fail(Some(Error::ModeLength));
                    }
                }
                b'J' => match strtoull(token) {
                    Some(j) => self.initial = Some(j),
                    None => fail(Some(Error::InitialValue)),
                },
                b'D' => match strtoull(token) {
                    Some(d) => self.delta = Some(d),
                    None => fail(Some(Error::DeltaValue)),
                },
                b'q' => self.quiet = true,
                b'v' => self.value = true,
                b'u' => self.no_bump = true,
                b'I' => self.invalidate = true,
                b'x' if kind == MetaKind::Delete => self.remove_value = true,
                b'l' | b'h' | b'O' | b'P' | b'L' | b'k' | b's' | b't' | b'c' | b'f' => {}
                _ => return Err(Error::InvalidFlag),
            }
        }
        if failed {
            return Err(last_error.unwrap_or(Error::BadFormat));
        }
        Ok(())
    }

    /// The flag words in request order (for building the reply).
    pub fn words(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.words[..self.len].iter().copied()
    }

    /// Appends ` O<opaque>` and ` k<key>` (and ` b` after a base64 key) for
    /// the flags that ask for them, in request order: the flags every meta
    /// reply echoes, hit or miss.
    pub fn put_opaque_and_key(&self, word: &[u8], out: &mut Vec<u8>) {
        match word[0] {
            b'O' => {
                out.push(b' ');
                out.extend_from_slice(word);
            }
            b'k' => self.put_key(out),
            _ => {}
        }
    }

    /// Appends ` k<key>`, base64-encoded with a trailing ` b` when the key
    /// was given in base64.
    pub fn put_key(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b" k");
        if self.base64 {
            base64::encode_into(&self.key, out);
            out.extend_from_slice(b" b");
        } else {
            out.extend_from_slice(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str, kind: MetaKind) -> Result<MetaFlags<'_>, Error> {
        let tokens = Tokens::split(line.as_bytes());
        let first = if kind == MetaKind::Set { 3 } else { 2 };
        MetaFlags::parse(&tokens, first, kind).map(|f| MetaFlags {
            // Detach from the local tokens for the test's convenience.
            key: Cow::Owned(f.key.into_owned()),
            ..f
        })
    }

    #[test]
    fn accepts_known_flags_with_tokens() {
        let f = parse("mg k v q u T30 N-1 R5 F7 C9 MS J1 D2 I O123", MetaKind::Get).unwrap();
        assert!(f.value && f.quiet && f.no_bump && f.invalidate);
        assert_eq!(f.ttl, Some(30));
        assert_eq!(f.vivify, Some(-1));
        assert_eq!(f.recache, Some(5));
        assert_eq!(f.client_flags, Some(7));
        assert_eq!(f.compare_cas, Some(9));
        assert_eq!(f.mode, Some(b'S'));
        assert_eq!(f.initial, Some(1));
        assert_eq!(f.delta, Some(2));
        assert_eq!(f.words().count(), 13);
        assert!(parse("mg k P L k s t c f h l", MetaKind::Get).is_ok());
    }

    #[test]
    fn refusals_match_memcached_texts() {
        use MetaKind::*;
        assert_eq!(parse("mg k zz", Get).unwrap_err(), Error::InvalidFlag);
        assert_eq!(parse("mg k E5", Get).unwrap_err(), Error::InvalidFlag);
        assert_eq!(parse("mg k v v", Get).unwrap_err(), Error::DuplicateFlag);
        assert_eq!(parse("mg k \u{e9}", Get).unwrap_err(), Error::DuplicateFlag);
        assert_eq!(parse("mg k Tabc", Get).unwrap_err(), Error::BadToken);
        assert_eq!(parse("mg k Fx", Get).unwrap_err(), Error::BadFormat);
        assert_eq!(parse("mg k Fx Nx", Get).unwrap_err(), Error::BadToken);
        assert_eq!(
            parse("mg k Nx Z", Get).unwrap_err(),
            Error::InvalidFlag,
            "unknown wins"
        );
        assert_eq!(parse("mg k M", Get).unwrap_err(), Error::ModeLength);
        assert_eq!(parse("mg k Dx", Get).unwrap_err(), Error::DeltaValue);
        assert_eq!(parse("mg k Jx", Get).unwrap_err(), Error::InitialValue);
        assert_eq!(parse("mg a b", Get).unwrap_err(), Error::KeyDecode);
        assert_eq!(parse("mg k x", Get).unwrap_err(), Error::InvalidFlag);
        assert_eq!(
            parse("md k Z", Delete).unwrap_err(),
            Error::InvalidOrDuplicateFlag
        );
        assert_eq!(
            parse("ma k Dx", Arithmetic).unwrap_err(),
            Error::InvalidOrDuplicateFlag
        );
        assert!(parse("md k x", Delete).unwrap().remove_value);
        let long = format!("mg k O{}", "o".repeat(32));
        assert_eq!(parse(&long, Get).unwrap_err(), Error::OpaqueTooLong);
        let ok = format!("mg k O{}", "o".repeat(31));
        assert!(parse(&ok, Get).is_ok());
        let long = format!("md k O{}", "o".repeat(32));
        assert_eq!(parse(&long, Delete).unwrap_err(), Error::OpaqueTooLong);
    }

    #[test]
    fn key_and_flag_count_limits() {
        let key = "k".repeat(251);
        assert_eq!(
            parse(&format!("mg {key} v"), MetaKind::Get).unwrap_err(),
            Error::BadFormat
        );
        let flags17 = "P L k s t c f v h l u q O1 T1 N1 R1 F1";
        assert!(parse(&format!("mg k {flags17}"), MetaKind::Get).is_ok());
        let flags18 = format!("{flags17} C1");
        assert_eq!(
            parse(&format!("mg k {flags18}"), MetaKind::Get).unwrap_err(),
            Error::TooManyGetFlags
        );
        assert_eq!(
            parse(&format!("ms k 1 {flags17}"), MetaKind::Set).unwrap_err(),
            Error::TooManyFlags
        );
    }

    #[test]
    fn base64_keys_are_decoded_and_echoed_encoded() {
        let f = parse("mg YWJj b k", MetaKind::Get).unwrap();
        assert_eq!(&*f.key, b"abc");
        let mut out = Vec::new();
        for w in f.words() {
            f.put_opaque_and_key(w, &mut out);
        }
        assert_eq!(out, b" kYWJj b");
    }
}
