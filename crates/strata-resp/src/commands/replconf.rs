//! `REPLCONF option value [option value ...]`: what a replica or a
//! snapshot tool tells the master before `SYNC`. Strata serves RDB
//! snapshots only (`sync.rs`): `rdb-only 1` and `rdb-filter-only` (an
//! empty filter, or `functions`) shape the snapshot; `listening-port`,
//! `ip-address` and `capa` are checked and accepted as Redis accepts
//! them; `ack` and `getack`, which only replicas and masters send, are
//! answered with nothing, as Redis answers them from a plain client.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{lossy_prefix, ClientError, RespError};
use crate::writer::ReplyWriter;

/// Longest `ip-address` Redis keeps (`NET_HOST_STR_LEN`).
const HOST_MAX: usize = 256;

/// `REPLCONF`.
pub fn replconf<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if args.len() % 2 == 0 {
        return Err(RespError::Syntax);
    }
    let request = &mut ctx.conn.snapshot;
    for i in (1..args.len()).step_by(2) {
        let value = args.get(i + 1);
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"listening-port" => {
                parse_i64(value).ok_or(RespError::NotInteger)?;
            }
            b"ip-address" if value.len() >= HOST_MAX => {
                return Err(ClientError::ReplicaAddressTooLong(value.len()).into());
            }
            b"ip-address" | b"capa" => {}
            // From replicas (and masters) only: no reply, as Redis.
            b"ack" | b"getack" => return Ok(()),
            b"rdb-only" => match parse_i64(value).ok_or(RespError::NotInteger)? {
                0 => request.rdb_only = false,
                1 => request.rdb_only = true,
                _ => return Err(ClientError::RangeZeroOne.into()),
            },
            b"rdb-filter-only" => {
                let text = String::from_utf8_lossy(value);
                let mut functions = false;
                for filter in text.split_whitespace() {
                    if !filter.eq_ignore_ascii_case("functions") {
                        return Err(
                            ClientError::RdbFilter(lossy_prefix(filter.as_bytes(), 128)).into()
                        );
                    }
                    functions = true;
                }
                request.exclude_data = true;
                request.exclude_functions = !functions;
            }
            _ => {
                return Err(ClientError::ReplconfOption(lossy_prefix(args.get(i), 128)).into());
            }
        }
    }
    out.ok();
    Ok(())
}
