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

/// A listpack being written (a stream node's): integers in their
/// smallest encoding, strings by length, each with its back length.
#[derive(Default)]
pub struct Builder {
    body: Vec<u8>,
    count: usize,
}

impl Builder {
    /// Appends an integer.
    pub fn int(&mut self, v: i64) {
        let start = self.body.len();
        let b = &mut self.body;
        match v {
            0..=127 => b.push(v as u8),
            -4096..=4095 => {
                let u = (v as u16) & 0x1FFF;
                b.extend_from_slice(&[0xC0 | (u >> 8) as u8, u as u8]);
            }
            _ if i16::try_from(v).is_ok() => {
                b.push(0xF1);
                b.extend_from_slice(&(v as i16).to_le_bytes());
            }
            -8_388_608..=8_388_607 => {
                b.push(0xF2);
                b.extend_from_slice(&(v as i32).to_le_bytes()[..3]);
            }
            _ if i32::try_from(v).is_ok() => {
                b.push(0xF3);
                b.extend_from_slice(&(v as i32).to_le_bytes());
            }
            _ => {
                b.push(0xF4);
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        self.close(start);
    }

    /// Appends a string.
    pub fn string(&mut self, e: &[u8]) {
        let start = self.body.len();
        let b = &mut self.body;
        match e.len() {
            0..=63 => b.push(0x80 | e.len() as u8),
            64..=4095 => b.extend_from_slice(&[0xE0 | (e.len() >> 8) as u8, e.len() as u8]),
            _ => {
                b.push(0xF0);
                b.extend_from_slice(&(e.len() as u32).to_le_bytes());
            }
        }
        b.extend_from_slice(e);
        self.close(start);
    }

    /// Ends the entry begun at `start` with its back length: 7 bits a
    /// byte, the most significant first and unflagged, every later byte
    /// flagged (read backwards, a flag says a byte more is to come).
    fn close(&mut self, start: usize) {
        let size = self.body.len() - start;
        let n = backlen_size(size);
        for i in (0..n).rev() {
            let mut byte = ((size >> (7 * i)) & 0x7F) as u8;
            if i != n - 1 {
                byte |= 0x80;
            }
            self.body.push(byte);
        }
        self.count += 1;
    }

    /// The listpack.
    pub fn finish(self) -> Vec<u8> {
        let mut lp = Vec::with_capacity(self.body.len() + 7);
        lp.extend_from_slice(&((self.body.len() + 7) as u32).to_le_bytes());
        lp.extend_from_slice(&(self.count.min(65535) as u16).to_le_bytes());
        lp.extend_from_slice(&self.body);
        lp.push(0xFF);
        lp
    }
}

/// A listpack of `elements` as strings (for tests of the readers).
#[cfg(test)]
pub fn build(elements: &[&[u8]]) -> Vec<u8> {
    let mut b = Builder::default();
    for e in elements {
        b.string(e);
    }
    b.finish()
}
