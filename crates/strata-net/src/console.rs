//! [`Console`]: blocking, time-bounded I/O on a plain connection's socket,
//! for a request that talks with its client while it runs (Redis's Lua
//! debugger, `SCRIPT DEBUG`), when the connection's task is the one
//! running it and so cannot poll the socket.
//!
//! A console holds its own descriptor (a duplicate of the socket's). The
//! socket is put in blocking mode only while a [`ConsoleSession`] lives,
//! and back in non-blocking mode when it drops, also by a panic: the
//! reactor never polls it meanwhile, as its only poller is the task inside
//! the session. TLS connections have no console (their bytes pass through
//! rustls's state, which the connection's task owns).

use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::time::Duration;

/// A duplicate of a plain connection's socket, for blocking sessions.
#[derive(Debug)]
pub struct Console {
    stream: std::net::TcpStream,
}

impl Console {
    /// A console on `tcp`'s socket (one more descriptor while it lives).
    pub fn of(tcp: &tokio::net::TcpStream) -> io::Result<Console> {
        let fd = tcp.as_fd().try_clone_to_owned()?;
        Ok(Console {
            stream: std::net::TcpStream::from(fd),
        })
    }

    /// Starts a blocking session: writes wait at most `write_timeout` for
    /// the client to take bytes (Redis gives its debugger 5 s).
    pub fn open(self, write_timeout: Duration) -> io::Result<ConsoleSession> {
        let session = ConsoleSession {
            stream: self.stream,
        };
        session.stream.set_nonblocking(false)?;
        session.stream.set_write_timeout(Some(write_timeout))?;
        Ok(session)
    }
}

/// The socket in blocking mode, until this drops.
#[derive(Debug)]
pub struct ConsoleSession {
    stream: std::net::TcpStream,
}

impl ConsoleSession {
    /// Reads what the client sent, waiting at most `timeout`: `Ok(None)`
    /// when nothing came in time, `Ok(Some(0))` when the client closed.
    pub fn read(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<Option<usize>> {
        // A zero timeout means "forever" to the socket option.
        self.stream
            .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))?;
        match self.stream.read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            Err(err) if err.kind() == io::ErrorKind::Interrupted => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Writes all of `bytes`, each wait bounded by the session's write
    /// timeout (a client that stops reading fails the write).
    pub fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }
}

impl Drop for ConsoleSession {
    fn drop(&mut self) {
        let _ = self.stream.set_read_timeout(None);
        let _ = self.stream.set_write_timeout(None);
        if let Err(err) = self.stream.set_nonblocking(true) {
            // The connection's reads would block its worker: it must not
            // be used again. Shutting it down makes every read end at once.
            tracing::error!(%err, "a console could not restore non-blocking mode; closing");
            let _ = self.stream.shutdown(std::net::Shutdown::Both);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session reads with a bound, writes, and leaves the socket
    /// non-blocking for the connection's reactor.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_session_blocks_only_while_it_lives() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut client = std::net::TcpStream::connect(addr).unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let console = Console::of(&server).unwrap();
        let mut buf = [0u8; 16];
        tokio::task::block_in_place(|| {
            let mut session = console.open(Duration::from_secs(1)).unwrap();
            let waited = session.read(&mut buf, Duration::from_millis(20)).unwrap();
            assert_eq!(waited, None, "nothing sent: the read times out");
            client.write_all(b"step").unwrap();
            assert_eq!(
                session.read(&mut buf, Duration::from_secs(5)).unwrap(),
                Some(4)
            );
            session.write_all(b"+ok\r\n").unwrap();
        });
        let mut reply = [0u8; 5];
        client.read_exact(&mut reply).unwrap();
        assert_eq!(&reply, b"+ok\r\n");
        // Non-blocking again: the reactor's read says "not now".
        assert_eq!(
            server.try_read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
    }
}
