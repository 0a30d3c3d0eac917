//! `INFO [section ...]`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The report of the asked sections (RESP3: a verbatim `txt` string).
pub fn info<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sections: Vec<&[u8]> = args.iter_from(1).collect();
    let text = crate::info::render(ctx.shared, &sections);
    out.verbatim("txt", text.as_bytes());
    Ok(())
}
