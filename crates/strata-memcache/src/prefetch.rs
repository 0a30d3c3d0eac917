//! Warming the keyspace for pipelined requests, as the RESP front end does:
//! when several text requests arrived together, their keys are handed to
//! [`Keyspace::prefetch`](strata_kv::Keyspace::prefetch) before the first
//! runs, so the memory misses of their lookups overlap.
//!
//! A light scan, not the parser: command names it does not know (whose
//! data block it could not skip), binary requests, and partial lines or
//! data end the batch, and the session parses every request properly. A
//! key it misreads only costs a wasted load.

use memchr::memchr;
use strata_kv::{Keyspace, PREFETCH_BATCH};

/// Looks at the whole text requests at the front of `input`, up to a
/// batch of keys, and when there are two or more keys has `keyspace` warm
/// them. Returns the bytes of the requests looked at (0 if none).
pub(crate) fn warm(keyspace: &Keyspace, input: &[u8]) -> usize {
    let mut keys: [&[u8]; PREFETCH_BATCH] = [&[]; PREFETCH_BATCH];
    let (mut n, mut pos) = (0, 0);
    while n < PREFETCH_BATCH {
        let Some(end) = request_at(input, pos, &mut |key| {
            if let Some(slot) = keys.get_mut(n) {
                *slot = key;
                n += 1;
            }
        }) else {
            break;
        };
        pos = end;
    }
    if n >= 2 {
        keyspace.prefetch(&keys[..n]);
    }
    pos
}

/// Hands the keys of the whole text request at `pos` to `key` and returns
/// the offset after it (its data block included); `None` if no whole
/// request of a known command starts there.
fn request_at<'a>(input: &'a [u8], pos: usize, key: &mut dyn FnMut(&'a [u8])) -> Option<usize> {
    let rest = input.get(pos..)?;
    let newline = memchr(b'\n', rest)?;
    let line = &rest[..newline];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut words = line.split(|&b| b == b' ').filter(|w| !w.is_empty());
    let end = pos + newline + 1;
    match words.next()? {
        b"get" | b"gets" => words.for_each(key),
        b"gat" | b"gats" => words.skip(1).for_each(key),
        b"mg" | b"md" | b"ma" | b"delete" | b"incr" | b"decr" | b"touch" => key(words.next()?),
        // `set <key> <flags> <exptime> <bytes>`, `cas` alike.
        b"set" | b"add" | b"replace" | b"append" | b"prepend" | b"cas" => {
            return with_data(input, end, words, 2, key)
        }
        // `ms <key> <datalen> <flags>*`
        b"ms" => return with_data(input, end, words, 0, key),
        _ => return None,
    }
    Some(end)
}

/// The end of a storage request whose line ends at `end` and whose data
/// block's length is the word `len_at` places after the key (the next of
/// `words`), having handed the key to `key`; `None` if the block has not
/// all arrived or the length is not a number.
fn with_data<'a>(
    input: &'a [u8],
    end: usize,
    mut words: impl Iterator<Item = &'a [u8]>,
    len_at: usize,
    key: &mut dyn FnMut(&'a [u8]),
) -> Option<usize> {
    let the_key = words.next()?;
    let len: usize = std::str::from_utf8(words.nth(len_at)?).ok()?.parse().ok()?;
    let end = end.checked_add(len)?.checked_add(2)?;
    if end > input.len() {
        return None;
    }
    key(the_key);
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::request_at;

    fn keys_and_end(input: &[u8], pos: usize) -> Option<(Vec<&[u8]>, usize)> {
        let mut keys = Vec::new();
        let end = request_at(input, pos, &mut |k| keys.push(k))?;
        Some((keys, end))
    }

    #[test]
    fn finds_the_keys_of_each_request_and_skips_data_blocks() {
        let input = b"get a b\r\nset k 0 0 5\r\nhello\r\nmg x v\r\nms y 2 T0\r\nhi\r\ngat 10 g\r\nversion\r\n";
        let (keys, end) = keys_and_end(input, 0).unwrap();
        assert_eq!((keys, end), (vec![&b"a"[..], b"b"], 9));
        let (keys, end) = keys_and_end(input, end).unwrap();
        assert_eq!((keys, end), (vec![&b"k"[..]], 9 + 13 + 7));
        let (keys, end) = keys_and_end(input, end).unwrap();
        assert_eq!(keys, vec![&b"x"[..]]);
        let (keys, end) = keys_and_end(input, end).unwrap();
        assert_eq!(keys, vec![&b"y"[..]]);
        let (keys, end) = keys_and_end(input, end).unwrap();
        assert_eq!(keys, vec![&b"g"[..]]);
        // An unknown name (here one without a key) ends the batch.
        assert_eq!(keys_and_end(input, end), None);
    }

    #[test]
    fn stops_at_partial_or_strange_requests() {
        for bad in [
            &b"get a"[..],
            b"set k 0 0 5\r\nhel",
            b"set k 0 0 x\r\nhello\r\n",
            b"set k 0 0 18446744073709551615\r\n",
            b"set k\r\n",
            b"\x80\x00\x00\x00",
            b"\r\n",
        ] {
            assert_eq!(
                keys_and_end(bad, 0),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
