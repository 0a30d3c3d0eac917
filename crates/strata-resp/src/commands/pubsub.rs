//! `PUBSUB CHANNELS [pattern]`, `NUMSUB [channel ...]`, `NUMPAT`,
//! `SHARDCHANNELS [pattern]`, `SHARDNUMSUB [channel ...]` and `HELP`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::pubsub::Kind;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> (default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, excluding",
    "    pattern subscriptions(default: no channels).",
    "SHARDCHANNELS [<pattern>]",
    "    Return the currently active shard level channels matching a <pattern> (default: '*').",
    "SHARDNUMSUB [<shardchannel> ...]",
    "    Return the number of subscribers for the specified shard level channel(s)",
    "HELP",
    "    Prints this help.",
];

/// `PUBSUB <subcommand>`.
pub fn pubsub<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("pubsub", &args)?;
    let hub = &ctx.shared.pubsub;
    match sub.name {
        "pubsub|channels" | "pubsub|shardchannels" => {
            let kind = match sub.name {
                "pubsub|channels" => Kind::Channel,
                _ => Kind::Shard,
            };
            let pattern = (args.len() > 2).then(|| args.get(2));
            let names = hub.active(kind, pattern);
            out.array(names.len());
            for name in names {
                out.bulk(&name);
            }
        }
        "pubsub|numsub" | "pubsub|shardnumsub" => {
            let kind = match sub.name {
                "pubsub|numsub" => Kind::Channel,
                _ => Kind::Shard,
            };
            out.map(args.len() - 2);
            for name in args.iter_from(2) {
                out.bulk(name);
                out.integer(hub.count(kind, name) as i64);
            }
        }
        "pubsub|numpat" => out.integer(hub.patterns() as i64),
        _ => write_help(out, HELP),
    }
    Ok(())
}
