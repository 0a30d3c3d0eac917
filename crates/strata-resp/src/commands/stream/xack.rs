//! `XACK`: being written (consumer groups).

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Not written yet: refuses.
pub fn xack<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    _out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    Err(RespError::Syntax)
}
