//! A minimal blocking RESP2 client over raw TCP: commands go out as arrays of
//! bulk strings, any number at once (pipelining), and replies are read one at
//! a time, so the caller knows exactly which commands were sent and which
//! were answered when the connection dies.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Bounds every connect, read and write, so a stuck server fails a test
/// instead of hanging it.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// One command: its name and arguments.
pub type Command = Vec<Vec<u8>>;

/// A RESP2 reply.
#[derive(Clone, PartialEq, Eq)]
pub enum Reply {
    Simple(String),
    Error(String),
    Integer(i64),
    Bulk(Option<Vec<u8>>),
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// `+OK`.
    pub fn ok() -> Reply {
        Reply::Simple("OK".into())
    }
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Simple(s) => write!(f, "+{s}"),
            Reply::Error(e) => write!(f, "-{e}"),
            Reply::Integer(n) => write!(f, ":{n}"),
            Reply::Bulk(None) => write!(f, "(nil)"),
            Reply::Bulk(Some(bytes)) => write!(f, "{}", abbreviate(bytes)),
            Reply::Array(None) => write!(f, "(nil array)"),
            Reply::Array(Some(items)) => f.debug_list().entries(items).finish(),
        }
    }
}

/// `bytes` as text, cut to its first 48 bytes plus the length when longer.
pub fn abbreviate(bytes: &[u8]) -> String {
    const SHOWN: usize = 48;
    if bytes.len() <= SHOWN {
        format!("{:?}", String::from_utf8_lossy(bytes))
    } else {
        format!(
            "{:?}..({} bytes)",
            String::from_utf8_lossy(&bytes[..SHOWN]),
            bytes.len()
        )
    }
}

/// `command` as a RESP array of bulk strings.
pub fn encode(command: &Command) -> Vec<u8> {
    let mut bytes = format!("*{}\r\n", command.len()).into_bytes();
    for arg in command {
        bytes.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        bytes.extend_from_slice(arg);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes
}

/// One connection to a RESP server.
pub struct RespConn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl RespConn {
    /// Connects to `addr` with [`IO_TIMEOUT`] on every operation.
    pub fn connect(addr: SocketAddr) -> io::Result<RespConn> {
        let stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
        stream.set_read_timeout(Some(IO_TIMEOUT))?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        stream.set_nodelay(true)?;
        Ok(RespConn {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Changes how long a read waits (the default is [`IO_TIMEOUT`]).
    #[allow(dead_code)] // not every crash test waits less
    pub fn set_read_timeout(&self, timeout: Duration) -> io::Result<()> {
        self.writer.set_read_timeout(Some(timeout))
    }

    /// Writes `commands` in one go, without reading any reply.
    pub fn send(&mut self, commands: &[Command]) -> io::Result<()> {
        let bytes: Vec<u8> = commands.iter().flat_map(encode).collect();
        self.send_bytes(&bytes)
    }

    /// Writes encoded commands.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)
    }

    /// Reads the next reply. A connection closed mid-reply is an error.
    pub fn read_reply(&mut self) -> io::Result<Reply> {
        let line = self.read_line()?;
        let (kind, rest) = line.split_at(1);
        let text = String::from_utf8_lossy(rest).into_owned();
        match kind[0] {
            b'+' => Ok(Reply::Simple(text)),
            b'-' => Ok(Reply::Error(text)),
            b':' => Ok(Reply::Integer(parse_int(&text)?)),
            b'$' => match parse_int(&text)? {
                -1 => Ok(Reply::Bulk(None)),
                len => {
                    let len = usize::try_from(len).map_err(|_| malformed(&text))?;
                    let mut body = vec![0; len + 2];
                    self.reader.read_exact(&mut body)?;
                    if !body.ends_with(b"\r\n") {
                        return Err(malformed("bulk string without CRLF"));
                    }
                    body.truncate(len);
                    Ok(Reply::Bulk(Some(body)))
                }
            },
            b'*' => match parse_int(&text)? {
                -1 => Ok(Reply::Array(None)),
                len => {
                    let len = usize::try_from(len).map_err(|_| malformed(&text))?;
                    let items = (0..len)
                        .map(|_| self.read_reply())
                        .collect::<io::Result<_>>()?;
                    Ok(Reply::Array(Some(items)))
                }
            },
            _ => Err(malformed(&String::from_utf8_lossy(&line))),
        }
    }

    /// Sends one command and reads its reply.
    pub fn call(&mut self, args: &[&[u8]]) -> io::Result<Reply> {
        self.send(&[args.iter().map(|a| a.to_vec()).collect()])?;
        self.read_reply()
    }

    /// `GET key` after a restart: the value, or `None` when absent; panics
    /// on an error or an unexpected reply.
    #[allow(dead_code)] // not every crash test reads values back this way
    pub fn get_value(&mut self, key: &str) -> Option<Vec<u8>> {
        match self
            .call(&[b"GET", key.as_bytes()])
            .expect("GET after restart")
        {
            Reply::Bulk(v) => v,
            other => panic!("GET {key}: {other:?}"),
        }
    }

    /// A line without its CRLF; at least one byte.
    fn read_line(&mut self) -> io::Result<Vec<u8>> {
        let mut line = Vec::new();
        self.reader.read_until(b'\n', &mut line)?;
        if !line.ends_with(b"\r\n") {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed mid-reply",
            ));
        }
        line.truncate(line.len() - 2);
        if line.is_empty() {
            return Err(malformed("empty reply line"));
        }
        Ok(line)
    }
}

fn parse_int(text: &str) -> io::Result<i64> {
    text.parse().map_err(|_| malformed(text))
}

fn malformed(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("malformed reply: {what}"),
    )
}
