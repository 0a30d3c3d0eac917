//! [`Reader`]: RDB's primitives read from a payload, every read checked
//! against the bytes left: lengths (6, 14, 32 and 64 bits, and the special
//! encodings' marker), strings (raw; 8, 16 and 32-bit integers, given back
//! as their decimal text; LZF-compressed, inflated only up to a bound)
//! and binary doubles.

use std::borrow::Cow;

/// RDB's special string encodings (`RDB_ENC_*`).
const ENC_INT8: u64 = 0;
const ENC_INT16: u64 = 1;
const ENC_INT32: u64 = 2;
const ENC_LZF: u64 = 3;

/// A cursor over a payload's body.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    max_string: usize,
    /// Bytes inflated from LZF so far: all of a payload's strings together
    /// inflate to at most `max_string`, so a payload of many small
    /// compressed strings cannot claim a hundred times its size.
    inflated: usize,
}

impl<'a> Reader<'a> {
    /// Reads `buf`; no string inflates past `max_string` bytes.
    pub fn new(buf: &'a [u8], max_string: usize) -> Self {
        Self {
            buf,
            pos: 0,
            max_string,
            inflated: 0,
        }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// True when every byte was read.
    pub fn at_end(&self) -> bool {
        self.pos == self.buf.len()
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let bytes = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(bytes)
    }

    /// The next byte.
    pub fn byte(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    /// An RDB length: (value, whether it marks a special encoding).
    pub fn length(&mut self) -> Option<(u64, bool)> {
        let first = self.byte()?;
        Some(match first >> 6 {
            0 => (u64::from(first & 0x3f), false),
            1 => (
                (u64::from(first & 0x3f) << 8) | u64::from(self.byte()?),
                false,
            ),
            3 => (u64::from(first & 0x3f), true),
            _ if first == 0x80 => (u64::from(u32::from_be_bytes(self.array()?)), false),
            _ if first == 0x81 => (u64::from_be_bytes(self.array()?), false),
            _ => return None,
        })
    }

    /// A length that is not a special encoding (a counter, an id part).
    pub fn number(&mut self) -> Option<u64> {
        match self.length()? {
            (n, false) => Some(n),
            _ => None,
        }
    }

    /// A count of things that take at least `width` bytes each: refused
    /// when the bytes left cannot hold them, so it is safe to allocate.
    pub fn count(&mut self, width: usize) -> Option<usize> {
        let (n, special) = self.length()?;
        let n = usize::try_from(n).ok()?;
        (!special && n.checked_mul(width)? <= self.remaining()).then_some(n)
    }

    /// An RDB string in any of its encodings.
    pub fn string(&mut self) -> Option<Cow<'a, [u8]>> {
        let (len, special) = self.length()?;
        if !special {
            return self.take(usize::try_from(len).ok()?).map(Cow::Borrowed);
        }
        let int = match len {
            ENC_INT8 => i64::from(i8::from_le_bytes(self.array()?)),
            ENC_INT16 => i64::from(i16::from_le_bytes(self.array()?)),
            ENC_INT32 => i64::from(i32::from_le_bytes(self.array()?)),
            ENC_LZF => return self.lzf().map(Cow::Owned),
            _ => return None,
        };
        Some(Cow::Owned(int.to_string().into_bytes()))
    }

    /// An LZF string after its marker: compressed and plain lengths, then
    /// the compressed bytes; the plain length is bounded before inflating
    /// (by what is left of `max_string` for the payload, and by LZF's best ratio: a 3-byte back reference
    /// copies at most 264 bytes, so a claim past 100 times the compressed
    /// bytes is a lie, refused before any allocation).
    fn lzf(&mut self) -> Option<Vec<u8>> {
        let (compressed, special) = self.length()?;
        let (plain, special_plain) = self.length()?;
        let compressed = usize::try_from(compressed).ok()?;
        let plain = usize::try_from(plain).ok()?;
        let room = self.max_string.saturating_sub(self.inflated);
        let bound = compressed.saturating_mul(100).min(room);
        if special || special_plain || plain == 0 || plain > bound {
            return None;
        }
        self.inflated += plain;
        let data = self.take(compressed)?;
        let out = lzf::decompress(data, plain).ok()?;
        (out.len() == plain).then_some(out)
    }

    /// A double as 8 little-endian bytes (`ZSET_2`'s scores).
    pub fn binary_double(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.array()?))
    }

    /// A double as text after a length byte (the old `ZSET`'s scores):
    /// 253 is NaN, 254 and 255 the infinities.
    pub fn text_double(&mut self) -> Option<f64> {
        match self.byte()? {
            253 => Some(f64::NAN),
            254 => Some(f64::INFINITY),
            255 => Some(f64::NEG_INFINITY),
            n => parse_double(self.take(usize::from(n))?),
        }
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
}

/// A score as Redis writes it in text (`%.17g`, `inf`, `-inf`).
pub fn parse_double(text: &[u8]) -> Option<f64> {
    std::str::from_utf8(text).ok()?.parse().ok()
}
