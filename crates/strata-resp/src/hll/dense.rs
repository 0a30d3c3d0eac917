//! The dense encoding: 16,384 registers of 6 bits, packed from the least
//! significant bit of each byte (Redis's `HLL_DENSE_GET_REGISTER`).

use super::format::{HEADER, REGISTERS};

/// Bytes of a dense HyperLogLog, header included.
pub const DENSE_SIZE: usize = HEADER + (REGISTERS * 6).div_ceil(8);

/// Register `i` of `registers`.
pub fn get(registers: &[u8], i: usize) -> u8 {
    let (byte, shift) = (i * 6 / 8, (i * 6) & 7);
    let b0 = u16::from(registers[byte]);
    let b1 = u16::from(registers.get(byte + 1).copied().unwrap_or(0));
    (((b0 >> shift) | (b1 << (8 - shift))) & 63) as u8
}

/// Writes `value` into register `i`.
pub fn put(registers: &mut [u8], i: usize, value: u8) {
    let (byte, shift) = (i * 6 / 8, (i * 6) & 7);
    let v = u16::from(value);
    registers[byte] &= !((63u16 << shift) as u8);
    registers[byte] |= (v << shift) as u8;
    if let Some(next) = registers.get_mut(byte + 1) {
        *next &= !((63u16 >> (8 - shift)) as u8);
        *next |= (v >> (8 - shift)) as u8;
    }
}

/// Raises register `i` to `count` if below; true when it changed.
pub fn set(registers: &mut [u8], i: usize, count: u8) -> bool {
    match count > get(registers, i) {
        true => {
            put(registers, i, count);
            true
        }
        false => false,
    }
}
