//! The sparse encoding: opcodes for runs of registers, as Redis writes
//! them — `ZERO` (`00xxxxxx`: 1-64 zero registers), `XZERO` (`01xxxxxx
//! yyyyyyyy`: 1-16,384 zeros) and `VAL` (`1vvvvvxx`: 1-4 registers of value
//! 1-32). Setting a register splits its run in place (at most `XZERO VAL
//! XZERO`) and then merges equal `VAL`s next to it, exactly as Redis's
//! `hllSparseSet` does, so the bytes match Redis's.

use super::format::{Corrupt, HEADER, REGISTERS, SPARSE_MAX_BYTES};

const VAL_MAX_VALUE: u8 = 32;
const VAL_MAX_LEN: usize = 4;
const ZERO_MAX_LEN: usize = 64;

fn is_zero(op: u8) -> bool {
    op & 0xc0 == 0
}

fn is_xzero(op: u8) -> bool {
    op & 0xc0 == 0x40
}

fn is_val(op: u8) -> bool {
    op & 0x80 != 0
}

fn val_value(op: u8) -> u8 {
    ((op >> 2) & 0x1f) + 1
}

fn val_len(op: u8) -> usize {
    usize::from(op & 3) + 1
}

fn val(value: u8, len: usize) -> u8 {
    ((value - 1) << 2) | (len as u8 - 1) | 0x80
}

fn zero(len: usize) -> u8 {
    (len - 1) as u8
}

fn xzero(len: usize) -> [u8; 2] {
    let l = len - 1;
    [(l >> 8) as u8 | 0x40, (l & 0xff) as u8]
}

/// A run of `len` zero registers, in the shortest opcode.
fn zeros(out: &mut Vec<u8>, len: usize) {
    match len > ZERO_MAX_LEN {
        true => out.extend_from_slice(&xzero(len)),
        false => out.push(zero(len)),
    }
}

/// The opcode at `ops[p]`: its length in bytes and registers covered.
fn opcode(ops: &[u8], p: usize) -> Result<(usize, usize), Corrupt> {
    let op = ops[p];
    Ok(if is_zero(op) {
        (1, usize::from(op & 0x3f) + 1)
    } else if is_val(op) {
        (1, val_len(op))
    } else {
        let low = ops.get(p + 1).ok_or(Corrupt)?;
        (2, ((usize::from(op & 0x3f) << 8) | usize::from(*low)) + 1)
    })
}

/// The opcodes of a new, all-zero HyperLogLog.
pub fn all_zero() -> [u8; 2] {
    xzero(REGISTERS)
}

/// Every register of the opcodes `ops`.
pub fn registers(ops: &[u8], out: &mut [u8; REGISTERS]) -> Result<(), Corrupt> {
    let (mut p, mut i) = (0, 0);
    out.fill(0);
    while p < ops.len() {
        let (len, span) = opcode(ops, p)?;
        if is_val(ops[p]) {
            if i + span > REGISTERS {
                return Err(Corrupt);
            }
            out[i..i + span].fill(val_value(ops[p]));
        }
        i += span;
        p += len;
    }
    match i == REGISTERS {
        true => Ok(()),
        false => Err(Corrupt),
    }
}

/// The opcodes `ops` as Redis's `PFDEBUG DECODE` writes them: `z:len`,
/// `Z:len` and `v:value,len`, one space apart.
pub fn decode(ops: &[u8]) -> Result<String, Corrupt> {
    let (mut p, mut words) = (0, Vec::new());
    while p < ops.len() {
        let (len, span) = opcode(ops, p)?;
        words.push(match (is_zero(ops[p]), is_xzero(ops[p])) {
            (true, _) => format!("z:{span}"),
            (_, true) => format!("Z:{span}"),
            _ => format!("v:{},{span}", val_value(ops[p])),
        });
        p += len;
    }
    Ok(words.join(" "))
}

/// What [`set`] did.
pub enum Set {
    /// Set (true) or already at least as high (false).
    Done(bool),
    /// The value needs the dense encoding (too high, or too long).
    Promote,
}

/// Raises register `index` to `count` in the sparse HyperLogLog `hll`
/// (header included).
pub fn set(hll: &mut Vec<u8>, index: usize, count: u8) -> Result<Set, Corrupt> {
    if count > VAL_MAX_VALUE {
        return Ok(Set::Promote);
    }
    // Step 1: the opcode covering `index`, and the one before it.
    let (mut p, mut first, mut prev) = (HEADER, 0usize, None);
    let (oplen, span) = loop {
        if p >= hll.len() {
            return Err(Corrupt);
        }
        let (oplen, span) = opcode(&hll[HEADER..], p - HEADER)?;
        if index < first + span {
            break (oplen, span);
        }
        prev = Some(p);
        p += oplen;
        first += span;
    };
    let op = hll[p];
    // Step 2: the trivial cases, in place.
    if is_val(op) {
        if val_value(op) >= count {
            return Ok(Set::Done(false));
        }
        if span == 1 {
            hll[p] = val(count, 1);
            merge(hll, prev.unwrap_or(HEADER));
            return Ok(Set::Done(true));
        }
    }
    if is_zero(op) && span == 1 {
        hll[p] = val(count, 1);
        merge(hll, prev.unwrap_or(HEADER));
        return Ok(Set::Done(true));
    }
    // The general case: split the run around `index`.
    let last = first + span - 1;
    let mut seq = Vec::with_capacity(5);
    if is_val(op) {
        let current = val_value(op);
        if index != first {
            seq.push(val(current, index - first));
        }
        seq.push(val(count, 1));
        if index != last {
            seq.push(val(current, last - index));
        }
    } else {
        if index != first {
            zeros(&mut seq, index - first);
        }
        seq.push(val(count, 1));
        if index != last {
            zeros(&mut seq, last - index);
        }
    }
    // Step 3: the new sequence in place of the old opcode.
    if seq.len() > oplen && hll.len() + seq.len() - oplen > SPARSE_MAX_BYTES {
        return Ok(Set::Promote);
    }
    hll.splice(p..p + oplen, seq);
    merge(hll, prev.unwrap_or(HEADER));
    Ok(Set::Done(true))
}

/// Step 4: merges adjacent `VAL`s of one value that fit one opcode,
/// scanning up to five opcodes from `from`, as Redis does.
fn merge(hll: &mut Vec<u8>, from: usize) {
    let mut p = from;
    let mut scan = 5;
    while p < hll.len() && scan > 0 {
        scan -= 1;
        let op = hll[p];
        if is_xzero(op) {
            p += 2;
            continue;
        }
        if is_zero(op) {
            p += 1;
            continue;
        }
        if let Some(&next) = hll.get(p + 1) {
            if is_val(next) && val_value(op) == val_value(next) {
                let len = val_len(op) + val_len(next);
                if len <= VAL_MAX_LEN {
                    hll[p + 1] = val(val_value(op), len);
                    hll.remove(p);
                    // Try the merged opcode with the one on its right.
                    continue;
                }
            }
        }
        p += 1;
    }
}
