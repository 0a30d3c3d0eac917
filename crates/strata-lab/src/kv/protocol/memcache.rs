//! memcached text protocol: `set`/`get`/`flush_all` requests and reply framing.
//!
//! Replies handled: storage statuses (`STORED`, `NOT_STORED`, `EXISTS`, `NOT_FOUND`), `OK`,
//! `DELETED`, `TOUCHED`, numeric `incr`/`decr` results, retrievals (`VALUE <key> <flags>
//! <bytes> [<cas>]` + data blocks, closed by `END`) and the three error lines.

use super::{parse_u64, push_decimal, show, split_line, ProtocolError, Reply, ReplyKind};

/// Appends `set <key> 0 0 <n>\r\n<value>\r\n`.
pub fn encode_set(out: &mut Vec<u8>, key: &[u8], value: &[u8]) {
    out.extend_from_slice(b"set ");
    out.extend_from_slice(key);
    out.extend_from_slice(b" 0 0 ");
    push_decimal(out, value.len());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// Appends `get <key>\r\n`.
pub fn encode_get(out: &mut Vec<u8>, key: &[u8]) {
    out.extend_from_slice(b"get ");
    out.extend_from_slice(key);
    out.extend_from_slice(b"\r\n");
}

/// Appends `flush_all\r\n`.
pub fn encode_flush(out: &mut Vec<u8>) {
    out.extend_from_slice(b"flush_all\r\n");
}

/// Frames the reply at the front of `buf` (see [`super::Protocol::parse_reply`]).
pub fn parse_reply(buf: &[u8]) -> Result<Option<Reply>, ProtocolError> {
    let Some((line, len)) = split_line(buf)? else {
        return Ok(None);
    };
    let kind = match first_word(line) {
        b"VALUE" => return parse_retrieval(buf),
        b"END" | b"NOT_STORED" | b"EXISTS" | b"NOT_FOUND" => ReplyKind::Miss,
        b"STORED" | b"OK" | b"DELETED" | b"TOUCHED" => ReplyKind::Success,
        b"ERROR" | b"CLIENT_ERROR" | b"SERVER_ERROR" => ReplyKind::Error,
        word if parse_u64(word).is_some() && word.len() == line.len() => ReplyKind::Success,
        _ => return Err(ProtocolError::UnexpectedLine(show(line))),
    };
    Ok(Some(Reply { kind, len }))
}

/// Frames `VALUE` blocks up to and including the closing `END` line.
fn parse_retrieval(buf: &[u8]) -> Result<Option<Reply>, ProtocolError> {
    let mut pos = 0;
    loop {
        let Some((line, line_len)) = split_line(&buf[pos..])? else {
            return Ok(None);
        };
        match first_word(line) {
            b"END" => {
                return Ok(Some(Reply {
                    kind: ReplyKind::Hit,
                    len: pos + line_len,
                }))
            }
            b"VALUE" => {
                let data_len = value_data_len(line)?;
                let data_start = pos + line_len;
                let data_end = data_start
                    .checked_add(data_len)
                    .ok_or_else(|| ProtocolError::BadNumber(show(line)))?;
                // Checking the length first keeps the incomplete path O(1) for large values.
                let Some(crlf) = buf.get(data_end..data_end + 2) else {
                    return Ok(None);
                };
                if crlf != b"\r\n" {
                    return Err(ProtocolError::MissingCrlf);
                }
                pos = data_end + 2;
            }
            _ => return Err(ProtocolError::UnexpectedLine(show(line))),
        }
    }
}

/// The `<bytes>` field of `VALUE <key> <flags> <bytes> [<cas>]`.
fn value_data_len(line: &[u8]) -> Result<usize, ProtocolError> {
    let mut fields = line.split(|&b| b == b' ').filter(|f| !f.is_empty());
    let bytes = fields
        .nth(3)
        .ok_or_else(|| ProtocolError::UnexpectedLine(show(line)))?;
    parse_u64(bytes)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| ProtocolError::BadNumber(show(line)))
}

fn first_word(line: &[u8]) -> &[u8] {
    let end = memchr::memchr(b' ', line).unwrap_or(line.len());
    &line[..end]
}
