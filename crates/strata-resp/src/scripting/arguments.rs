//! The arguments of `redis.call`, `redis.pcall` and `redis.acl_check_cmd`
//! as byte strings: strings as they are, numbers as Redis prints them
//! (`%.17g`).

use mlua::{MultiValue, Value};

use crate::number::format_g;

/// The argument list of `redis.call` as byte strings.
pub(super) fn call_args(args: MultiValue) -> Result<Vec<Vec<u8>>, String> {
    let mut argv = Vec::with_capacity(args.len());
    for arg in args {
        let text = match arg {
            Value::String(s) => s.as_bytes().to_vec(),
            // As Redis: `%.17g`, not Lua's 14 digits (0.1 is sent as
            // 0.10000000000000001).
            Value::Integer(n) => n.to_string().into_bytes(),
            Value::Number(n) => format_g(n, 17).into_bytes(),
            _ => return Err(BAD_ARGS.into()),
        };
        argv.push(text);
    }
    Ok(argv)
}

const BAD_ARGS: &str = "ERR Lua redis lib command arguments must be strings or integers";
