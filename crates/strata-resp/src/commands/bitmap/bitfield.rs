//! `BITFIELD key [GET type offset | [OVERFLOW WRAP | SAT | FAIL] SET type
//! offset value | INCRBY type offset increment] ...` and `BITFIELD_RO key
//! [GET type offset ...]`.
//!
//! Integers of 1 to 64 bits (`i1`..`i64`) or 1 to 63 (`u1`..`u63`) at any
//! bit offset (`#n`: the n-th field of that width), read and written most
//! significant bit first. Every operation is parsed before any runs; the
//! writes are one change to the string. Overflow follows the `OVERFLOW` in
//! force: `WRAP` (default, modular), `SAT` (clamped to the type's range) or
//! `FAIL` (nothing written, a nil reply).

use strata_kv::{Mutation, Store, StringForm};

use super::bits::{bit_offset, get_bit, put_bit, Grown};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::notify;
use crate::number::parse_i64;
use crate::reply::{RespError, ValueError};
use crate::writer::ReplyWriter;

/// Which form runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `BITFIELD`.
    ReadWrite,
    /// `BITFIELD_RO`: `GET` only.
    ReadOnly,
}

/// A field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Field {
    signed: bool,
    bits: u32,
}

impl Field {
    fn parse(arg: &[u8]) -> Result<Field, RespError> {
        let signed = match arg.first().map(u8::to_ascii_lowercase) {
            Some(b'i') => true,
            Some(b'u') => false,
            _ => return Err(RespError::from(ValueError::BitfieldType)),
        };
        let bits = parse_i64(&arg[1..]).ok_or(RespError::from(ValueError::BitfieldType))?;
        let max = if signed { 64 } else { 63 };
        match u32::try_from(bits) {
            Ok(bits) if (1..=max).contains(&bits) => Ok(Field { signed, bits }),
            _ => Err(RespError::from(ValueError::BitfieldType)),
        }
    }

    /// The field's value at bit `offset` of `value` (zeros past its end).
    fn read(self, value: &[u8], offset: u64) -> i64 {
        let mut raw = 0u64;
        for i in 0..u64::from(self.bits) {
            raw = (raw << 1) | u64::from(get_bit(value, offset + i));
        }
        if self.signed && self.bits < 64 && (raw >> (self.bits - 1)) & 1 == 1 {
            raw |= u64::MAX << self.bits; // sign-extend
        }
        raw as i64
    }

    /// Writes the low `bits` of `v` at bit `offset` (covered by `value`).
    fn write(self, value: &mut [u8], offset: u64, v: i64) {
        let v = v as u64;
        for i in 0..u64::from(self.bits) {
            let on = (v >> (u64::from(self.bits) - 1 - i)) & 1 == 1;
            put_bit(value, offset + i, on);
        }
    }

    /// `value + incr` in this type under `overflow`; `None` when it
    /// overflows under `FAIL`. Redis's arithmetic: wrapping keeps the low
    /// bits (sign-extended for signed fields), saturating clamps.
    fn add(self, value: i64, incr: i64, overflow: Overflow) -> Option<i64> {
        let (min, max) = match (self.signed, self.bits) {
            (true, 64) => (i128::from(i64::MIN), i128::from(i64::MAX)),
            (true, b) => (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1),
            (false, b) => (0, (1i128 << b) - 1),
        };
        // An unsigned field's operand is its bits read as unsigned.
        let value = match self.signed {
            true => i128::from(value),
            false => i128::from(value as u64),
        };
        let sum = value + i128::from(incr);
        if (min..=max).contains(&sum) {
            return Some(sum as i64);
        }
        match overflow {
            Overflow::Fail => None,
            Overflow::Sat => Some(if sum > max { max } else { min } as i64),
            Overflow::Wrap => {
                let low = (sum as u128 as u64) & (u64::MAX >> (64 - self.bits));
                let negative = self.signed && self.bits < 64 && (low >> (self.bits - 1)) & 1 == 1;
                let wrapped = match negative {
                    true => low | (u64::MAX << self.bits),
                    false => low,
                };
                Some(wrapped as i64)
            }
        }
    }
}

/// What happens on overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overflow {
    Wrap,
    Sat,
    Fail,
}

/// One operation, parsed.
#[derive(Debug, Clone, Copy)]
enum Operation {
    Get(Field, u64),
    Set(Field, u64, i64, Overflow),
    IncrBy(Field, u64, i64, Overflow),
}

