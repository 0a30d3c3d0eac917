//! Redis's listpack, read: a 4-byte total length and a 2-byte count
//! (65535: unknown), entries, then `0xFF`. Each entry is its encoding (an
//! integer of 7, 13, 16, 24, 32 or 64 bits, or a string of a 6, 12 or
//! 32-bit length) and a back length of 1 to 5 bytes. Integers come back as
//! their decimal text, as Redis gives them to commands. Every offset is
//! checked; a blob that is not exactly one well-formed listpack is `None`.

/// The entries of listpack `lp`.
pub fn entries(lp: &[u8]) -> Option<Vec<Vec<u8>>> {
    let total = u32::from_le_bytes(lp.get(0..4)?.try_into().ok()?);
    let declared = u16::from_le_bytes(lp.get(4..6)?.try_into().ok()?);
    if usize::try_from(total).ok()? != lp.len() || lp.last() != Some(&0xFF) {
        return None;
    }
    // Each entry takes at least 2 bytes: a bounded allocation.
    let mut out = Vec::with_capacity(usize::from(declared).min(lp.len() / 2));
    let end = lp.len() - 1;
    let mut pos = 6;
    while pos < end {
        let (element, size) = entry(&lp[pos..end])?;
        out.push(element);
        pos = pos.checked_add(size)?.checked_add(backlen_size(size))?;
    }
    let counted = declared == u16::MAX || usize::from(declared) == out.len();
    (pos == end && counted).then_some(out)
}

/// The element at the front of `s` and the bytes of its encoding and data.
fn entry(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    let b = *s.first()?;
    let bytes = |from: usize, len: usize| -> Option<(Vec<u8>, usize)> {
        let end = from.checked_add(len)?;
        Some((s.get(from..end)?.to_vec(), end))
    };
    let int = |n: usize| -> Option<i64> {
        let raw = s.get(1..1 + n)?;
        let mut le = [0u8; 8];
        le[..n].copy_from_slice(raw);
        // Sign-extend from `n` bytes.
        let shift = 64 - 8 * n as u32;
        Some((i64::from_le_bytes(le) << shift) >> shift)
    };
    let number = |v: i64, size: usize| Some((v.to_string().into_bytes(), size));
    match b {
        0x00..=0x7F => number(i64::from(b), 1),
        0x80..=0xBF => bytes(1, usize::from(b & 0x3F)),
        0xC0..=0xDF => {
            let v = (i64::from(b & 0x1F) << 8) | i64::from(*s.get(1)?);
            number(if v >= 1 << 12 { v - (1 << 13) } else { v }, 2)
        }
        0xE0..=0xEF => bytes(2, (usize::from(b & 0x0F) << 8) | usize::from(*s.get(1)?)),
        0xF0 => {
            let len = u32::from_le_bytes(s.get(1..5)?.try_into().ok()?);
            bytes(5, usize::try_from(len).ok()?)
        }
        0xF1 => number(int(2)?, 3),
        0xF2 => number(int(3)?, 4),
        0xF3 => number(int(4)?, 5),
        0xF4 => number(int(8)?, 9),
        _ => None,
    }
}

/// Bytes of the back length after an entry of `size` bytes (Redis's
/// `lpEncodeBacklen`, boundaries included).
fn backlen_size(size: usize) -> usize {
    match size {
        0..=127 => 1,
        128..=16382 => 2,
        16383..=2_097_150 => 3,
        2_097_151..=268_435_454 => 4,
        _ => 5,
    }
}

/// A listpack of `elements` as strings (for tests of the readers).
#[cfg(test)]
pub fn build(elements: &[&[u8]]) -> Vec<u8> {
    let mut body = Vec::new();
    for e in elements {
        let start = body.len();
        match e.len() {
            0..=63 => body.push(0x80 | e.len() as u8),
            64..=4095 => body.extend_from_slice(&[0xE0 | (e.len() >> 8) as u8, e.len() as u8]),
            _ => {
                body.push(0xF0);
                body.extend_from_slice(&(e.len() as u32).to_le_bytes());
            }
        }
        body.extend_from_slice(e);
        let size = body.len() - start;
        // Back length: 7 bits a byte, most significant first.
        let n = backlen_size(size);
        for i in (0..n).rev() {
            let mut byte = ((size >> (7 * i)) & 0x7F) as u8;
            if i != 0 {
                byte |= 0x80;
            }
            body.push(byte);
        }
    }
    let mut lp = Vec::new();
    lp.extend_from_slice(&((body.len() + 7) as u32).to_le_bytes());
    lp.extend_from_slice(&(elements.len().min(65535) as u16).to_le_bytes());
    lp.extend_from_slice(&body);
    lp.push(0xFF);
    lp
}
