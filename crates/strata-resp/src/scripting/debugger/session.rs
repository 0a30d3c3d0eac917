//! [`Debugger`]: one debugging session's state (the console, the
//! script's lines, breakpoints, stepping, the lines not sent yet) and what
//! it logs, as Redis's debugger words it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mlua::Value;
use strata_service::{ClientInfo, Console, ConsoleSession};

use super::render;
use crate::scripting::errors::{Failed, ReplyError};

/// Most breakpoints (Redis's `LDB_BREAKPOINTS_MAX`).
pub(super) const MAX_BREAKPOINTS: usize = 64;
/// Most bytes of lines held between two stops.
const MAX_LOG_BYTES: usize = 8 << 20;
/// Logged replies and values are trimmed past this by default.
const DEFAULT_MAXLEN: usize = 256;
/// How long a write to the debugging client may wait.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the script stopped.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stop {
    Step,
    Breakpoint,
    LuaBreakpoint,
    Timeout,
}

/// One debugging session's state, shared by the line hook, `redis.call`'s
/// logging and `redis.debug`/`redis.breakpoint` (through `RunContext`).
pub(crate) struct Debugger {
    pub(super) console: ConsoleSession,
    /// The script's lines, for listings.
    pub(super) source: Vec<Vec<u8>>,
    pub(super) breakpoints: Vec<i32>,
    /// Stop at the next line (and, until then, log `redis.call`s).
    pub(super) step: bool,
    /// `redis.breakpoint()` was called: stop at the next line.
    pub(super) lua_breakpoint: bool,
    /// Logged replies and values are trimmed at this many bytes (0: never).
    pub(super) maxlen: usize,
    pub(super) maxlen_hint_sent: bool,
    /// Lines not sent yet, their bytes, and the lines dropped past
    /// [`MAX_LOG_BYTES`].
    pub(super) logs: Vec<Vec<u8>>,
    pub(super) log_bytes: usize,
    pub(super) dropped: u64,
    pub(super) dropped_at: usize,
    /// Bytes from the client not parsed yet.
    pub(super) input: Vec<u8>,
    pub(super) current_line: i32,
    /// Since the last stop (for the timeout).
    pub(super) since: Instant,
    pub(super) busy_threshold: Duration,
    pub(super) kill: Arc<AtomicBool>,
    pub(super) client: Arc<ClientInfo>,
}

/// A debugging session's handle, as the run's pieces hold it.
pub(crate) type Shared = Rc<RefCell<Debugger>>;

