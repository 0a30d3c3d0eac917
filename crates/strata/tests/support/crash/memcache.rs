//! A minimal blocking memcached text-protocol client for the storage,
//! delete, incr and touch commands, whose replies are one line each. Lines
//! come back as [`Reply`] values so both front ends share one model:
//! a number is an integer, `ERROR`, `CLIENT_ERROR ...` and `SERVER_ERROR ...`
//! are errors, anything else a status.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};

use super::resp::{Reply, IO_TIMEOUT};

/// One connection to a memcached server.
pub struct MemcacheConn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl MemcacheConn {
    /// Connects to `addr` with [`IO_TIMEOUT`] on every operation.
    pub fn connect(addr: SocketAddr) -> io::Result<MemcacheConn> {
        let stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
        stream.set_read_timeout(Some(IO_TIMEOUT))?;
        stream.set_write_timeout(Some(IO_TIMEOUT))?;
        stream.set_nodelay(true)?;
        Ok(MemcacheConn {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Writes encoded commands.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)
    }

    /// Reads the next one-line reply.
    pub fn read_reply(&mut self) -> io::Result<Reply> {
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let Some(line) = line.strip_suffix("\r\n") else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed mid-reply",
            ));
        };
        Ok(if let Ok(number) = line.parse() {
            Reply::Integer(number)
        } else if line == "ERROR"
            || line.starts_with("CLIENT_ERROR")
            || line.starts_with("SERVER_ERROR")
        {
            Reply::Error(line.to_owned())
        } else {
            Reply::Simple(line.to_owned())
        })
    }
}
