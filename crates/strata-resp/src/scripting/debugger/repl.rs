//! The debugger's prompt: reads the client's commands from the console
//! while the script is stopped and answers each with an array of lines,
//! until one lets the script go on (`step`, `continue`) or ends it
//! (`abort`, a protocol error, too much unread input). The session's
//! state is borrowed only between Lua calls: `eval` and `redis` run Lua,
//! which logs through it.

use std::sync::atomic::Ordering;
use std::time::Duration;

use mlua::{Function, Lua, MultiValue, Value};

use super::request::{self, Parsed};
use super::session::{fail, Debugger, Shared, MAX_BREAKPOINTS};
use super::{locals, render};
use crate::number::parse_i64;
use crate::scripting::errors::Killed;
use crate::scripting::sandbox;

/// Most unread bytes from the client (Redis's 1 MB).
const MAX_INPUT: usize = 1 << 20;
/// How long one read waits before `SCRIPT KILL` and `CLIENT KILL` are
/// looked at again.
const READ_SLICE: Duration = Duration::from_millis(100);

/// How the prompt ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Went {
    /// The client said to go on.
    On,
    /// The client closed (or was killed): the script runs on without stops.
    ClientGone,
}

const HELP: &[&str] = &[
    "Redis Lua debugger help:",
    "[h]elp               Show this help.",
    "[s]tep               Run current line and stop again.",
    "[n]ext               Alias for step.",
    "[c]ontinue           Run till next breakpoint.",
    "[l]ist               List source code around current line.",
    "[l]ist [line]        List source code around [line].",
    "                     line = 0 means: current position.",
    "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
    "                     to show before/after [line].",
    "[w]hole              List all source code. Alias for 'list 1 1000000'.",
    "[p]rint              Show all the local variables.",
    "[p]rint <var>        Show the value of the specified variable.",
    "                     Can also show global vars KEYS and ARGV.",
    "[b]reak              Show all breakpoints.",
    "[b]reak <line>       Add a breakpoint to the specified line.",
    "[b]reak -<line>      Remove breakpoint from the specified line.",
    "[b]reak 0            Remove all breakpoints.",
    "[t]race              Show a backtrace.",
    "[e]val <code>        Execute some Lua code (in a different callframe).",
    "[r]edis <cmd>        Execute a Redis command.",
    "[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
    "                     Specifying zero as <len> means unlimited.",
    "[a]bort              Stop the execution of the script. In sync",
    "                     mode dataset changes will be retained.",
    "",
    "Debugger functions you can call from Lua scripts:",
    "redis.debug()        Produce logs in the debugger console.",
    "redis.breakpoint()   Stop execution like if there was a breakpoint in the",
    "                     next line of code.",
];

/// Serves the client's commands until one lets the script go on.
pub(super) fn run(lua: &Lua, debugger: &Shared) -> mlua::Result<Went> {
    loop {
        let Some(argv) = next_command(debugger)? else {
            let mut d = debugger.borrow_mut();
            d.step = false;
            d.breakpoints.clear();
            return Ok(Went::ClientGone);
        };
        let name = String::from_utf8_lossy(&argv[0]).to_ascii_lowercase();
        match name.as_str() {
            "s" | "step" | "n" | "next" => {
                debugger.borrow_mut().step = true;
                return Ok(Went::On);
            }
            "c" | "continue" => return Ok(Went::On),
            "a" | "abort" => return Err(fail(debugger, "ERR script aborted for user request")),
            "h" | "help" => {
                let mut d = debugger.borrow_mut();
                HELP.iter().for_each(|line| d.log(*line));
            }
            "t" | "trace" => trace(lua, debugger),
            "m" | "maxlen" => maxlen(debugger, &argv),
            "b" | "break" => breakpoints(debugger, &argv),
            "e" | "eval" => eval(lua, debugger, &argv),
            "r" | "redis" if argv.len() > 1 => redis(lua, debugger, &argv),
            "p" | "print" => print(lua, debugger, &argv),
            "l" | "list" => {
                let mut d = debugger.borrow_mut();
                let around = argv.get(1).map(|a| atoi(a)).filter(|&n| n > 0);
                let around = around.unwrap_or(i64::from(d.current_line));
                let context = argv.get(2).map_or(5, |a| atoi(a));
                list(&mut d, around, context);
            }
            "w" | "whole" => list(&mut debugger.borrow_mut(), 1, 1_000_000),
            _ => debugger
                .borrow_mut()
                .log("<error> Unknown Redis Lua debugger command or wrong number of arguments."),
        }
        debugger.borrow_mut().send_logs();
    }
}