impl Debugger {
    /// A session on `console` for `body`; `None` when the console cannot
    /// block.
    pub(crate) fn start(
        console: Console,
        body: &[u8],
        kill: Arc<AtomicBool>,
        client: Arc<ClientInfo>,
        busy_threshold: Duration,
    ) -> std::io::Result<Shared> {
        let console = console.open(WRITE_TIMEOUT)?;
        // As Redis: trailing newlines dropped, then split at each `\n`.
        let trimmed = body.len()
            - body
                .iter()
                .rev()
                .take_while(|&&b| b == b'\n' || b == b'\r')
                .count();
        let source = body[..trimmed]
            .split(|&b| b == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        Ok(Rc::new(RefCell::new(Debugger {
            console,
            source,
            breakpoints: Vec::new(),
            step: true,
            lua_breakpoint: false,
            maxlen: DEFAULT_MAXLEN,
            maxlen_hint_sent: false,
            logs: Vec::new(),
            log_bytes: 0,
            dropped: 0,
            dropped_at: 0,
            input: Vec::new(),
            current_line: 0,
            since: Instant::now(),
            busy_threshold,
            kill,
            client,
        })))
    }

    /// Stepping: `redis.call`s are logged.
    pub(crate) fn stepping(&self) -> bool {
        self.step
    }

    /// Adds a line to send at the next stop.
    pub(super) fn log(&mut self, line: impl Into<Vec<u8>>) {
        let line = line.into();
        self.log_bytes += line.len();
        self.logs.push(line);
    }

    /// Adds a line the script made (`redis.debug`, a logged `redis.call`):
    /// past [`MAX_LOG_BYTES`] between stops such lines are dropped and
    /// counted, so a script looping over them cannot grow memory without
    /// bound.
    fn log_from_script(&mut self, line: Vec<u8>) {
        if self.log_bytes + line.len() > MAX_LOG_BYTES {
            if self.dropped == 0 {
                self.dropped_at = self.logs.len();
            }
            self.dropped += 1;
            return;
        }
        self.log(line);
    }

    /// Logs `line` trimmed at `maxlen`, with a hint the first time (as a
    /// line the script made when `from_script`).
    pub(super) fn log_trimmed(&mut self, mut line: Vec<u8>, from_script: bool) {
        let add = |d: &mut Self, line: Vec<u8>| match from_script {
            true => d.log_from_script(line),
            false => d.log(line),
        };
        if self.maxlen > 0 && line.len() > self.maxlen {
            line.truncate(self.maxlen);
            line.extend_from_slice(b" ...");
            add(self, line);
            if !self.maxlen_hint_sent {
                self.maxlen_hint_sent = true;
                self.log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.");
            }
        } else {
            add(self, line);
        }
    }

    /// Sends the pending lines as one array of simple strings. A failed
    /// write is not reported: the next read finds the client gone.
    pub(super) fn send_logs(&mut self) {
        if self.dropped > 0 {
            let note = format!(
                "<hint> {} more lines were dropped here: the debugger keeps {MAX_LOG_BYTES} bytes of the script's lines between stops.",
                self.dropped
            );
            self.logs
                .insert(self.dropped_at.min(self.logs.len()), note.into_bytes());
            self.dropped = 0;
        }
        self.log_bytes = 0;
        let mut out = format!("*{}\r\n", self.logs.len()).into_bytes();
        for line in self.logs.drain(..) {
            out.push(b'+');
            out.extend(
                line.iter()
                    .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b }),
            );
            out.extend_from_slice(b"\r\n");
        }
        let _ = self.console.write_all(&out);
    }

    /// `redis.call` is about to run `argv` (logged while stepping).
    pub(crate) fn log_call(&mut self, argv: &[Vec<u8>]) {
        let mut line = b"<redis>".to_vec();
        for (i, arg) in argv.iter().enumerate() {
            if i == 10 {
                line.extend_from_slice(format!(" ... ({} more)", argv.len() - i - 1).as_bytes());
                break;
            }
            line.push(b' ');
            line.extend_from_slice(arg);
        }
        self.log_from_script(line);
    }

    /// `redis.call`'s reply (RESP bytes) or error, as Redis logs them: a
    /// command's error reply is logged as an error and as the reply; a
    /// check's refusal without its `ERR` code.
    pub(crate) fn log_result(&mut self, result: &Result<bytes::BytesMut, Failed>) {
        match result {
            Ok(reply) => self.log_reply(reply),
            Err(Failed {
                text, ran: true, ..
            }) => {
                self.log_from_script(format!("<error> -{text}").into_bytes());
                self.log_reply(format!("-{text}\r\n").as_bytes());
            }
            Err(Failed {
                text, ran: false, ..
            }) => {
                let text = text.strip_prefix("ERR ").unwrap_or(text);
                self.log_from_script(format!("<error> {text}").into_bytes());
            }
        }
    }

    fn log_reply(&mut self, reply: &[u8]) {
        let mut line = b"<reply> ".to_vec();
        render::push_reply(&mut line, reply);
        self.log_trimmed(line, true);
    }

    /// `redis.debug(...)`: the values on one line.
    pub(crate) fn log_debug(&mut self, values: &[Value]) {
        let mut line = format!("<debug> line {}: ", self.current_line).into_bytes();
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                line.extend_from_slice(b", ");
            }
            render::push_value(&mut line, value);
        }
        self.log_from_script(line);
    }

    /// `redis.breakpoint()`: stop at the next line.
    pub(crate) fn break_next(&mut self) {
        self.lua_breakpoint = true;
    }

    /// The session is over: the last lines and `<endsession>`.
    pub(crate) fn end(&mut self) {
        self.log("<endsession>");
        self.send_logs();
    }

    pub(super) fn source_line(&self, line: i32) -> &[u8] {
        usize::try_from(line - 1)
            .ok()
            .and_then(|i| self.source.get(i))
            .map_or(b"<out of range source code line>", Vec::as_slice)
    }

    pub(super) fn log_source_line(&mut self, line: i32) {
        let prefix = match (line == self.current_line, self.breakpoints.contains(&line)) {
            (true, true) => "->#",
            (true, false) => "-> ",
            (false, true) => "  #",
            (false, false) => "   ",
        };
        let mut text = format!("{prefix}{line:<3} ").into_bytes();
        text.extend_from_slice(self.source_line(line));
        self.log(text);
    }
}

/// An error that ends the script, as Redis's `luaError` from the
/// debugger: named with the line it stopped at.
pub(super) fn fail(debugger: &Shared, text: &str) -> mlua::Error {
    let line = debugger
        .try_borrow()
        .map_or(0, |d| i64::from(d.current_line));
    mlua::Error::external(ReplyError {
        text: text.to_string(),
        line,
        counted: false,
    })
}
