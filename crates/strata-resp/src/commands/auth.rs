//! `AUTH [username] password`: log in as an ACL user (`default` when no
//! name is given, whose password is `requirepass`).

use strata_kv::Store;

use crate::acl::DEFAULT_USER;
use crate::args::Args;
use crate::command::Ctx;
use crate::permissions::log_in;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `AUTH`: `+OK` and the connection runs as the user, or `WRONGPASS`
/// (the connection keeps its user).
pub fn auth<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (user, password) = match args.len() {
        2 => {
            // Redis refuses the one-argument form while the default user
            // takes any password: it is almost surely a misconfiguration.
            if ctx.shared.acl.default_user().nopass {
                return Err(RespError::AuthNotConfigured);
            }
            (DEFAULT_USER, args.get(1))
        }
        3 => (args.get(1), args.get(2)),
        _ => return Err(RespError::Syntax),
    };
    log_in(ctx.shared, ctx.conn, user, password, "AUTH")?;
    out.ok();
    Ok(())
}
