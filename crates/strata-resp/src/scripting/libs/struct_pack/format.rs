//! Format strings: byte order, alignment (`!n`), and each option's size,
//! as lua_struct.c reads them.

use mlua::{Lua, Result};

use super::super::lua_errors::lua_error;
use super::args::arg_error;

/// Largest `i`/`I` size (MAXINTSIZE).
pub(super) const MAX_INT_SIZE: usize = 32;
/// `!` without a number: the C struct {char; double} alignment on x86-64.
pub(super) const MAX_ALIGN: usize = 8;

/// Byte order and maximum alignment (`Header` in the C code).
pub(super) struct Header {
    pub(super) little: bool,
    pub(super) align: usize,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            little: cfg!(target_endian = "little"),
            align: 1,
        }
    }
}

/// The format string, cut at its first NUL.
pub(super) struct Fmt<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
}

impl<'a> Fmt<'a> {
    pub(super) fn new(s: &'a [u8]) -> Self {
        let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
        Fmt { s: &s[..end], i: 0 }
    }

    pub(super) fn next_opt(&mut self) -> Option<u8> {
        let c = *self.s.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    /// `getnum`: an optional decimal number that must fit in a C int.
    pub(super) fn getnum(&mut self, lua: &Lua, df: usize) -> Result<usize> {
        let mut a: Option<i32> = None;
        while let Some(d) = self.s.get(self.i).filter(|c| c.is_ascii_digit()) {
            let (d, cur) = (i32::from(d - b'0'), a.unwrap_or(0));
            if cur > i32::MAX / 10 || cur * 10 > i32::MAX - d {
                return Err(lua_error(lua, "integral size overflow"));
            }
            a = Some(cur * 10 + d);
            self.i += 1;
        }
        Ok(a.map_or(df, |a| a as usize))
    }

    /// `optsize`: the size an option occupies (0 for `s` and control options).
    pub(super) fn optsize(&mut self, lua: &Lua, opt: u8) -> Result<usize> {
        Ok(match opt {
            b'B' | b'b' | b'x' => 1,
            b'H' | b'h' => 2,
            b'f' => 4,
            b'L' | b'l' | b'T' | b'd' => 8,
            b'c' => self.getnum(lua, 1)?,
            b'i' | b'I' => {
                let sz = self.getnum(lua, 4)?;
                if sz > MAX_INT_SIZE {
                    let msg = format!("integral size {sz} is larger than limit of {MAX_INT_SIZE}");
                    return Err(lua_error(lua, &msg));
                }
                sz
            }
            _ => 0,
        })
    }

    /// `controloptions`: spaces, byte order and alignment; anything else is invalid.
    pub(super) fn control(&mut self, lua: &Lua, opt: u8, h: &mut Header) -> Result<()> {
        match opt {
            b' ' => {}
            b'>' => h.little = false,
            b'<' => h.little = true,
            b'!' => {
                let a = self.getnum(lua, MAX_ALIGN)?;
                if !a.is_power_of_two() {
                    let msg = format!("alignment {a} is not a power of 2");
                    return Err(lua_error(lua, &msg));
                }
                h.align = a;
            }
            _ => {
                let c = String::from_utf8_lossy(&[opt]).into_owned();
                return Err(arg_error(lua, 1, &format!("invalid format option '{c}'")));
            }
        }
        Ok(())
    }
}

/// `gettoalign`: padding before an item of `size` bytes at offset `len`.
pub(super) fn gettoalign(len: u64, h: &Header, opt: u8, size: usize) -> u64 {
    if size == 0 || opt == b'c' {
        return 0;
    }
    let size = size.min(h.align) as u64;
    // `len & (size - 1)` is below `size`, so this never underflows.
    (size - (len & (size - 1))) & (size - 1)
}

pub(super) fn is_integer_opt(opt: u8) -> bool {
    b"bBhHlLTiI".contains(&opt)
}

/// Bytes read as one unsigned number; bytes past the eighth shift out, as in C.
pub(super) fn read_uint(b: &[u8], little: bool) -> u64 {
    let fold = |l: u64, &x: &u8| (l << 8) | u64::from(x);
    if little {
        b.iter().rev().fold(0, fold)
    } else {
        b.iter().fold(0, fold)
    }
}
