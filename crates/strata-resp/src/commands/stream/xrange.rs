//! `XRANGE key start end [COUNT count]`, `XREVRANGE key end start [COUNT
//! count]`.

use strata_kv::Store;

use super::entries::entry;
use super::stored::read;
use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{RespError, StreamError};
use crate::stream::StreamId;
use crate::writer::ReplyWriter;

/// Which way the range is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// `XRANGE`: oldest first.
    Forward,
    /// `XREVRANGE`: newest first (end bound given first).
    Reverse,
}

/// The entries between the bounds (`-`, `+`, `(` for exclusive, a
/// missing sequence 0 at the start and the largest at the end), at most
/// `COUNT` (0: a null array, as Redis answers).
pub fn xrange<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    order: Order,
) -> Result<(), RespError> {
    let (start_arg, end_arg) = match order {
        Order::Forward => (args.get(2), args.get(3)),
        Order::Reverse => (args.get(3), args.get(2)),
    };
    let start = StreamId::parse_bound(start_arg, 0, true)?.ok_or(StreamError::InvalidStart)?;
    let end = StreamId::parse_bound(end_arg, u64::MAX, false)?.ok_or(StreamError::InvalidEnd)?;
    let mut count: Option<usize> = None;
    let mut i = 4;
    while i < args.len() {
        if args.get(i).eq_ignore_ascii_case(b"count") && i + 1 < args.len() {
            let n = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
            count = Some(usize::try_from(n.max(0)).unwrap_or(usize::MAX));
            i += 2;
        } else {
            return Err(RespError::Syntax);
        }
    }
    let written = read(ctx.store, args.get(1), |s| {
        if count == Some(0) {
            out.null_array();
            return Ok(());
        }
        let reverse = order == Order::Reverse;
        let found = s.range(start, end, count.unwrap_or(usize::MAX), reverse)?;
        out.array(found.len());
        found.iter().for_each(|e| entry(out, e));
        Ok(())
    })?;
    if written.is_none() {
        out.array(0);
    }
    Ok(())
}
