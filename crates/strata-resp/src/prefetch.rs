//! Warming the keyspace for pipelined requests. When several requests
//! arrived together, the keys of those behind the one about to run are
//! handed to [`Keyspace::prefetch`](strata_kv::Keyspace::prefetch) before
//! it runs, so the memory misses of their lookups overlap with it and with
//! each other (at pipeline depth 16 those misses were a third of the
//! server's time). A request that arrived alone is not scanned for this:
//! its own miss has nothing to overlap with.
//!
//! The key is guessed, not looked up: a request's second argument is the
//! first key of nearly every command that has one, and a wrong guess (a
//! `CONFIG GET` pattern, a `PING` message) only costs a wasted load; the
//! scripts' commands (`EVAL`, `EVALSHA`, `FCALL` and their `_RO` forms)
//! name their first key fourth, after the script and the key count. The
//! scan is bounded (a batch, whole requests only) and never errs: anything
//! it does not understand ends the batch, and the parser proper judges it.

use strata_kv::{Keyspace, PREFETCH_BATCH};

use crate::codec::header_line;
use crate::number::parse_i64;

/// Requests with more arguments than this end the batch (their argument
/// headers are not worth walking for one key).
const MAX_ARGS: i64 = 64;

/// Looks at the whole multibulk requests at the front of `input` (the
/// requests queued behind the one about to run), up to a batch of them, and
/// has `keyspace` warm their keys. Returns the bytes of the requests looked
/// at (0 if none).
pub(crate) fn warm(keyspace: &Keyspace, input: &[u8]) -> usize {
    let mut keys: [&[u8]; PREFETCH_BATCH] = [&[]; PREFETCH_BATCH];
    let (mut requests, mut n, mut pos) = (0, 0, 0);
    while requests < PREFETCH_BATCH {
        let Some((key, end)) = request_at(input, pos) else {
            break;
        };
        if let Some(key) = key {
            keys[n] = key;
            n += 1;
        }
        requests += 1;
        pos = end;
    }
    if n > 0 {
        keyspace.prefetch(&keys[..n]);
    }
    pos
}

/// The second argument (if there is one) of the whole multibulk request
/// starting at `pos`, and the offset after the request; `None` if no whole
/// request of at most [`MAX_ARGS`] arguments starts there.
fn request_at(input: &[u8], pos: usize) -> Option<(Option<&[u8]>, usize)> {
    if input.get(pos) != Some(&b'*') {
        return None;
    }
    let (line, mut at) = header_line(input, pos + 1)?;
    let count = parse_i64(line).filter(|n| (1..=MAX_ARGS).contains(n))?;
    let mut args: [&[u8]; 4] = [&[]; 4];
    for i in 0..count {
        if input.get(at) != Some(&b'$') {
            return None;
        }
        let (line, start) = header_line(input, at + 1)?;
        let len = usize::try_from(parse_i64(line)?).ok()?;
        let end = start.checked_add(len)?;
        if input.len() < end.checked_add(2)? {
            return None;
        }
        if let Some(arg) = args.get_mut(i as usize) {
            *arg = &input[start..end];
        }
        at = end + 2;
    }
    let key = match count {
        1 => None,
        _ if runs_a_script(args[0]) => {
            (count >= 4 && parse_i64(args[2]).unwrap_or(0) >= 1).then_some(args[3])
        }
        _ => Some(args[1]),
    };
    Some((key, at))
}

/// Whether `name` is a command whose first key comes after a script (or
/// function) and the key count.
fn runs_a_script(name: &[u8]) -> bool {
    const SCRIPTS: [&[u8]; 6] = [
        b"eval",
        b"evalsha",
        b"eval_ro",
        b"evalsha_ro",
        b"fcall",
        b"fcall_ro",
    ];
    (4..=10).contains(&name.len()) && SCRIPTS.iter().any(|s| s.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::request_at;

    #[test]
    fn finds_each_requests_second_argument_and_its_end() {
        let input = b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$2\r\nab\r\n$1\r\nv\r\n";
        let (key, end) = request_at(input, 0).unwrap();
        assert_eq!((key, end), (Some(&b"k"[..]), 20));
        let (key, end) = request_at(input, end).unwrap();
        assert_eq!((key, end), (None, 34));
        let (key, end) = request_at(input, end).unwrap();
        assert_eq!((key, end), (Some(&b"ab"[..]), input.len()));
        assert_eq!(request_at(input, end), None);
    }

    #[test]
    fn a_scripts_first_key_is_its_fourth_argument() {
        let eval = b"*4\r\n$4\r\nEVAL\r\n$6\r\nreturn\r\n$1\r\n1\r\n$3\r\nkey\r\n";
        assert_eq!(request_at(eval, 0), Some((Some(&b"key"[..]), eval.len())));
        let sha = b"*4\r\n$10\r\nevalsha_ro\r\n$1\r\ns\r\n$1\r\n2\r\n$1\r\na\r\n";
        assert_eq!(request_at(sha, 0), Some((Some(&b"a"[..]), sha.len())));
        // No keys: nothing to warm (the fourth argument is an ARGV).
        let none = b"*4\r\n$5\r\nFCALL\r\n$1\r\nf\r\n$1\r\n0\r\n$1\r\nv\r\n";
        assert_eq!(request_at(none, 0), Some((None, none.len())));
        let bare = b"*3\r\n$4\r\nEVAL\r\n$1\r\nx\r\n$1\r\n0\r\n";
        assert_eq!(request_at(bare, 0), Some((None, bare.len())));
    }

    #[test]
    fn stops_at_anything_but_a_whole_plain_request() {
        for bad in [
            &b"*2\r\n$3\r\nGET\r\n$1\r\nk"[..], // incomplete
            b"GET k\r\n",                       // inline
            b"*2\r\n$3\r\nGET\r\n$-1\r\n",      // negative length
            b"*2\r\n$3\r\nGET\r\n$99999999999999999999\r\n",
            b"*0\r\n",
            b"*65\r\n",
            b"*2\r\n:3\r\n",
            b"*2\r\n$18446744073709551615\r\nab\r\n",
        ] {
            assert_eq!(
                request_at(bad, 0),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
