//! `PFDEBUG GETREG|DECODE|ENCODING|TODENSE key`: Redis's internal view of a
//! HyperLogLog. `GETREG` and `TODENSE` convert a sparse one to the dense
//! encoding and store it (the header and expiry kept, no keyspace event),
//! as Redis does.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use super::value::hll_of;
use crate::args::Args;
use crate::command::Ctx;
use crate::hll::{Hll, REGISTERS};
use crate::reply::{RespError, ValueError};
use crate::writer::ReplyWriter;

/// What a subcommand answers.
enum Answer {
    Registers(Box<[u8; REGISTERS]>),
    Decoded(String),
    Encoding(&'static str),
    Converted(bool),
}

/// Runs the subcommand on the key; a missing key, then a value that is
/// not a HyperLogLog, are refused before the subcommand's name is looked at.
pub fn pfdebug<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = args.get(1);
    let answer = ctx.store.update(args.get(2), |old| {
        let Some(item) = old else {
            return (Mutation::Keep, Err(ValueError::NoSuchHllKey.into()));
        };
        let mut hll = match hll_of(item) {
            Ok(hll) => hll,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let was_sparse = !hll.is_dense();
        let answer = match sub.to_ascii_lowercase().as_slice() {
            b"getreg" => registers(&mut hll).map(Answer::Registers),
            b"todense" => hll
                .to_dense()
                .map(|()| Answer::Converted(was_sparse))
                .map_err(RespError::from),
            b"decode" => match hll.decode_sparse() {
                Some(decoded) => decoded.map(Answer::Decoded).map_err(RespError::from),
                None => Err(ValueError::HllNotSparse.into()),
            },
            b"encoding" => Ok(Answer::Encoding(if was_sparse {
                "sparse"
            } else {
                "dense"
            })),
            _ => Err(ValueError::UnknownPfDebug(String::from_utf8_lossy(sub).into_owned()).into()),
        };
        let converted = matches!(answer, Ok(Answer::Registers(_) | Answer::Converted(true)));
        if !(converted && was_sparse) {
            return (Mutation::Keep, answer);
        }
        let stored = NewItem {
            value: Cow::Owned(hll.into_bytes()),
            flags: item.flags,
            expires_at: item.expires_at,
        };
        (Mutation::Put(stored), answer)
    })??;
    match answer {
        Answer::Registers(registers) => {
            out.array(REGISTERS);
            for r in registers.iter() {
                out.integer(i64::from(*r));
            }
        }
        Answer::Decoded(text) => out.bulk(text.as_bytes()),
        Answer::Encoding(name) => out.simple(name),
        Answer::Converted(done) => out.integer(i64::from(done)),
    }
    Ok(())
}

/// Every register, after converting `hll` to the dense encoding.
fn registers(hll: &mut Hll) -> Result<Box<[u8; REGISTERS]>, RespError> {
    hll.to_dense()?;
    let mut registers = Box::new([0u8; REGISTERS]);
    hll.registers(&mut registers)?;
    Ok(registers)
}
