//! `DEBUG PROTOCOL <type>`: one test reply of each RESP3 type, Redis's
//! values, for client libraries' tests (in RESP2 each type degrades as
//! every reply of it does; `attrib` then sends only its reply, and `push`
//! is refused).

use crate::reply::{ClientError, RespError};
use crate::writer::{ReplyWriter, RespVersion};

/// Writes the test reply named `name` (any case).
pub fn reply(name: &[u8], out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    match name.to_ascii_lowercase().as_slice() {
        b"string" => out.bulk(b"Hello World"),
        b"integer" => out.integer(12345),
        // Redis's test value, not pi.
        #[allow(clippy::approx_constant)]
        b"double" => out.double(3.141),
        b"bignum" => out.big_number("1234567999999999999999999999999999999"),
        b"null" => out.null(),
        b"array" => {
            out.array(3);
            (0..3).for_each(|j| out.integer(j));
        }
        b"set" => {
            out.set(3);
            (0..3).for_each(|j| out.integer(j));
        }
        b"map" => {
            out.map(3);
            for j in 0..3 {
                out.integer(j);
                out.boolean(j == 1);
            }
        }
        b"attrib" => {
            if out.version() == RespVersion::Resp3 {
                out.attribute(1);
                out.bulk(b"key-popularity");
                out.array(2);
                out.bulk(b"key:123");
                out.integer(90);
            }
            // Attributes describe a reply: one follows.
            out.bulk(b"Some real reply following the attribute");
        }
        b"push" => {
            if out.version() == RespVersion::Resp2 {
                return Err(ClientError::Resp2NotSupported.into());
            }
            out.push(2);
            out.bulk(b"server-cpu-usage");
            out.integer(42);
            // A push is no reply: one follows for the client waiting.
            out.bulk(b"Some real reply following the push reply");
        }
        b"true" => out.boolean(true),
        b"false" => out.boolean(false),
        b"verbatim" => out.verbatim("txt", b"This is a verbatim\nstring"),
        _ => return Err(ClientError::ProtocolTypeName.into()),
    }
    Ok(())
}
