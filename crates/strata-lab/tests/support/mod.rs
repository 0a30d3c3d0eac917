//! A tiny in-test key-value server speaking just enough RESP or memcached text for the load
//! generator: SET/GET/FLUSHALL/AUTH and set/get/flush_all. Thread per connection, 127.0.0.1
//! only, and it records how often each key was set so tests can check what the client sent.

#![allow(dead_code)] // Each test binary uses a different part.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

/// Which protocol the fake speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Resp,
    Memcache,
}

/// Ways the fake can misbehave.
#[derive(Debug, Clone, Default)]
pub struct Behaviour {
    /// RESP password required before any other command.
    pub password: Option<String>,
    /// Answer every command with an error reply.
    pub always_error: bool,
    /// Close each connection after this many commands.
    pub close_after: Option<u64>,
}

/// What the fake has seen.
#[derive(Debug, Default)]
pub struct State {
    pub values: HashMap<Vec<u8>, Vec<u8>>,
    pub set_counts: HashMap<Vec<u8>, u32>,
}

pub struct FakeServer {
    pub addr: SocketAddr,
    pub state: Arc<Mutex<State>>,
}

impl FakeServer {
    pub fn start(wire: Wire, behaviour: Behaviour) -> Self {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        serve(listener, wire, behaviour, Arc::clone(&state));
        Self { addr, state }
    }

    pub fn port(&self) -> String {
        self.addr.port().to_string()
    }
}

/// Accepts connections on `listener` in a background thread.
pub fn serve(listener: TcpListener, wire: Wire, behaviour: Behaviour, state: Arc<Mutex<State>>) {
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let (behaviour, state) = (behaviour.clone(), Arc::clone(&state));
            thread::spawn(move || handle(stream, wire, &behaviour, &state));
        }
    });
}

fn handle(mut stream: TcpStream, wire: Wire, behaviour: &Behaviour, state: &Mutex<State>) {
    let (mut received, mut chunk) = (Vec::new(), [0u8; 16 * 1024]);
    let mut authenticated = behaviour.password.is_none();
    let mut handled = 0;
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        received.extend_from_slice(&chunk[..n]);
        let mut out = Vec::new();
        loop {
            let parsed = match wire {
                Wire::Resp => parse_resp(&received),
                Wire::Memcache => parse_memcache(&received),
            };
            let Some((command, used)) = parsed else { break };
            received.drain(..used);
            handled += 1;
            if behaviour.close_after.is_some_and(|limit| handled > limit) {
                return;
            }
            reply(
                wire,
                behaviour,
                state,
                &mut authenticated,
                &command,
                &mut out,
            );
        }
        if stream.write_all(&out).is_err() {
            return;
        }
    }
}

fn reply(
    wire: Wire,
    behaviour: &Behaviour,
    state: &Mutex<State>,
    authenticated: &mut bool,
    command: &[Vec<u8>],
    out: &mut Vec<u8>,
) {
    let resp = wire == Wire::Resp;
    let name = String::from_utf8_lossy(&command[0]).to_ascii_lowercase();
    if behaviour.always_error {
        out.extend_from_slice(if resp {
            b"-ERR fake failure\r\n"
        } else {
            b"SERVER_ERROR fake failure\r\n"
        });
        return;
    }
    if name == "auth" {
        let ok = behaviour.password.as_deref().map(str::as_bytes) == Some(&command[1][..]);
        *authenticated |= ok;
        out.extend_from_slice(if ok {
            b"+OK\r\n"
        } else {
            b"-WRONGPASS invalid password\r\n"
        });
        return;
    }
    if !*authenticated {
        out.extend_from_slice(b"-NOAUTH Authentication required.\r\n");
        return;
    }
    let mut state = state.lock().unwrap();
    match name.as_str() {
        "set" => {
            state.values.insert(command[1].clone(), command[2].clone());
            *state.set_counts.entry(command[1].clone()).or_default() += 1;
            out.extend_from_slice(if resp { b"+OK\r\n" } else { b"STORED\r\n" });
        }
        "get" => match (state.values.get(&command[1]), resp) {
            (Some(v), true) => out
                .extend_from_slice(&[format!("${}\r\n", v.len()).as_bytes(), v, b"\r\n"].concat()),
            (None, true) => out.extend_from_slice(b"$-1\r\n"),
            (Some(v), false) => {
                let header = format!(
                    "VALUE {} 0 {}\r\n",
                    String::from_utf8_lossy(&command[1]),
                    v.len()
                );
                out.extend_from_slice(&[header.as_bytes(), v, b"\r\nEND\r\n"].concat());
            }
            (None, false) => out.extend_from_slice(b"END\r\n"),
        },
        "flushall" | "flush_all" => {
            state.values.clear();
            out.extend_from_slice(if resp { b"+OK\r\n" } else { b"OK\r\n" });
        }
        _ => out.extend_from_slice(if resp {
            b"-ERR unknown command\r\n"
        } else {
            b"ERROR\r\n"
        }),
    }
}

fn line(buf: &[u8], pos: usize) -> Option<(&[u8], usize)> {
    let end = buf[pos..].windows(2).position(|w| w == b"\r\n")?;
    Some((&buf[pos..pos + end], pos + end + 2))
}

fn number(bytes: &[u8]) -> usize {
    std::str::from_utf8(bytes).unwrap().parse().unwrap()
}

/// One `*N` array of bulk strings, or `None` if incomplete.
fn parse_resp(buf: &[u8]) -> Option<(Vec<Vec<u8>>, usize)> {
    let (header, mut pos) = line(buf, 0)?;
    assert_eq!(header[0], b'*', "fake server expects arrays");
    let mut args = Vec::new();
    for _ in 0..number(&header[1..]) {
        let (len_line, data) = line(buf, pos)?;
        let len = number(&len_line[1..]);
        args.push(buf.get(data..data + len)?.to_vec());
        buf.get(data + len..data + len + 2)?;
        pos = data + len + 2;
    }
    Some((args, pos))
}

/// One memcached command (`set` with its data block, `get`, `flush_all`), or `None`.
fn parse_memcache(buf: &[u8]) -> Option<(Vec<Vec<u8>>, usize)> {
    let (text, data) = line(buf, 0)?;
    let words: Vec<Vec<u8>> = text.split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
    if words[0] != b"set" {
        return Some((words, data));
    }
    let len = number(&words[4]);
    let value = buf.get(data..data + len)?.to_vec();
    buf.get(data + len..data + len + 2)?;
    Some((
        vec![words[0].clone(), words[1].clone(), value],
        data + len + 2,
    ))
}
