//! The `uring` loop: one ring, a receive always armed per connection, and
//! every submission of a round of completions sent in the one
//! `io_uring_enter` that waits for the next round.

use std::io;
use std::net::TcpListener;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use io_uring::{opcode, squeue, types, IoUring};

use crate::{resp, Map, READ_CHUNK};

/// `user_data` of the listener's multishot accept.
const ACCEPT: u64 = u64::MAX;

/// A connection. Its buffers stay put while an operation that points into
/// them is in flight: `recv` is filled by the armed receive, `out` is read
/// by the send under way and only grows when no send is (so it never moves
/// under the kernel).
struct Conn {
    fd: OwnedFd,
    recv: Vec<u8>,
    input: Vec<u8>,
    out: Vec<u8>,
    sending: bool,
    in_flight: u32,
    closing: bool,
}

fn user_data(slot: usize, send: bool) -> u64 {
    ((slot as u64) << 1) | u64::from(send)
}

impl Conn {
    fn receive(&mut self, slot: usize) -> squeue::Entry {
        self.in_flight += 1;
        let fd = types::Fd(self.fd.as_raw_fd());
        opcode::Recv::new(fd, self.recv.as_mut_ptr(), READ_CHUNK as u32)
            .build()
            .user_data(user_data(slot, false))
    }

    /// Runs what `input` holds and sends the replies, unless a send is
    /// under way (its completion comes back here).
    fn answer(&mut self, map: &mut Map, slot: usize, queue: &mut Vec<squeue::Entry>) {
        if self.sending {
            return;
        }
        let used = resp::execute(map, &self.input, &mut self.out);
        self.input.drain(..used);
        if !self.out.is_empty() {
            self.sending = true;
            self.in_flight += 1;
            let fd = types::Fd(self.fd.as_raw_fd());
            queue.push(
                opcode::Send::new(fd, self.out.as_ptr(), self.out.len() as u32)
                    .build()
                    .user_data(user_data(slot, true)),
            );
        }
    }
}

/// Serves 127.0.0.1:`port` until an error.
pub fn serve(port: u16) -> io::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", port))?;
    let mut ring: IoUring = IoUring::builder()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .setup_coop_taskrun()
        .build(4096)?;
    let mut conns: Vec<Option<Conn>> = Vec::new();
    let mut map = Map::new();
    let mut queue = vec![opcode::AcceptMulti::new(types::Fd(listener.as_raw_fd()))
        .build()
        .user_data(ACCEPT)];
    loop {
        {
            let mut sq = ring.submission();
            for entry in queue.drain(..) {
                // SAFETY: every entry points into a `Conn` buffer that
                // stays allocated and unmoved until its completion is
                // reaped (see `Conn`), or into nothing (accept).
                if unsafe { sq.push(&entry) }.is_err() {
                    return Err(io::Error::other("submission queue full"));
                }
            }
        }
        ring.submit_and_wait(1)?;
        let done: Vec<(u64, i32)> = ring
            .completion()
            .map(|c| (c.user_data(), c.result()))
            .collect();
        for (data, result) in done {
            if data == ACCEPT {
                if result >= 0 {
                    // SAFETY: a successful accept's result is a new socket
                    // that nothing else owns.
                    let fd = unsafe { OwnedFd::from_raw_fd(result) };
                    let one: libc::c_int = 1;
                    // SAFETY: a valid socket, an int option and its size.
                    unsafe {
                        libc::setsockopt(
                            fd.as_raw_fd(),
                            libc::IPPROTO_TCP,
                            libc::TCP_NODELAY,
                            std::ptr::from_ref(&one).cast(),
                            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                        );
                    }
                    let slot = conns.iter().position(Option::is_none).unwrap_or_else(|| {
                        conns.push(None);
                        conns.len() - 1
                    });
                    let mut conn = Conn {
                        fd,
                        recv: vec![0; READ_CHUNK],
                        input: Vec::new(),
                        out: Vec::with_capacity(READ_CHUNK),
                        sending: false,
                        in_flight: 0,
                        closing: false,
                    };
                    queue.push(conn.receive(slot));
                    conns[slot] = Some(conn);
                }
                continue;
            }
            let slot = (data >> 1) as usize;
            let Some(conn) = conns.get_mut(slot).and_then(Option::as_mut) else {
                continue;
            };
            conn.in_flight -= 1;
            if result <= 0 || conn.closing {
                conn.closing = true;
            } else if data & 1 == 1 {
                conn.sending = false;
                conn.out.drain(..result as usize);
                conn.answer(&mut map, slot, &mut queue);
            } else {
                let n = result as usize;
                conn.input.extend_from_slice(&conn.recv[..n]);
                conn.answer(&mut map, slot, &mut queue);
                queue.push(conn.receive(slot));
            }
            if conn.closing && conn.in_flight == 0 {
                conns[slot] = None;
            }
        }
    }
}
