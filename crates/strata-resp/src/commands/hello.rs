//! `HELLO [protover [AUTH username password] [SETNAME name]]`: switches the
//! protocol version and replies the server's handshake map.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::client::validate_name;
use crate::number::parse_i64;
use crate::permissions::is_authenticated;
use crate::permissions::log_in;
use crate::reply::{lossy_prefix, RespError};
use crate::shared::REDIS_VERSION;
use crate::writer::{ReplyWriter, RespVersion};

/// `HELLO`: the map `server, version, proto, id, mode, role, modules`.
pub fn hello<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut version = None;
    if args.len() >= 2 {
        let n = parse_i64(args.get(1)).ok_or(RespError::ProtocolVersionNotInteger)?;
        version = Some(match n {
            2 => RespVersion::Resp2,
            3 => RespVersion::Resp3,
            _ => return Err(RespError::NoProto),
        });
    }
    let (mut credentials, mut name) = (None, None);
    let mut i = 2;
    while i < args.len() {
        let opt = args.get(i);
        let more = args.len() - 1 - i;
        if opt.eq_ignore_ascii_case(b"auth") && more >= 2 {
            credentials = Some((args.get(i + 1), args.get(i + 2)));
            i += 3;
        } else if opt.eq_ignore_ascii_case(b"setname") && more >= 1 {
            let n = args.get(i + 1);
            validate_name(n)?;
            name = Some(n);
            i += 2;
        } else {
            return Err(RespError::HelloSyntax(lossy_prefix(opt, 128)));
        }
    }
    if let Some((user, password)) = credentials {
        log_in(ctx.shared, ctx.conn, user, password, "HELLO")?;
    }
    if !is_authenticated(ctx.shared, ctx.conn) {
        return Err(RespError::NoAuthHello);
    }
    if let Some(name) = name {
        let name = (!name.is_empty()).then(|| String::from_utf8_lossy(name).into_owned());
        *ctx.conn.client.name.lock() = name;
    }
    if let Some(version) = version {
        ctx.conn.set_version(version);
        out.set_version(version);
    }
    out.map(7);
    out.bulk(b"server");
    out.bulk(b"redis");
    out.bulk(b"version");
    out.bulk(REDIS_VERSION.as_bytes());
    out.bulk(b"proto");
    out.integer(ctx.conn.version.number());
    out.bulk(b"id");
    out.integer(i64::try_from(ctx.conn.client.id).unwrap_or(i64::MAX));
    out.bulk(b"mode");
    out.bulk(match ctx.shared.cluster.get() {
        Some(_) => b"cluster".as_slice(),
        None => b"standalone",
    });
    out.bulk(b"role");
    out.bulk(b"master");
    out.bulk(b"modules");
    out.array(0);
    Ok(())
}
