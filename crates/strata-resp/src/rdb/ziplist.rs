//! The packed blobs of Redis before 7.0, read: the ziplist (a 4-byte
//! total, a 4-byte tail offset, a 2-byte count, entries each led by the
//! previous entry's length and its own encoding, then `0xFF`) and the
//! intset (a width of 2, 4 or 8 bytes, a count, the integers). Integers
//! come back as decimal text. Every offset is checked; a blob that is not
//! exactly one well-formed ziplist or intset is `None`.

/// The entries of ziplist `zl`.
pub fn entries(zl: &[u8]) -> Option<Vec<Vec<u8>>> {
    let total = u32::from_le_bytes(zl.get(0..4)?.try_into().ok()?);
    let declared = u16::from_le_bytes(zl.get(8..10)?.try_into().ok()?);
    if usize::try_from(total).ok()? != zl.len() || zl.last() != Some(&0xFF) {
        return None;
    }
    let mut out = Vec::with_capacity(usize::from(declared).min(zl.len() / 2));
    let end = zl.len() - 1;
    let mut pos = 10;
    while pos < end {
        let prevlen = match zl[pos] {
            0xFF => return None,
            0xFE => 5,
            _ => 1,
        };
        pos = pos.checked_add(prevlen)?;
        let (element, size) = entry(zl.get(pos..end)?)?;
        out.push(element);
        pos = pos.checked_add(size)?;
    }
    let counted = declared == u16::MAX || usize::from(declared) == out.len();
    (pos == end && counted).then_some(out)
}

/// The element at the front of `s` (after the previous length) and the
/// bytes of its encoding and data.
fn entry(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    let b = *s.first()?;
    let bytes = |from: usize, len: usize| -> Option<(Vec<u8>, usize)> {
        let end = from.checked_add(len)?;
        Some((s.get(from..end)?.to_vec(), end))
    };
    let int = |n: usize| -> Option<(Vec<u8>, usize)> {
        let raw = s.get(1..1 + n)?;
        let mut le = [0u8; 8];
        le[..n].copy_from_slice(raw);
        let shift = 64 - 8 * n as u32;
        let v = (i64::from_le_bytes(le) << shift) >> shift;
        Some((v.to_string().into_bytes(), 1 + n))
    };
    match b {
        0x00..=0x3F => bytes(1, usize::from(b)),
        0x40..=0x7F => bytes(2, (usize::from(b & 0x3F) << 8) | usize::from(*s.get(1)?)),
        0x80 => {
            let len = u32::from_be_bytes(s.get(1..5)?.try_into().ok()?);
            bytes(5, usize::try_from(len).ok()?)
        }
        0xC0 => int(2),
        0xD0 => int(4),
        0xE0 => int(8),
        0xF0 => int(3),
        0xFE => int(1),
        0xF1..=0xFD => Some(((i64::from(b & 0x0F) - 1).to_string().into_bytes(), 1)),
        _ => None,
    }
}

/// The integers of intset `blob`, as decimal text.
pub fn intset(blob: &[u8]) -> Option<Vec<Vec<u8>>> {
    let width = u32::from_le_bytes(blob.get(0..4)?.try_into().ok()?);
    let count = u32::from_le_bytes(blob.get(4..8)?.try_into().ok()?);
    let width = match width {
        2 | 4 | 8 => width as usize,
        _ => return None,
    };
    let values = &blob[8..];
    if usize::try_from(count).ok()?.checked_mul(width)? != values.len() {
        return None;
    }
    let out = values.chunks_exact(width).map(|raw| {
        let v = match raw.len() {
            2 => i64::from(i16::from_le_bytes([raw[0], raw[1]])),
            4 => i64::from(i32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]])),
            _ => {
                let mut le = [0u8; 8];
                le.copy_from_slice(raw);
                i64::from_le_bytes(le)
            }
        };
        v.to_string().into_bytes()
    });
    Some(out.collect())
}
