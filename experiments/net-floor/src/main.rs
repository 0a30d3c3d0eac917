//! The floor of a server's CPU per request at pipeline depth 1: a RESP
//! server that does nothing but `SET` and `GET` on a `HashMap` (anything
//! else answers `+OK`), in three loops, so that `scripts/bench-net-floor`
//! can put Strata and Redis beside what the kernel's loopback path alone
//! costs on this machine:
//!
//! - `epoll`: a tokio current-thread runtime, a task per connection, each
//!   reply written as soon as its request is read (Strata's driver at depth 1);
//! - `epoll-hold`: the same, but a task yields before writing, so the
//!   replies of one round of ready connections go out together (as Redis
//!   writes all replies in `beforeSleep`);
//! - `uring`: one io_uring (single issuer, deferred task work); every
//!   receive and send of a round of completions is submitted in the one
//!   `io_uring_enter` that also waits for the next completions.
//!
//! Usage: `net-floor epoll|epoll-hold|uring PORT` (binds 127.0.0.1).

mod resp;
mod uring;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The whole keyspace.
pub type Map = HashMap<Vec<u8>, Vec<u8>>;

/// Bytes a connection reads at once.
pub const READ_CHUNK: usize = 16 * 1024;

fn epoll(port: u16, hold: bool) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        let map = Rc::new(RefCell::new(Map::new()));
        loop {
            let (mut socket, _) = listener.accept().await?;
            socket.set_nodelay(true)?;
            let map = map.clone();
            tokio::task::spawn_local(async move {
                let (mut input, mut out) = (Vec::new(), Vec::new());
                let mut buf = vec![0u8; READ_CHUNK];
                loop {
                    let n = match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    input.extend_from_slice(&buf[..n]);
                    let used = resp::execute(&mut map.borrow_mut(), &input, &mut out);
                    input.drain(..used);
                    if hold {
                        // Runs again after the I/O driver's next poll, when
                        // every other ready connection has had its turn.
                        tokio::task::yield_now().await;
                    }
                    if socket.write_all(&out).await.is_err() {
                        return;
                    }
                    out.clear();
                }
            });
        }
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(mode), Some(Ok(port))) = (args.get(1), args.get(2).map(|p| p.parse::<u16>())) else {
        eprintln!("usage: net-floor epoll|epoll-hold|uring PORT");
        std::process::exit(2);
    };
    let result = match mode.as_str() {
        "epoll" => epoll(port, false),
        "epoll-hold" => epoll(port, true),
        "uring" => uring::serve(port),
        other => {
            eprintln!("net-floor: unknown mode '{other}'");
            std::process::exit(2);
        }
    };
    if let Err(err) = result {
        eprintln!("net-floor: {err}");
        std::process::exit(1);
    }
}
