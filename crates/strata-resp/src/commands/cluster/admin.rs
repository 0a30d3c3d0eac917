//! Changes of cluster topology asked of a one-node cluster. Where a lone
//! Redis master owning every slot has an answer, this is it: `ADDSLOTS`
//! and `ADDSLOTSRANGE` find every slot busy, `FORGET` and `REPLICATE`
//! know no other node and refuse this one, `FAILOVER` is for replicas,
//! `SAVECONFIG` writes the cluster config file. What would need a cluster bus or
//! would leave slots unserved (`MEET`, `DELSLOTS`, `DELSLOTSRANGE`,
//! `FLUSHSLOTS`, `SETSLOT`, `RESET`) is refused, saying so.

use crate::args::Args;
use crate::cluster::{ClusterNode, SLOTS};
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

use super::topology::{known, save};

/// Answers subcommand `name`.
pub(super) fn answer(
    node: &ClusterNode,
    name: &str,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match name {
        "addslots" => {
            let slots: Vec<u16> = args.iter_from(2).map(slot).collect::<Result<_, _>>()?;
            // Every slot is this node's already.
            Err(ClientError::SlotBusy(slots.first().copied().unwrap_or(0)).into())
        }
        "addslotsrange" => {
            if args.len() % 2 != 0 {
                return Err(RespError::WrongArity("cluster|addslotsrange".into()));
            }
            let mut first = None;
            for pair in (2..args.len()).step_by(2) {
                let (start, end) = (slot(args.get(pair))?, slot(args.get(pair + 1))?);
                if start > end {
                    return Err(ClientError::SlotRangeOrder(start, end).into());
                }
                first.get_or_insert(start);
            }
            Err(ClientError::SlotBusy(first.unwrap_or(0)).into())
        }
        "forget" | "replicate" => {
            known(node, args.get(2))?;
            Err(match name {
                "forget" => ClientError::ForgetMyself,
                _ => ClientError::ReplicateMyself,
            }
            .into())
        }
        "failover" => {
            let option = args.len() == 3
                && (args.get(2).eq_ignore_ascii_case(b"force")
                    || args.get(2).eq_ignore_ascii_case(b"takeover"));
            if args.len() > 2 && !option {
                return Err(RespError::Syntax);
            }
            Err(ClientError::FailoverOnMaster.into())
        }
        "saveconfig" => {
            save(node)?;
            out.ok();
            Ok(())
        }
        other => Err(ClientError::OneNodeCluster(other.to_ascii_uppercase()).into()),
    }
}

/// A slot argument, as Redis's `getSlotOrReply` reads it.
fn slot(arg: &[u8]) -> Result<u16, RespError> {
    parse_i64(arg)
        .and_then(|n| u16::try_from(n).ok())
        .filter(|&s| s < SLOTS)
        .ok_or_else(|| ClientError::SlotOutOfRange.into())
}
