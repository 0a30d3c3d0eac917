//! `BY` and `GET` patterns, as Redis's `lookupKeyByPattern` reads them:
//! `#` is the element itself; otherwise the first `*` is replaced by the
//! element to name a key, whose string value is taken, or, when the
//! pattern goes on with `->field` after the `*`, that field of the hash
//! at the key. A pattern without `*` names nothing, and a key of another
//! type reads as missing. The searches (`#`, `*`, `->`) stop at a NUL byte
//! as C's string functions do; the parts cut are the whole bytes.

use std::borrow::Cow;

use strata_kv::large::{is_head, Hashed};
use strata_kv::{collection, ChunkSource, Store, ValueKind};

use crate::commands::hash::find;
use crate::reply::{CollectionError, RespError};

/// `pattern` read as a C string (up to its first NUL byte).
pub fn c_str(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// Whether the C string of `pattern` has a `*` (Redis's `strchr`).
pub fn has_star(pattern: &[u8]) -> bool {
    c_str(pattern).contains(&b'*')
}

/// What a pattern names for one element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target<'p> {
    /// `#`: the element.
    Element,
    /// No `*`: nothing.
    Nothing,
    /// A key's string value, or with `field` a field of its hash.
    Key {
        /// The key: the pattern with its first `*` replaced.
        key: Vec<u8>,
        /// The hash field after `->`.
        field: Option<&'p [u8]>,
    },
}

/// Whether `pattern` is `#` (as a C string: `#` then the end or a NUL).
pub fn is_element(pattern: &[u8]) -> bool {
    pattern.first() == Some(&b'#') && pattern.get(1).is_none_or(|&b| b == 0)
}

/// What `pattern` names for `element`.
pub fn resolve<'p>(pattern: &'p [u8], element: &[u8]) -> Target<'p> {
    if is_element(pattern) {
        return Target::Element;
    }
    let text = c_str(pattern);
    let Some(star) = text.iter().position(|&b| b == b'*') else {
        return Target::Nothing;
    };
    // The first `->` after the `*`, naming a field only when a byte
    // (other than NUL) follows it.
    let arrow = text[star + 1..]
        .windows(2)
        .position(|w| w == b"->")
        .map(|at| star + 1 + at)
        .filter(|&at| at + 2 < text.len());
    let (postfix_end, field) = match arrow {
        Some(at) => (at, Some(&pattern[at + 2..])),
        None => (pattern.len(), None),
    };
    let mut key = Vec::with_capacity(postfix_end - 1 + element.len());
    key.extend_from_slice(&pattern[..star]);
    key.extend_from_slice(element);
    key.extend_from_slice(&pattern[star + 1..postfix_end]);
    Target::Key { key, field }
}

/// A hash field read from a packed record, or the record is a large
/// hash's head (read through its chunks then).
enum Packed {
    Value(Option<Vec<u8>>),
    Large,
}

/// What `pattern` names for `element`, read from `store` (counting a hit
/// or miss for a key looked up, as Redis's `lookupKeyRead`).
pub fn fetch<'e, S: Store>(
    store: &mut S,
    pattern: &[u8],
    element: &'e [u8],
) -> Result<Option<Cow<'e, [u8]>>, RespError> {
    let (key, field) = match resolve(pattern, element) {
        Target::Element => return Ok(Some(Cow::Borrowed(element))),
        Target::Nothing => return Ok(None),
        Target::Key { key, field } => (key, field),
    };
    let Some(field) = field else {
        let value = store.get(&key, |item| {
            (item.kind == ValueKind::String).then(|| item.value.to_vec())
        });
        return Ok(value.flatten().map(Cow::Owned));
    };
    let packed = store.get(&key, |item| {
        if item.kind != ValueKind::Hash {
            return Ok(Packed::Value(None));
        }
        if is_head(item.value) {
            return Ok(Packed::Large);
        }
        let pairs = collection::decode(item.value).ok_or(CollectionError::Damaged)?;
        Ok::<_, RespError>(Packed::Value(
            find(&pairs, field).map(|at| pairs[at * 2 + 1].to_vec()),
        ))
    });
    let value = match packed.transpose()? {
        None | Some(Packed::Value(None)) => None,
        Some(Packed::Value(Some(v))) => Some(v),
        Some(Packed::Large) => large_field(store, &key, field)?,
    };
    Ok(value.map(Cow::Owned))
}

/// A field of the large hash at `key`, read under the shard's read lock
/// (what the key holds then: a hash converted or replaced since the first
/// look is read as it is now).
fn large_field<S: Store>(
    store: &mut S,
    key: &[u8],
    field: &[u8],
) -> Result<Option<Vec<u8>>, RespError> {
    store.read_large(key, |read| {
        if let Some(mut hash) = Hashed::open(read, ValueKind::Hash)? {
            return Ok(hash.get(field)?);
        }
        match read.current()? {
            Some(c) if c.kind == ValueKind::Hash => {
                let pairs = collection::decode(&c.value).ok_or(CollectionError::Damaged)?;
                Ok(find(&pairs, field).map(|at| pairs[at * 2 + 1].to_vec()))
            }
            _ => Ok(None),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(pattern: &'static [u8], element: &[u8]) -> (Vec<u8>, Option<&'static [u8]>) {
        match resolve(pattern, element) {
            Target::Key { key, field } => (key, field),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hash_and_element_and_nothing() {
        assert_eq!(resolve(b"#", b"e"), Target::Element);
        assert_eq!(resolve(b"#\0tail", b"e"), Target::Element);
        assert_eq!(resolve(b"##", b"e"), Target::Nothing);
        assert_eq!(resolve(b"nosort", b"e"), Target::Nothing);
        assert_eq!(resolve(b"", b"e"), Target::Nothing);
        assert_eq!(resolve(b"w\0*", b"e"), Target::Nothing, "* after a NUL");
    }

    #[test]
    fn the_first_star_is_replaced() {
        assert_eq!(key(b"w_*", b"7"), (b"w_7".to_vec(), None));
        assert_eq!(key(b"*", b"x"), (b"x".to_vec(), None));
        assert_eq!(key(b"a*b*c", b"X"), (b"aXb*c".to_vec(), None));
        assert_eq!(key(b"*", b""), (Vec::new(), None));
    }

    #[test]
    fn an_arrow_after_the_star_names_a_field() {
        assert_eq!(key(b"h_*->f", b"1"), (b"h_1".to_vec(), Some(&b"f"[..])));
        assert_eq!(key(b"h_*x->fg", b"1"), (b"h_1x".to_vec(), Some(&b"fg"[..])));
        // An arrow at the end names no field: it is part of the key.
        assert_eq!(key(b"x:*->", b"a"), (b"x:a->".to_vec(), None));
        // Before the star, an arrow is part of the key.
        assert_eq!(key(b"a->*", b"1"), (b"a->1".to_vec(), None));
        // Only the first arrow after the star counts.
        assert_eq!(key(b"*->->f", b"1"), (b"1".to_vec(), Some(&b"->f"[..])));
        // The field runs to the real end, NULs included.
        assert_eq!(key(b"*->f\0g", b"1"), (b"1".to_vec(), Some(&b"f\0g"[..])));
        // A NUL right after the arrow: no field, the rest stays in the key.
        assert_eq!(key(b"*->\0f", b"1"), (b"1->\0f".to_vec(), None));
    }
}
