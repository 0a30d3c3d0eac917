//! The debugger client's commands as they arrive: RESP arrays of bulk
//! strings, read as Redis's debugger reads them (`ldbReplParseCommand`):
//! at most [`MAX_ARGS`] arguments of 1 to [`MAX_ARG_LEN`] bytes each;
//! anything else is a protocol error, which ends the script.

/// Most arguments in one debugger command.
const MAX_ARGS: usize = 1024;
/// Most bytes in one argument.
const MAX_ARG_LEN: usize = 1024;

/// What the bytes received so far hold.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Parsed {
    /// A whole command, and the bytes it took.
    Command(Vec<Vec<u8>>, usize),
    /// Not a whole command yet.
    Incomplete,
    /// Not a command.
    Invalid,
}

/// Parses the command at the front of `buf`.
pub(super) fn parse(buf: &[u8]) -> Parsed {
    if buf.is_empty() {
        return Parsed::Incomplete;
    }
    // As Redis: whatever comes before the first `*` is skipped.
    let Some(start) = buf.iter().position(|&b| b == b'*') else {
        return Parsed::Invalid;
    };
    let mut at = start + 1;
    let Some((count, next)) = number_line(buf, at) else {
        return incomplete_or(buf, at);
    };
    let Some(count) = count.filter(|&n| (1..=MAX_ARGS as i64).contains(&n)) else {
        return Parsed::Invalid;
    };
    at = next;
    let mut argv = Vec::with_capacity(count as usize);
    while argv.len() < count as usize {
        match buf.get(at) {
            None => return Parsed::Incomplete,
            Some(b'$') => {}
            Some(_) => return Parsed::Invalid,
        }
        let Some((len, next)) = number_line(buf, at + 1) else {
            return incomplete_or(buf, at + 1);
        };
        let Some(len) = len.filter(|&n| (1..=MAX_ARG_LEN as i64).contains(&n)) else {
            return Parsed::Invalid;
        };
        let end = next + len as usize;
        if buf.len() < end + 2 {
            return Parsed::Incomplete;
        }
        if &buf[end..end + 2] != b"\r\n" {
            return Parsed::Invalid;
        }
        argv.push(buf[next..end].to_vec());
        at = end + 2;
    }
    Parsed::Command(argv, at)
}

/// The number on the line starting at `at` and where the next line
/// starts (`Some(None)` inside: the line is whole but no number); `None`
/// when the line has no end yet.
fn number_line(buf: &[u8], at: usize) -> Option<(Option<i64>, usize)> {
    let rest = buf.get(at..)?;
    let end = rest.windows(2).position(|w| w == b"\r\n")?;
    let number = std::str::from_utf8(&rest[..end])
        .ok()
        .and_then(|s| s.parse().ok());
    Some((number, at + end + 2))
}

/// A line without its end is incomplete unless it is already too long to
/// be a number.
fn incomplete_or(buf: &[u8], at: usize) -> Parsed {
    match buf.len().saturating_sub(at) > 32 {
        true => Parsed::Invalid,
        false => Parsed::Incomplete,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_as_ldb_reads_them() {
        let step = b"*1\r\n$4\r\nstep\r\n";
        assert_eq!(
            parse(step),
            Parsed::Command(vec![b"step".to_vec()], step.len())
        );
        let two = b"*2\r\n$1\r\np\r\n$1\r\nx\r\n";
        assert_eq!(
            parse(two),
            Parsed::Command(vec![b"p".to_vec(), b"x".to_vec()], two.len())
        );
        for cut in 0..step.len() {
            assert_eq!(parse(&step[..cut]), Parsed::Incomplete, "cut at {cut}");
        }
        assert_eq!(
            parse(b"step\r\n"),
            Parsed::Invalid,
            "inline commands are not read"
        );
        assert_eq!(parse(b"*0\r\n"), Parsed::Invalid);
        assert_eq!(
            parse(b"*1\r\n$0\r\n\r\n"),
            Parsed::Invalid,
            "empty arguments"
        );
        assert_eq!(parse(b"*1\r\n$2000\r\n"), Parsed::Invalid, "long arguments");
        assert_eq!(parse(b"*1\r\n$1\r\nxx\r\n"), Parsed::Invalid);
        assert_eq!(parse(b"*1\r\n:1\r\n"), Parsed::Invalid);
        assert_eq!(
            parse(&[b'*'; 100]),
            Parsed::Invalid,
            "a count that never ends"
        );
    }
}
