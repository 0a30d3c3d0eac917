//! Redis RESP: commands as arrays of bulk strings, and reply framing.
//!
//! Replies handled: simple strings (`+`), errors (`-`), integers (`:`), bulk strings (`$`,
//! including the nil `$-1`), arrays (`*`, including the nil `*-1`, nested up to
//! [`MAX_DEPTH`]) and the RESP3 null (`_`).

use super::{
    parse_u64, push_decimal, show, split_line, ProtocolError, Reply, ReplyKind, MAX_DEPTH,
};

/// Appends `args` as one command: `*<n>\r\n` then `$<len>\r\n<arg>\r\n` per argument.
pub fn encode_command(out: &mut Vec<u8>, args: &[&[u8]]) {
    out.push(b'*');
    push_decimal(out, args.len());
    out.extend_from_slice(b"\r\n");
    for arg in args {
        out.push(b'$');
        push_decimal(out, arg.len());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
}

/// Frames the reply at the front of `buf` (see [`super::Protocol::parse_reply`]).
pub fn parse_reply(buf: &[u8]) -> Result<Option<Reply>, ProtocolError> {
    Ok(frame(buf, 0, 0)?.map(|(kind, len)| Reply { kind, len }))
}

/// Frames the value starting at `pos`; returns its kind and the position just past it.
fn frame(
    buf: &[u8],
    pos: usize,
    depth: usize,
) -> Result<Option<(ReplyKind, usize)>, ProtocolError> {
    let Some(&tag) = buf.get(pos) else {
        return Ok(None);
    };
    let Some((line, line_len)) = split_line(&buf[pos + 1..])? else {
        return Ok(None);
    };
    let after = pos + 1 + line_len;
    let kind = match tag {
        b'+' => ReplyKind::Success,
        b'-' => ReplyKind::Error,
        b':' => {
            integer(line)?;
            ReplyKind::Success
        }
        b'_' if line.is_empty() => ReplyKind::Miss,
        b'$' => {
            let Some(len) = length(line)? else {
                return Ok(Some((ReplyKind::Miss, after)));
            };
            let end = after
                .checked_add(len)
                .ok_or_else(|| ProtocolError::BadNumber(show(line)))?;
            // Checking the length first keeps the incomplete path O(1) for large values.
            let Some(crlf) = buf.get(end..end + 2) else {
                return Ok(None);
            };
            if crlf != b"\r\n" {
                return Err(ProtocolError::MissingCrlf);
            }
            return Ok(Some((ReplyKind::Hit, end + 2)));
        }
        b'*' => {
            let Some(count) = length(line)? else {
                return Ok(Some((ReplyKind::Miss, after)));
            };
            if depth >= MAX_DEPTH {
                return Err(ProtocolError::TooDeep);
            }
            let mut next = after;
            for _ in 0..count {
                match frame(buf, next, depth + 1)? {
                    Some((_, end)) => next = end,
                    None => return Ok(None),
                }
            }
            return Ok(Some((ReplyKind::Success, next)));
        }
        b'_' => return Err(ProtocolError::UnexpectedLine(show(line))),
        other => return Err(ProtocolError::UnknownType(other)),
    };
    Ok(Some((kind, after)))
}

/// The last element of a complete array reply of bulk strings (e.g. BLPOP's
/// `[key, element]`), or `None` for anything else (nil, empty, other types).
pub fn array_last_bulk(reply: &[u8]) -> Option<&[u8]> {
    let (line, mut pos) = split_line(reply.strip_prefix(b"*")?).ok()??;
    let count = length(line).ok()??;
    pos += 1;
    let mut last = None;
    for _ in 0..count {
        let (header, header_len) = split_line(reply.get(pos + 1..)?).ok()??;
        if reply[pos] != b'$' {
            return None;
        }
        let len = length(header).ok()??;
        let start = pos + 1 + header_len;
        last = Some(reply.get(start..start + len)?);
        pos = start + len + 2;
    }
    last
}

/// The value of an integer reply (`:n`), or `None` for any other reply.
pub fn integer_value(reply: &[u8]) -> Option<u64> {
    let (line, _) = split_line(reply.strip_prefix(b":")?).ok()??;
    parse_u64(line)
}

/// Parses a RESP length: `Some(n)` for `n >= 0`, `None` for `-1` (nil).
fn length(line: &[u8]) -> Result<Option<usize>, ProtocolError> {
    if line == b"-1" {
        return Ok(None);
    }
    parse_u64(line)
        .and_then(|n| usize::try_from(n).ok())
        .map(Some)
        .ok_or_else(|| ProtocolError::BadNumber(show(line)))
}

/// Checks a RESP integer: an optional `-` and decimal digits fitting in 64 bits.
fn integer(line: &[u8]) -> Result<(), ProtocolError> {
    let magnitude = line.strip_prefix(b"-").unwrap_or(line);
    match parse_u64(magnitude) {
        Some(_) => Ok(()),
        None => Err(ProtocolError::BadNumber(show(line))),
    }
}
