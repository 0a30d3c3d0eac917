//! The arguments of `redis.call`, `redis.pcall` and `redis.acl_check_cmd`
//! as byte strings: strings as they are, numbers as Lua prints them.

use mlua::{Lua, MultiValue, Value};

/// The argument list of `redis.call` as byte strings.
pub(super) fn call_args(lua: &Lua, args: MultiValue) -> Result<Vec<Vec<u8>>, String> {
    let mut argv = Vec::with_capacity(args.len());
    for arg in args {
        let text = match arg {
            Value::String(s) => s.as_bytes().to_vec(),
            Value::Integer(_) | Value::Number(_) => match lua.coerce_string(arg) {
                Ok(Some(s)) => s.as_bytes().to_vec(),
                _ => return Err(BAD_ARGS.into()),
            },
            _ => return Err(BAD_ARGS.into()),
        };
        argv.push(text);
    }
    Ok(argv)
}

const BAD_ARGS: &str = "ERR Lua redis lib command arguments must be strings or integers";
