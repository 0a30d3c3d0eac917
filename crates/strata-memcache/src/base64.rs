//! Base64 for meta-command binary keys (the `b` flag), with memcached's
//! decoding leniency: characters outside the alphabet are skipped, the
//! remaining count must be a multiple of four, and decoding stops after the
//! first padded block.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn sextet(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        b'=' => Some(0),
        _ => None,
    }
}

/// Decodes `src`, or `None` where memcached answers "error decoding key"
/// (nothing decodable, a partial block, or more than two `=` in a block).
pub fn decode(src: &[u8]) -> Option<Vec<u8>> {
    let count = src.iter().filter(|&&b| sextet(b).is_some()).count();
    if count == 0 || count % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(count / 4 * 3);
    let mut block = [0u8; 4];
    let mut filled = 0;
    let mut pad = 0;
    for &b in src {
        let Some(v) = sextet(b) else { continue };
        if b == b'=' {
            pad += 1;
        }
        block[filled] = v;
        filled += 1;
        if filled == 4 {
            out.push((block[0] << 2) | (block[1] >> 4));
            out.push((block[1] << 4) | (block[2] >> 2));
            out.push((block[2] << 6) | block[3]);
            filled = 0;
            if pad > 0 {
                match pad {
                    1 => out.truncate(out.len() - 1),
                    2 => out.truncate(out.len() - 2),
                    _ => return None,
                }
                break;
            }
        }
    }
    Some(out)
}

/// Appends the padded base64 encoding of `src` to `out`.
pub fn encode_into(src: &[u8], out: &mut Vec<u8>) {
    for chunk in src.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(ALPHABET[(n >> 18) as usize & 63]);
        out.push(ALPHABET[(n >> 12) as usize & 63]);
        out.push(if chunk.len() > 1 {
            ALPHABET[(n >> 6) as usize & 63]
        } else {
            b'='
        });
        out.push(if chunk.len() > 2 {
            ALPHABET[n as usize & 63]
        } else {
            b'='
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(src: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_into(src, &mut out);
        out
    }

    #[test]
    fn round_trips() {
        for len in 0..70 {
            let data: Vec<u8> = (0..len as u8).map(|i| i.wrapping_mul(37)).collect();
            let enc = encode(&data);
            if len > 0 {
                assert_eq!(decode(&enc).as_deref(), Some(&data[..]), "len {len}");
            }
        }
        assert_eq!(encode(b"a"), b"YQ==");
        assert_eq!(encode(b"abc"), b"YWJj");
    }

    #[test]
    fn memcached_leniency() {
        assert_eq!(decode(b"YQ==").as_deref(), Some(&b"a"[..]));
        assert_eq!(
            decode(b"Y!Q==").as_deref(),
            Some(&b"a"[..]),
            "junk is skipped"
        );
        assert_eq!(
            decode(b"YQ==YQ==").as_deref(),
            Some(&b"a"[..]),
            "stops after padding"
        );
        assert_eq!(decode(b"YQ"), None);
        assert_eq!(decode(b"a"), None);
        assert_eq!(decode(b"!!!"), None);
        assert_eq!(decode(b"===="), None);
        assert_eq!(decode(b""), None);
    }
}
