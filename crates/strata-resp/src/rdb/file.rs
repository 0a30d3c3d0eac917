//! [`FileWriter`]: a whole RDB file, as `SYNC` sends it and `redis-cli
//! --rdb` saves it: `REDIS` and the version, auxiliary fields, function
//! libraries, database 0 with its sizes, each key (its expiry first when
//! it has one) and value, then the end opcode and the CRC-64 of
//! everything before it. Values are written as [`put_object`] writes
//! them, in the plain encodings every Redis 7 loads.

use super::format::{put_length, put_string, Value, VERSION};
use super::write::put_object;

/// RDB opcodes (Redis's `rdb.h`).
mod opcode {
    pub const FUNCTION2: u8 = 245;
    pub const AUX: u8 = 250;
    pub const RESIZEDB: u8 = 251;
    pub const EXPIRETIME_MS: u8 = 252;
    pub const SELECTDB: u8 = 254;
    pub const EOF: u8 = 255;
}

/// An RDB file being written, in memory.
#[derive(Debug)]
pub struct FileWriter {
    out: Vec<u8>,
    /// The database's header is written before its first key.
    keys_begun: bool,
    object: Vec<u8>,
}

impl FileWriter {
    /// The header and the auxiliary `fields` (name, value).
    pub fn new(fields: &[(&str, String)]) -> FileWriter {
        let mut out = format!("REDIS{VERSION:04}").into_bytes();
        for (name, value) in fields {
            out.push(opcode::AUX);
            put_string(&mut out, name.as_bytes());
            put_string(&mut out, value.as_bytes());
        }
        FileWriter {
            out,
            keys_begun: false,
            object: Vec::new(),
        }
    }

    /// A function library's code (before any key).
    pub fn function(&mut self, code: &[u8]) {
        self.out.push(opcode::FUNCTION2);
        put_string(&mut self.out, code);
    }

    /// Starts database 0 with `keys` keys, `expires` of them with a time
    /// to live (sizes the loader may presize its tables by).
    pub fn database(&mut self, keys: u64, expires: u64) {
        self.out.push(opcode::SELECTDB);
        put_length(&mut self.out, 0);
        self.out.push(opcode::RESIZEDB);
        put_length(&mut self.out, keys);
        put_length(&mut self.out, expires);
        self.keys_begun = true;
    }

    /// One key: its expiry (Unix milliseconds), its type, its name, its
    /// value. [`database`](Self::database) must have been called.
    pub fn key(&mut self, key: &[u8], value: &Value, expires_at: Option<u64>) {
        debug_assert!(self.keys_begun, "a key before its database");
        if let Some(at) = expires_at {
            self.out.push(opcode::EXPIRETIME_MS);
            self.out.extend_from_slice(&at.to_le_bytes());
        }
        self.object.clear();
        put_object(&mut self.object, value);
        // The type byte, then the name, then the body.
        self.out.push(self.object[0]);
        put_string(&mut self.out, key);
        self.out.extend_from_slice(&self.object[1..]);
    }

    /// The finished file: the end opcode and the checksum appended.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.push(opcode::EOF);
        let crc = super::format::crc64(&self.out);
        self.out.extend_from_slice(&crc.to_le_bytes());
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_has_its_parts_in_redis_order() {
        let mut file = FileWriter::new(&[("redis-ver", "7.2.0".into())]);
        file.function(b"#!lua name=lib");
        file.database(1, 1);
        file.key(b"k", &Value::String(b"v".to_vec()), Some(0x0102));
        let bytes = file.finish();
        let mut want = b"REDIS0010".to_vec();
        want.extend([250, 9]);
        want.extend(b"redis-ver");
        want.extend([5]);
        want.extend(b"7.2.0");
        want.extend([245, 14]);
        want.extend(b"#!lua name=lib");
        want.extend([254, 0, 251, 1, 1, 252, 2, 1, 0, 0, 0, 0, 0, 0]);
        want.extend([0, 1, b'k', 1, b'v', 255]);
        assert_eq!(&bytes[..bytes.len() - 8], &want[..]);
        let crc = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
        assert_eq!(crc, super::super::format::crc64(&want));
    }
}
