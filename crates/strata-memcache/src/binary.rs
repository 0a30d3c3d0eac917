//! The binary protocol, which Strata does not speak: a request starting
//! with its magic byte gets one binary error response (status 0x0083 "Not
//! supported", the request's opcode and opaque echoed, as memcached
//! answers commands it does not support) and the connection closes, so a
//! binary client fails at once instead of waiting for a text reply that
//! never comes.

use bytes::{BufMut, BytesMut};

/// First byte of every binary-protocol request.
pub const REQUEST_MAGIC: u8 = 0x80;
/// First byte of every binary-protocol response.
pub const RESPONSE_MAGIC: u8 = 0x81;
/// Length of a binary-protocol header.
pub const HEADER_LEN: usize = 24;
/// Response status "Not supported".
pub const STATUS_NOT_SUPPORTED: u16 = 0x0083;
/// The error's body, memcached's text for the status.
const MESSAGE: &[u8] = b"Not supported";

/// Whether `input` starts a binary-protocol request.
pub fn is_binary(input: &[u8]) -> bool {
    input.first() == Some(&REQUEST_MAGIC)
}

/// Appends the error response to the request header at the front of
/// `input`. `false` (nothing written) while the header is incomplete.
pub fn refuse(input: &[u8], out: &mut BytesMut) -> bool {
    let Some(header) = input.get(..HEADER_LEN) else {
        return false;
    };
    out.put_u8(RESPONSE_MAGIC);
    out.put_u8(header[1]); // opcode
    out.put_u16(0); // key length
    out.put_u8(0); // extras length
    out.put_u8(0); // data type
    out.put_u16(STATUS_NOT_SUPPORTED);
    out.put_u32(MESSAGE.len() as u32); // total body length
    out.put_slice(&header[12..16]); // opaque
    out.put_u64(0); // cas
    out.put_slice(MESSAGE);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoes_opcode_and_opaque() {
        let mut request = vec![0x80, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 3];
        request.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        request.extend_from_slice(&[0; 8]);
        request.extend_from_slice(b"foo");
        let mut out = BytesMut::new();
        assert!(!refuse(&request[..23], &mut out));
        assert!(out.is_empty());
        assert!(refuse(&request, &mut out));
        assert_eq!(out.len(), HEADER_LEN + MESSAGE.len());
        assert_eq!(&out[..8], &[0x81, 0x00, 0, 0, 0, 0, 0x00, 0x83]);
        assert_eq!(&out[8..12], &13u32.to_be_bytes());
        assert_eq!(&out[12..16], &[0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(&out[24..], b"Not supported");
    }
}
