//! Just enough RESP: arrays of bulk strings in, `SET`/`GET` replies out.

use crate::Map;

/// One request at the front of `buf`: its arguments and its length, or
/// `None` while it is incomplete (or malformed: the connection then waits,
/// which is all a load generator's well-formed requests need).
fn parse(buf: &[u8]) -> Option<(Vec<&[u8]>, usize)> {
    // A `*N` or `$N` line from `at`: N and where the next line starts.
    let line = |at: usize| -> Option<(usize, usize)> {
        let end = buf.get(at..)?.windows(2).position(|w| w == b"\r\n")? + at;
        let n = std::str::from_utf8(buf.get(at + 1..end)?)
            .ok()?
            .parse()
            .ok()?;
        Some((n, end + 2))
    };
    let (count, mut at) = line(0)?;
    let mut args = Vec::with_capacity(count.min(16));
    for _ in 0..count {
        let (len, from) = line(at)?;
        args.push(buf.get(from..from + len)?);
        at = from + len + 2;
        if at > buf.len() {
            return None;
        }
    }
    Some((args, at))
}

/// Runs every complete request in `input`, appending replies to `out`;
/// returns the bytes used.
pub fn execute(map: &mut Map, input: &[u8], out: &mut Vec<u8>) -> usize {
    let mut used = 0;
    while let Some((args, n)) = parse(&input[used..]) {
        used += n;
        let command = args.first().map(|c| c.to_ascii_uppercase());
        match (command.as_deref(), args.get(1), args.get(2)) {
            (Some(b"SET"), Some(key), Some(value)) => {
                map.insert(key.to_vec(), value.to_vec());
                out.extend_from_slice(b"+OK\r\n");
            }
            (Some(b"GET"), Some(key), _) => match map.get(*key) {
                Some(v) => {
                    out.extend_from_slice(format!("${}\r\n", v.len()).as_bytes());
                    out.extend_from_slice(v);
                    out.extend_from_slice(b"\r\n");
                }
                None => out.extend_from_slice(b"$-1\r\n"),
            },
            _ => out.extend_from_slice(b"+OK\r\n"),
        }
    }
    used
}
