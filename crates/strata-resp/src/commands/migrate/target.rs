//! The connection to `MIGRATE`'s target instance: connect within the
//! timeout, send the whole request, read one reply line per command. A
//! leaf over `std::net`: the command runs on the serving thread and waits
//! for the target as Redis's does (bounded by the caller's timeout).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Longest reply line read from the target (its replies to `AUTH`,
/// `SELECT` and `RESTORE` are short; a longer line is an error, not a
/// reason to grow without bound).
const MAX_REPLY_LINE: u64 = 64 * 1024;

/// Why talking to the target failed, as Redis's `MIGRATE` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No connection within the timeout, or an address that does not resolve.
    Connecting,
    /// The connection refused or broke while sending.
    Writing,
    /// No whole reply within the timeout, or the connection closed.
    Reading,
}

/// A connected target.
pub struct Target {
    reader: BufReader<TcpStream>,
}

impl Target {
    /// Connects to `host:port` within `timeout`. A refused connection is a
    /// write failure, as Redis (whose connect does not wait) sees it.
    pub fn connect(host: &str, port: u16, timeout: Duration) -> Result<Target, Failure> {
        let addr = (host, port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut addrs| addrs.next())
            .ok_or(Failure::Connecting)?;
        let stream = TcpStream::connect_timeout(&addr, timeout).map_err(|e| match e.kind() {
            io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionReset => Failure::Writing,
            _ => Failure::Connecting,
        })?;
        let limits = stream
            .set_read_timeout(Some(timeout))
            .and(stream.set_write_timeout(Some(timeout)))
            .and(stream.set_nodelay(true));
        limits.map_err(|_| Failure::Connecting)?;
        Ok(Target {
            reader: BufReader::new(stream),
        })
    }

    /// Sends `request` (RESP commands, already encoded) whole.
    pub fn send(&mut self, request: &[u8]) -> Result<(), Failure> {
        let stream = self.reader.get_mut();
        stream
            .write_all(request)
            .and(stream.flush())
            .map_err(|_| Failure::Writing)
    }

    /// The next reply line without its `\r\n` (`+OK`, `-ERR ...`).
    pub fn reply(&mut self) -> Result<Vec<u8>, Failure> {
        let mut line = Vec::new();
        let read = (&mut self.reader)
            .take(MAX_REPLY_LINE)
            .read_until(b'\n', &mut line)
            .map_err(|_| Failure::Reading)?;
        if read == 0 || !line.ends_with(b"\r\n") {
            return Err(Failure::Reading);
        }
        line.truncate(line.len() - 2);
        Ok(line)
    }
}

/// Appends one command in RESP (an array of bulk strings) to `out`.
pub fn encode(out: &mut Vec<u8>, words: &[&[u8]]) {
    out.extend_from_slice(format!("*{}\r\n", words.len()).as_bytes());
    for word in words {
        out.extend_from_slice(format!("${}\r\n", word.len()).as_bytes());
        out.extend_from_slice(word);
        out.extend_from_slice(b"\r\n");
    }
}