/// The next command from the client; `None` when it closed or was
/// killed. `SCRIPT KILL` ends the script from here too.
fn next_command(debugger: &Shared) -> mlua::Result<Option<Vec<Vec<u8>>>> {
    let mut buf = [0u8; 1024];
    loop {
        let mut d = debugger.borrow_mut();
        match request::parse(&d.input) {
            Parsed::Command(argv, _) => {
                // As Redis: what came after the command is dropped with it.
                d.input.clear();
                return Ok(Some(argv));
            }
            Parsed::Invalid => {
                d.input.clear();
                drop(d);
                return Err(fail(debugger, "ERR protocol error"));
            }
            Parsed::Incomplete => {}
        }
        if d.kill.load(Ordering::Relaxed) {
            return Err(mlua::Error::external(Killed));
        }
        if d.client.is_closing() {
            return Ok(None);
        }
        match d.console.read(&mut buf, READ_SLICE) {
            Ok(None) => {}
            Ok(Some(0)) | Err(_) => return Ok(None),
            Ok(Some(n)) => {
                d.input.extend_from_slice(&buf[..n]);
                if d.input.len() > MAX_INPUT {
                    d.input = Vec::new();
                    drop(d);
                    return Err(fail(debugger, "ERR max client buffer reached"));
                }
            }
        }
    }
}

/// C's `atoi` on an argument, within `int`'s range.
fn atoi(arg: &[u8]) -> i64 {
    request::atoi(arg).clamp(i32::MIN.into(), i32::MAX.into())
}

fn list(d: &mut Debugger, around: i64, context: i64) {
    let lines = d.source.len() as i64;
    for line in 1..=lines {
        if around != 0 && (around - line).abs() > context {
            continue;
        }
        d.log_source_line(line as i32);
    }
}

fn maxlen(debugger: &Shared, argv: &[Vec<u8>]) {
    let mut d = debugger.borrow_mut();
    if argv.len() == 2 {
        let mut len = atoi(&argv[1]);
        d.maxlen_hint_sent = true;
        if len != 0 && len <= 60 {
            len = 60;
        }
        d.maxlen = usize::try_from(len).unwrap_or(0);
    }
    let line = match d.maxlen {
        0 => "<value> replies are unlimited.".to_string(),
        n => format!("<value> replies are truncated at {n} bytes."),
    };
    d.log(line);
}

fn breakpoints(debugger: &Shared, argv: &[Vec<u8>]) {
    let mut d = debugger.borrow_mut();
    if argv.len() == 1 {
        if d.breakpoints.is_empty() {
            d.log("No breakpoints set. Use 'b <line>' to add one.");
            return;
        }
        let count = d.breakpoints.len();
        d.log(format!("{count} breakpoints set:"));
        for line in d.breakpoints.clone() {
            d.log_source_line(line);
        }
        return;
    }
    for arg in &argv[1..] {
        let Some(line) = parse_i64(arg) else {
            d.log(format!(
                "Invalid argument:'{}'",
                String::from_utf8_lossy(arg)
            ));
            continue;
        };
        let lines = d.source.len() as i64;
        match line {
            0 => {
                d.breakpoints.clear();
                d.log("All breakpoints removed.");
            }
            _ if line > 0 => {
                if d.breakpoints.len() == MAX_BREAKPOINTS {
                    d.log("Too many breakpoints set.");
                } else if line <= lines && !d.breakpoints.contains(&(line as i32)) {
                    d.breakpoints.push(line as i32);
                    list(&mut d, line, 1);
                } else {
                    d.log("Wrong line number.");
                }
            }
            _ => match d.breakpoints.iter().position(|&b| -i64::from(b) == line) {
                Some(at) => {
                    d.breakpoints.remove(at);
                    d.log("Breakpoint removed.");
                }
                None => d.log("No breakpoint in the specified line."),
            },
        }
    }
}

