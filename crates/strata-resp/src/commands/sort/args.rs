//! `SORT`'s and `SORT_RO`'s options, parsed as `sortCommandGeneric` does:
//! left to right, the first bad option refusing the command before the key
//! is looked up. Option words compare as C strings (up to a NUL byte), as
//! Redis's `strcasecmp` does.

use super::pattern::{c_str, has_star, is_element};
use crate::args::Args;
use crate::number::parse_i64;
use crate::reply::{RespError, SortError};

/// Which command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `SORT`: may `STORE`.
    Sort,
    /// `SORT_RO`: `STORE` is a syntax error.
    SortRo,
}

/// A parsed request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request<'a> {
    /// The key to sort.
    pub key: &'a [u8],
    /// `DESC` (the last of `ASC`/`DESC` given wins).
    pub desc: bool,
    /// `ALPHA`.
    pub alpha: bool,
    /// `LIMIT offset count` as given (`(0, -1)` without it; the last wins).
    pub limit: (i64, i64),
    /// `STORE destination` (the last wins).
    pub store: Option<&'a [u8]>,
    /// `BY pattern` (the last wins).
    pub by: Option<&'a [u8]>,
    /// Set by any `BY` whose pattern has no `*` (and never cleared by a
    /// later one, as in Redis): keep the native order.
    pub dont_sort: bool,
    /// `GET` patterns in order.
    pub gets: Vec<&'a [u8]>,
}

impl Request<'_> {
    /// Whether answering may read keys other than the sorted one (a `BY`
    /// that sorts, or a `GET` pattern that names a key): then every shard
    /// is held while the command runs.
    pub fn reads_other_keys(&self) -> bool {
        let by = !self.dont_sort && self.by.is_some();
        by || self.gets.iter().any(|g| !is_element(g) && has_star(g))
    }
}

fn is(word: &[u8], name: &[u8]) -> bool {
    c_str(word).eq_ignore_ascii_case(name)
}

