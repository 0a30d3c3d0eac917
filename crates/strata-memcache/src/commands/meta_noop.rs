//! `mn`: meta no-op. Always `MN` (any words after it are ignored, as in
//! memcached); clients append it to a pipeline of quiet (`q`) meta commands
//! to learn that everything before it was processed.

use bytes::{BufMut, BytesMut};

/// Replies `MN`.
pub fn execute(out: &mut BytesMut) {
    out.put_slice(b"MN\r\n");
}
