//! `ROLE`: the node's part in replication. Strata has no replicas and
//! follows no master, so it is a master at replication offset 0 with no
//! replicas, as a standalone Redis answers.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `ROLE` → `["master", 0, []]`.
pub fn role<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    _args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    out.array(3);
    out.bulk(b"master");
    out.integer(0);
    out.array(0);
    Ok(())
}
