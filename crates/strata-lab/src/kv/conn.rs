//! One client connection: dialling, setup commands (AUTH, flush) and pipelined exchanges.
//!
//! An exchange writes a whole batch while concurrently reading its replies, so a deep
//! pipeline of large values cannot deadlock with both peers' socket buffers full.

use std::sync::Arc;
use std::time::Instant;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::protocol::{resp, Op, Protocol, Reply, ReplyKind};
use crate::LabError;

/// Read buffer growth step.
const READ_CHUNK: usize = 16 * 1024;

/// An open connection to the server under test.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    received: BytesMut,
    protocol: Protocol,
    addr: Arc<str>,
}

impl Connection {
    /// Connects to `addr` (`host:port`) with Nagle's algorithm disabled.
    pub async fn open(addr: Arc<str>, protocol: Protocol) -> Result<Self, LabError> {
        let connect_error = |source| LabError::Connect {
            addr: addr.to_string(),
            source,
        };
        let stream = TcpStream::connect(&*addr).await.map_err(connect_error)?;
        stream.set_nodelay(true).map_err(connect_error)?;
        Ok(Self {
            stream,
            received: BytesMut::with_capacity(READ_CHUNK),
            protocol,
            addr,
        })
    }

    /// Authenticates with RESP `AUTH password`.
    pub async fn auth(&mut self, password: &str) -> Result<(), LabError> {
        let mut request = Vec::new();
        resp::encode_command(&mut request, &[b"AUTH", password.as_bytes()]);
        self.setup_command("AUTH", &request).await
    }

    /// Removes every key (`FLUSHALL` / `flush_all`).
    pub async fn flush(&mut self) -> Result<(), LabError> {
        let mut request = Vec::new();
        self.protocol.encode_flush(&mut request);
        self.setup_command("flush", &request).await
    }

    /// Sends one command and fails unless the reply is a success.
    async fn setup_command(
        &mut self,
        command: &'static str,
        request: &[u8],
    ) -> Result<(), LabError> {
        self.stream
            .write_all(request)
            .await
            .map_err(|source| self.io_error(source))?;
        let Self {
            stream,
            received,
            protocol,
            addr,
        } = self;
        let reply = next_reply(stream, received, *protocol, addr).await?;
        let text = String::from_utf8_lossy(&received[..reply.len])
            .trim_end()
            .to_owned();
        received.advance(reply.len);
        match reply.kind {
            ReplyKind::Success => Ok(()),
            _ => Err(LabError::Rejected {
                command,
                reply: text,
            }),
        }
    }

    /// Writes `request` (the encoding of `ops`, in order) and reads one reply per op, calling
    /// `on_reply` with each op, its reply kind, the reply's bytes and the instant the reply
    /// was complete.
    pub async fn exchange(
        &mut self,
        request: &[u8],
        ops: &[Op],
        mut on_reply: impl FnMut(Op, ReplyKind, &[u8], Instant),
    ) -> Result<(), LabError> {
        let Self {
            stream,
            received,
            protocol,
            addr,
        } = self;
        let (mut reader, mut writer) = stream.split();
        let write = async {
            writer
                .write_all(request)
                .await
                .map_err(|source| LabError::Io {
                    addr: addr.to_string(),
                    source,
                })
        };
        let read = async {
            for &op in ops {
                let reply = next_reply(&mut reader, received, *protocol, addr).await?;
                on_reply(op, reply.kind, &received[..reply.len], Instant::now());
                received.advance(reply.len);
            }
            Ok(())
        };
        tokio::try_join!(write, read).map(drop)
    }

    fn io_error(&self, source: std::io::Error) -> LabError {
        LabError::Io {
            addr: self.addr.to_string(),
            source,
        }
    }
}

/// Reads until `received` starts with a complete reply and returns it, leaving its bytes in
/// place for the caller to inspect and consume.
async fn next_reply<R: AsyncRead + Unpin>(
    reader: &mut R,
    received: &mut BytesMut,
    protocol: Protocol,
    addr: &str,
) -> Result<Reply, LabError> {
    loop {
        let parsed = protocol
            .parse_reply(received)
            .map_err(|source| LabError::Protocol {
                addr: addr.to_owned(),
                source,
            })?;
        if let Some(reply) = parsed {
            return Ok(reply);
        }
        if received.capacity() - received.len() < READ_CHUNK / 4 {
            received.reserve(READ_CHUNK);
        }
        let read = reader
            .read_buf(received)
            .await
            .map_err(|source| LabError::Io {
                addr: addr.to_owned(),
                source,
            })?;
        if read == 0 {
            return Err(LabError::Closed {
                addr: addr.to_owned(),
            });
        }
    }
}