fn parse(args: &Args<'_>, access: Access, max_bulk: usize) -> Result<Vec<Operation>, RespError> {
    let mut ops = Vec::new();
    let mut overflow = Overflow::Wrap;
    let mut i = 2;
    while i < args.len() {
        let word = args.get(i).to_ascii_lowercase();
        let left = args.len() - i - 1;
        let needs = match word.as_slice() {
            b"get" => 2,
            b"set" | b"incrby" => 3,
            b"overflow" => 1,
            _ => return Err(RespError::Syntax),
        };
        if left < needs {
            return Err(RespError::Syntax);
        }
        if word == b"overflow" {
            overflow = match args.get(i + 1).to_ascii_lowercase().as_slice() {
                b"wrap" => Overflow::Wrap,
                b"sat" => Overflow::Sat,
                b"fail" => Overflow::Fail,
                _ => return Err(RespError::from(ValueError::BitfieldOverflow)),
            };
            i += 2;
            continue;
        }
        let field = Field::parse(args.get(i + 1))?;
        let offset = bit_offset(args.get(i + 2), Some(field.bits), max_bulk)?;
        ops.push(match word.as_slice() {
            b"get" => Operation::Get(field, offset),
            _ => {
                let n = parse_i64(args.get(i + 3)).ok_or(RespError::NotInteger)?;
                match word.as_slice() {
                    b"set" => Operation::Set(field, offset, n, overflow),
                    _ => Operation::IncrBy(field, offset, n, overflow),
                }
            }
        });
        i += needs + 1;
    }
    // Checked once all parse, as Redis does.
    let writes = ops.iter().any(|op| !matches!(op, Operation::Get(..)));
    if access == Access::ReadOnly && writes {
        return Err(RespError::from(ValueError::BitfieldReadOnly));
    }
    Ok(ops)
}

/// Runs `ops` over `value` (grown by the caller to cover every write);
/// the replies, `None` for a `FAIL`ed write.
fn apply(ops: &[Operation], value: &mut [u8]) -> Vec<Option<i64>> {
    ops.iter()
        .map(|&op| match op {
            Operation::Get(field, offset) => Some(field.read(value, offset)),
            Operation::Set(field, offset, n, overflow) => {
                let old = field.read(value, offset);
                // The new value must fit the type, as an increment of zero.
                let new = field.add(n, 0, overflow)?;
                field.write(value, offset, new);
                Some(old)
            }
            Operation::IncrBy(field, offset, incr, overflow) => {
                let old = field.read(value, offset);
                let new = field.add(old, incr, overflow)?;
                field.write(value, offset, new);
                Some(new)
            }
        })
        .collect()
}

/// Runs the operations in order and replies one entry each.
pub fn bitfield<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    access: Access,
) -> Result<(), RespError> {
    let ops = parse(&args, access, ctx.shared.max_bulk())?;
    let write_end = ops
        .iter()
        .filter_map(|op| match *op {
            Operation::Get(..) => None,
            Operation::Set(f, o, ..) | Operation::IncrBy(f, o, ..) => Some(o + u64::from(f.bits)),
        })
        .max();
    let replies = match write_end {
        // Reads only: the key is not created.
        None => {
            let found = ctx
                .store
                .get(args.get(1), |item| match not_string(Some(item)) {
                    true => Err(RespError::WrongType),
                    false => Ok(apply(&ops, &mut item.value.to_vec())),
                });
            match found {
                Some(replies) => replies?,
                None => apply(&ops, &mut []),
            }
        }
        Some(end_bit) => {
            let need = end_bit.div_ceil(8) as usize;
            let max_item = ctx.shared.keyspace.max_item_size();
            let result =
                ctx.store
                    .update(args.get(1), |old| match Grown::from(old, need, max_item) {
                        Ok(mut grown) => {
                            let replies = apply(&ops, &mut grown.value);
                            (
                                Mutation::PutString(StringForm::Edited, grown.into_item()),
                                Ok((replies, old.is_none())),
                            )
                        }
                        Err(err) => (Mutation::Keep, Err(err)),
                    })?;
            let (replies, created) = result?;
            // Redis announces `setbit` when a SET or INCRBY was applied
            // (not refused by OVERFLOW FAIL), `new` for a key created.
            let changes = ops
                .iter()
                .zip(&replies)
                .filter(|(op, reply)| !matches!(op, Operation::Get(..)) && reply.is_some());
            if changes.count() > 0 {
                notify::fire_created(ctx, created, notify::STRING, "setbit", args.get(1));
            } else if created {
                notify::fire(ctx, notify::NEW, "new", args.get(1));
            }
            replies
        }
    };
    out.array(replies.len());
    for reply in replies {
        match reply {
            Some(n) => out.integer(n),
            None => out.null(),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
