//! The debugger client's commands as they arrive: RESP arrays of bulk
//! strings, read as Redis's debugger reads them (`ldbReplParseCommand`):
//! at most [`MAX_ARGS`] arguments of 1 to [`MAX_ARG_LEN`] bytes each,
//! the counts read as C's `atoi` reads them; anything else is a protocol
//! error, which ends the script. A line without its end is waited for,
//! however long (the REPL bounds what it buffers at 1 MB, as Redis).

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
        return Parsed::Incomplete;
    };
    if !(1..=MAX_ARGS as i64).contains(&count) {
        return Parsed::Invalid;
    }
    at = next;
    let mut argv = Vec::with_capacity(count as usize);
    while argv.len() < count as usize {
        match buf.get(at) {
            None => return Parsed::Incomplete,
            Some(b'$') => {}
            Some(_) => return Parsed::Invalid,
        }
        let Some((len, next)) = number_line(buf, at + 1) else {
            return Parsed::Incomplete;
        };
        if !(1..=MAX_ARG_LEN as i64).contains(&len) {
            return Parsed::Invalid;
        }
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

/// The number on the line starting at `at`, as `atoi` reads it (see
/// [`atoi`]), and where the next line starts; `None` when the line has
/// no end yet.
fn number_line(buf: &[u8], at: usize) -> Option<(i64, usize)> {
    let rest = buf.get(at..)?;
    let end = memchr::memmem::find(rest, b"\r\n")?;
    Some((atoi(&rest[..end]), at + end + 2))
}

/// C's `atoi` on a line: white space skipped, an optional sign, then the
/// digits up to the first other byte; 0 when there are none. Past `i64`
/// it saturates (out of every range the parser accepts either way).
pub(super) fn atoi(line: &[u8]) -> i64 {
    let mut bytes = line
        .iter()
        .copied()
        .skip_while(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .peekable();
    let negative = match bytes.peek() {
        Some(b'-') => true,
        Some(b'+') => false,
        _ => return digits(bytes, false),
    };
    bytes.next();
    digits(bytes, negative)
}

fn digits(bytes: impl Iterator<Item = u8>, negative: bool) -> i64 {
    let n = bytes.take_while(u8::is_ascii_digit).fold(0i64, |n, d| {
        n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    if negative {
        -n
    } else {
        n
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
        // A line without its end is waited for, however long (Redis's
        // REPL stops at 1 MB, as ours does).
        assert_eq!(parse(&[b'*'; 100]), Parsed::Incomplete);
        let mut long = b"*1".to_vec();
        long.resize(5000, b' ');
        assert_eq!(parse(&long), Parsed::Incomplete);
        long.extend_from_slice(b"\r\n$4\r\nstep\r\n");
        assert_eq!(
            parse(&long),
            Parsed::Command(vec![b"step".to_vec()], long.len())
        );
    }

    #[test]
    fn counts_are_read_as_atoi_reads_them() {
        let cases: [(&[u8], i64); 9] = [
            (b"12", 12),
            (b"  +7", 7),
            (b"\t-3", -3),
            (b"4xyz", 4),
            (b"x4", 0),
            (b"", 0),
            (b"-", 0),
            (b"+-1", 0),
            (b"99999999999999999999999", i64::MAX),
        ];
        for (line, want) in cases {
            assert_eq!(atoi(line), want, "{:?}", String::from_utf8_lossy(line));
        }
        // Redis's parser is forgiving: trailing bytes after a count go.
        let sloppy = b"*2 args\r\n$+1\r\np\r\n$1x\r\nx\r\n";
        assert_eq!(
            parse(sloppy),
            Parsed::Command(vec![b"p".to_vec(), b"x".to_vec()], sloppy.len())
        );
        assert_eq!(parse(b"*x\r\n"), Parsed::Invalid, "no digits: 0 arguments");
        assert_eq!(parse(b"*1\r\n$ \r\n"), Parsed::Invalid);
    }
}
