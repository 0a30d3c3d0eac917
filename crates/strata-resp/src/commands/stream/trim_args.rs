//! The options `XADD` and `XTRIM` share (`MAXLEN`/`MINID [=|~] threshold
//! [LIMIT count]`, and `XADD`'s `NOMKSTREAM` and identifier), read as
//! Redis's `streamParseAddOrTrimArgsOrReply` reads them.

use crate::args::Args;
use crate::number::parse_i64;
use crate::reply::{RespError, StreamError};
use crate::stream::{Spelled, Strategy, StreamId, Trim, DEFAULT_LIMIT};

/// What the options said.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The trim asked for, if any.
    pub trim: Option<Trim>,
    /// `XADD ... NOMKSTREAM`.
    pub no_mkstream: bool,
    /// `XADD`'s identifier (`None`: `*`).
    pub id: Option<Spelled>,
    /// Where `XADD`'s identifier is (its fields follow).
    pub id_at: usize,
}

/// Reads the options from argument 2 on; `xadd` also reads the identifier
/// that ends them.
pub fn parse(args: &Args<'_>, xadd: bool) -> Result<Parsed, RespError> {
    let mut parsed = Parsed::default();
    let mut strategy = None;
    let mut approx = false;
    let mut limit: Option<u64> = None;
    let mut i = 2;
    while i < args.len() {
        let more = args.len() - 1 - i;
        let opt = args.get(i);
        if xadd && opt == b"*" {
            break;
        } else if (opt.eq_ignore_ascii_case(b"maxlen") || opt.eq_ignore_ascii_case(b"minid"))
            && more > 0
        {
            if strategy.is_some() {
                return Err(StreamError::MaxLenAndMinId.into());
            }
            approx = false;
            let next = args.get(i + 1);
            if more >= 2 && (next == b"~" || next == b"=") {
                approx = next == b"~";
                i += 1;
            }
            let threshold = args.get(i + 1);
            strategy = Some(if opt.eq_ignore_ascii_case(b"maxlen") {
                let n = parse_i64(threshold).ok_or(RespError::NotInteger)?;
                Strategy::MaxLen(u64::try_from(n).map_err(|_| StreamError::MaxLenNegative)?)
            } else {
                Strategy::MinId(StreamId::parse(threshold, 0, true)?)
            });
            i += 1;
        } else if opt.eq_ignore_ascii_case(b"limit") && more > 0 {
            let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
            limit = Some(u64::try_from(n).map_err(|_| StreamError::LimitNegative)?);
            i += 1;
        } else if xadd && opt.eq_ignore_ascii_case(b"nomkstream") {
            parsed.no_mkstream = true;
        } else if xadd {
            parsed.id = Some(Spelled::parse(opt, 0, true, true)?);
            break;
        } else {
            return Err(RespError::Syntax);
        }
        i += 1;
    }
    parsed.id_at = i;
    if limit.is_some_and(|n| n > 0) && strategy.is_none() {
        return Err(StreamError::LimitWithoutStrategy.into());
    }
    let Some(strategy) = strategy else {
        if !xadd {
            return Err(StreamError::TrimWithoutStrategy.into());
        }
        return Ok(parsed);
    };
    let limit = match limit {
        Some(_) if !approx => return Err(StreamError::LimitWithoutApprox.into()),
        Some(n) => n,
        None if approx => DEFAULT_LIMIT,
        None => 0,
    };
    parsed.trim = Some(Trim {
        strategy,
        approx,
        limit,
    });
    Ok(parsed)
}
