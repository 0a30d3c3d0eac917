//! [`Connection`]: an established client connection, plain TCP or TLS,
//! as one `AsyncRead + AsyncWrite` type, so a front end serves both the
//! same way.
//!
//! With TLS, written bytes may wait in rustls's buffer until the next
//! write or a flush: a writer MUST flush after each reply batch (a no-op
//! on plain TCP).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use crate::console::Console;

/// A client connection after accept (and, on a TLS port, the handshake).
#[derive(Debug)]
pub enum Connection {
    /// Plain TCP.
    Plain(TcpStream),
    /// TLS over TCP, handshake done.
    Tls(Box<TlsStream<TcpStream>>),
}

impl Connection {
    /// True on a TLS connection.
    pub fn is_tls(&self) -> bool {
        matches!(self, Connection::Tls(_))
    }

    /// A [`Console`] on this connection's socket; `None` on TLS.
    pub fn console(&self) -> Option<io::Result<Console>> {
        match self {
            Connection::Plain(tcp) => Some(Console::of(tcp)),
            Connection::Tls(_) => None,
        }
    }

    /// Writes what a plain socket takes now, without waiting (`WouldBlock`
    /// when it takes nothing); `None` on TLS, whose writes go through
    /// rustls's buffer and must be flushed.
    pub fn try_write(&self, buf: &[u8]) -> Option<io::Result<usize>> {
        match self {
            Connection::Plain(tcp) => Some(tcp.try_write(buf)),
            Connection::Tls(_) => None,
        }
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_read(cx, buf),
            Connection::Tls(tls) => Pin::new(tls.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_write(cx, buf),
            Connection::Tls(tls) => Pin::new(tls.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_write_vectored(cx, bufs),
            Connection::Tls(tls) => Pin::new(tls.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Connection::Plain(tcp) => tcp.is_write_vectored(),
            Connection::Tls(tls) => tls.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_flush(cx),
            Connection::Tls(tls) => Pin::new(tls.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(tcp) => Pin::new(tcp).poll_shutdown(cx),
            Connection::Tls(tls) => Pin::new(tls.as_mut()).poll_shutdown(cx),
        }
    }
}