/// Parses `args` (the command name at 0, the key at 1). `full_key_access`:
/// the user may read every key (Redis's
/// `ACLUserCheckCmdWithUnrestrictedKeyAccess`); without it a `BY` that
/// sorts and any `GET` are refused.
pub fn parse<'a>(
    args: &Args<'a>,
    form: Form,
    full_key_access: bool,
) -> Result<Request<'a>, RespError> {
    let mut request = Request {
        key: args.get(1),
        desc: false,
        alpha: false,
        limit: (0, -1),
        store: None,
        by: None,
        dont_sort: false,
        gets: Vec::new(),
    };
    let mut j = 2;
    while j < args.len() {
        let word = args.get(j);
        let left = args.len() - j - 1;
        if is(word, b"asc") {
            request.desc = false;
        } else if is(word, b"desc") {
            request.desc = true;
        } else if is(word, b"alpha") {
            request.alpha = true;
        } else if is(word, b"limit") && left >= 2 {
            let offset = parse_i64(args.get(j + 1)).ok_or(RespError::NotInteger)?;
            let count = parse_i64(args.get(j + 2)).ok_or(RespError::NotInteger)?;
            request.limit = (offset, count);
            j += 2;
        } else if form == Form::Sort && is(word, b"store") && left >= 1 {
            request.store = Some(args.get(j + 1));
            j += 1;
        } else if is(word, b"by") && left >= 1 {
            let pattern = args.get(j + 1);
            request.by = Some(pattern);
            if !has_star(pattern) {
                request.dont_sort = true;
            } else if !full_key_access {
                return Err(SortError::ByDenied.into());
            }
            j += 1;
        } else if is(word, b"get") && left >= 1 {
            if !full_key_access {
                return Err(SortError::GetDenied.into());
            }
            request.gets.push(args.get(j + 1));
            j += 1;
        } else {
            return Err(RespError::Syntax);
        }
        j += 1;
    }
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: &[&[u8]], form: Form, full: bool) -> Result<Request<'static>, RespError> {
        let words: Vec<&[u8]> = line.to_vec();
        let buf: &'static [u8] = Box::leak(words.concat().into_boxed_slice());
        let mut ranges = Vec::new();
        let mut at = 0;
        for w in &words {
            ranges.push((at, at + w.len()));
            at += w.len();
        }
        let ranges: &'static [(usize, usize)] = Box::leak(ranges.into_boxed_slice());
        parse(&Args::new(buf, ranges), form, full)
    }

    fn words(line: &str) -> Vec<&[u8]> {
        line.split(' ').map(str::as_bytes).collect()
    }

    fn ok(line: &str) -> Request<'static> {
        let line: &'static str = Box::leak(line.to_string().into_boxed_str());
        run(&words(line), Form::Sort, true).expect("parses")
    }

    fn err(line: &str, form: Form, full: bool) -> RespError {
        let line: &'static str = Box::leak(line.to_string().into_boxed_str());
        run(&words(line), form, full).expect_err("refused")
    }

    #[test]
    fn options_in_any_order_the_last_one_winning() {
        let r = ok("sort k desc alpha limit 1 2 asc get # get w_* by x_* store d limit -5 9");
        assert_eq!(r.key, b"k");
        assert!(!r.desc && r.alpha && !r.dont_sort);
        assert_eq!(r.limit, (-5, 9));
        assert_eq!(r.store, Some(&b"d"[..]));
        assert_eq!(r.by, Some(&b"x_*"[..]));
        assert_eq!(r.gets, vec![&b"#"[..], b"w_*"]);
        assert!(r.reads_other_keys());
        let r = ok("sort k");
        assert_eq!(r.limit, (0, -1));
        assert!(!r.reads_other_keys());
    }

    #[test]
    fn a_constant_by_keeps_the_native_order_for_good() {
        let r = ok("sort k BY nosort");
        assert!(r.dont_sort);
        assert!(!r.reads_other_keys());
        let r = ok("sort k by nosort by w_*");
        assert!(r.dont_sort, "a later pattern does not undo it");
        assert_eq!(r.by, Some(&b"w_*"[..]));
        let r = ok("sort k by nosort get # get const");
        assert!(!r.reads_other_keys(), "# and a constant GET read no key");
    }

    #[test]
    fn refusals_in_the_order_redis_checks() {
        assert_eq!(err("sort k limit 1", Form::Sort, true), RespError::Syntax);
        assert_eq!(err("sort k by", Form::Sort, true), RespError::Syntax);
        assert_eq!(err("sort k get", Form::Sort, true), RespError::Syntax);
        assert_eq!(err("sort k store", Form::Sort, true), RespError::Syntax);
        assert_eq!(err("sort k bogus", Form::Sort, true), RespError::Syntax);
        assert_eq!(
            err("sort k limit x 1", Form::Sort, true),
            RespError::NotInteger
        );
        assert_eq!(
            err("sort k limit 1 9223372036854775808", Form::Sort, true),
            RespError::NotInteger
        );
        assert_eq!(
            err("sort_ro k store d", Form::SortRo, true),
            RespError::Syntax
        );
        assert_eq!(
            err("sort k by w_* bogus", Form::Sort, false),
            SortError::ByDenied.into()
        );
        assert_eq!(
            err("sort k bogus by w_*", Form::Sort, false),
            RespError::Syntax
        );
        assert_eq!(
            err("sort k get #", Form::Sort, false),
            SortError::GetDenied.into()
        );
        let r = run(&words("sort k by nosort"), Form::Sort, false).expect("constant BY");
        assert!(r.dont_sort);
    }

    #[test]
    fn words_are_c_strings() {
        let r = run(
            &[b"sort", b"k", b"DESC\0junk", b"by", b"w\0*"],
            Form::Sort,
            true,
        )
        .expect("parses");
        assert!(r.desc);
        assert!(r.dont_sort, "the * after a NUL is not seen");
    }
}