/// `print` (the current frame's locals) or `print <var>` (the first local
/// of that name from the current frame outward, else `KEYS` or `ARGV`).
fn print(lua: &Lua, debugger: &Shared, argv: &[Vec<u8>]) {
    if argv.len() == 2 {
        let name = String::from_utf8_lossy(&argv[1]).into_owned();
        let value = locals::find(lua, &name).or_else(|| {
            matches!(name.as_str(), "KEYS" | "ARGV")
                .then(|| lua.globals().raw_get::<Value>(name.as_str()).ok())
                .flatten()
        });
        let mut d = debugger.borrow_mut();
        match value {
            Some(value) => {
                let mut line = b"<value> ".to_vec();
                render::push_value(&mut line, &value);
                d.log_trimmed(line, false);
            }
            None => d.log("No such variable."),
        }
        return;
    }
    let found = locals::current(lua);
    let mut d = debugger.borrow_mut();
    if found.is_empty() {
        d.log("No local variables in the current context.");
    }
    for (name, value) in found {
        let mut line = format!("<value> {name} = ").into_bytes();
        render::push_value(&mut line, &value);
        d.log_trimmed(line, false);
    }
}

/// `trace`: the script's frames from the current one outward.
fn trace(lua: &Lua, debugger: &Shared) {
    let mut frames = Vec::new();
    let mut level = 0;
    while let Some(frame) = lua.inspect_stack(level) {
        let source = frame.source();
        if source
            .short_src
            .as_deref()
            .is_some_and(|s| s.contains("user_script"))
        {
            let name = frame.names().name.map(|n| n.into_owned());
            frames.push((level, name, frame.curr_line()));
        }
        level += 1;
    }
    let mut d = debugger.borrow_mut();
    if level == 0 {
        d.log("<error> Can't retrieve Lua stack.");
    }
    for (at, name, line) in frames {
        let place = if at == 0 { "In" } else { "From" };
        d.log(format!(
            "{place} {}:",
            name.as_deref().unwrap_or("top level")
        ));
        d.log_source_line(line);
    }
}

/// `eval <code>`: run as an expression (`return <code>`), else as a
/// statement, in the scripts' environment; its result or error logged.
fn eval(lua: &Lua, debugger: &Shared, argv: &[Vec<u8>]) {
    let code = argv[1..].join(&b' ');
    let env = sandbox::script_environment(lua);
    let load = |text: &[u8]| {
        let mut chunk = lua
            .load(text)
            .set_name("@ldb_eval")
            .set_mode(mlua::ChunkMode::Text);
        if let Ok(env) = &env {
            chunk = chunk.set_environment(env.clone());
        }
        chunk.into_function()
    };
    let function: Result<Function, mlua::Error> =
        load(&[b"return ".as_slice(), &code].concat()).or_else(|_| load(&code));
    let result = function.and_then(|f| f.call::<Value>(()));
    let mut d = debugger.borrow_mut();
    match result {
        Ok(value) => {
            let mut line = b"<retval> ".to_vec();
            render::push_value(&mut line, &value);
            d.log_trimmed(line, false);
        }
        Err(err) => d.log(format!("<error> {}", error_text(&err))),
    }
}

/// `redis <cmd> ...`: run through `redis.call` with logging on, so the
/// command and its reply are shown; its error does not end the script.
fn redis(lua: &Lua, debugger: &Shared, argv: &[Vec<u8>]) {
    let call = sandbox::redis_table(lua).and_then(|redis| redis.raw_get::<Function>("call"));
    let Ok(call) = call else {
        debugger
            .borrow_mut()
            .log("<error> redis.call is not available here.");
        return;
    };
    let args: mlua::Result<MultiValue> = argv[1..]
        .iter()
        .map(|arg| lua.create_string(arg).map(Value::String))
        .collect();
    debugger.borrow_mut().step = true;
    let _ = args.and_then(|args| call.call::<Value>(args));
    debugger.borrow_mut().step = false;
}

/// An error's message alone (no traceback, no wrapping).
fn error_text(err: &mlua::Error) -> String {
    match err {
        mlua::Error::CallbackError { cause, .. } => error_text(cause),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::RuntimeError(text) => text
            .split("\nstack traceback:")
            .next()
            .unwrap_or_default()
            .to_string(),
        other => other.to_string(),
    }
}
