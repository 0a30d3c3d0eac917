//! The order-preserving byte encoding of ordered-index keys.
//!
//! Integers are big-endian with the sign bit flipped; floats use the usual
//! total-order transform; strings escape `0x00` as `0x00 0xFF` and end
//! with `0x00 0x00`, so that a shorter string sorts before its extensions
//! and a tuple's encoding is a prefix of every longer tuple's that starts
//! with it. An index entry's key is its columns' encoding followed by the
//! primary key (8 bytes, big-endian), which makes every entry unique.

use crate::error::TxnError;
use crate::schema::column::ColumnType;

/// One value of an index key, as given to a scan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyValue<'a> {
    /// An `i32` column's value.
    I32(i32),
    /// An `i64` column's value.
    I64(i64),
    /// An `f64` column's value.
    F64(f64),
    /// A string column's value.
    Str(&'a str),
}

impl KeyValue<'_> {
    fn type_name(&self) -> &'static str {
        match self {
            KeyValue::I32(_) => "i32",
            KeyValue::I64(_) => "i64",
            KeyValue::F64(_) => "f64",
            KeyValue::Str(_) => "str",
        }
    }
}

/// Appends the encoding of an `i32`.
pub(crate) fn put_i32(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&((v as u32) ^ (1 << 31)).to_be_bytes());
}

/// Appends the encoding of an `i64`.
pub(crate) fn put_i64(out: &mut Vec<u8>, v: i64) {
    out.extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes());
}

/// Appends the encoding of an `f64`.
pub(crate) fn put_f64(out: &mut Vec<u8>, v: f64) {
    let bits = v.to_bits();
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    out.extend_from_slice(&ordered.to_be_bytes());
}

/// Appends the encoding of a string's bytes.
pub(crate) fn put_str(out: &mut Vec<u8>, s: &[u8]) {
    for &b in s {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

/// Appends `value` checked against a column of type `ty` (named `column`
/// in the error).
pub(crate) fn put_value(
    out: &mut Vec<u8>,
    ty: ColumnType,
    value: &KeyValue<'_>,
    column: &str,
) -> Result<(), TxnError> {
    match (ty, value) {
        (ColumnType::I32, KeyValue::I32(v)) => put_i32(out, *v),
        (ColumnType::I64, KeyValue::I64(v)) => put_i64(out, *v),
        (ColumnType::F64, KeyValue::F64(v)) => put_f64(out, *v),
        (ColumnType::Str { .. }, KeyValue::Str(s)) => put_str(out, s.as_bytes()),
        _ => {
            return Err(TxnError::TypeMismatch {
                column: column.to_owned(),
                expected: ty.name(),
                found: value.type_name(),
            })
        }
    }
    Ok(())
}

/// The smallest byte string greater than every string starting with
/// `prefix`, or `None` if there is none (all bytes `0xFF`).
pub(crate) fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last != 0xFF {
            out.push(last + 1);
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(f: impl Fn(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        f(&mut out);
        out
    }

    #[test]
    fn encodings_sort_like_values() {
        let ints = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        let keys: Vec<_> = ints.iter().map(|&v| enc(|o| put_i64(o, v))).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        let floats = [
            f64::NEG_INFINITY,
            -2.5,
            -0.0,
            0.0,
            1e-300,
            3.0,
            f64::INFINITY,
        ];
        let keys: Vec<_> = floats.iter().map(|&v| enc(|o| put_f64(o, v))).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        let strs: [&[u8]; 5] = [b"", b"\0", b"\0\0", b"a", b"ab"];
        let keys: Vec<_> = strs.iter().map(|s| enc(|o| put_str(o, s))).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        // A tuple ("a", 5) sorts after ("a") and before ("ab").
        let a5 = enc(|o| {
            put_str(o, b"a");
            put_i32(o, 5);
        });
        assert!(a5.starts_with(&keys[3]) && a5 < keys[4]);
    }

    #[test]
    fn successor_bounds_every_extension() {
        assert_eq!(successor(&[1, 2]), Some(vec![1, 3]));
        assert_eq!(successor(&[1, 0xFF]), Some(vec![2]));
        assert_eq!(successor(&[0xFF, 0xFF]), None);
        let s = successor(&[4, 0xFF]).unwrap();
        assert!(vec![4, 0xFF, 0xFF, 0xFF] < s);
    }
}
