//! [`Catalog`]: which entries hold each file of a [`FileSet`](super::FileSet),
//! and its encoding, kept in one small file of the user's directory and
//! replaced whole (atomically and durably) at every commit.
//!
//! Layout (little-endian): magic `SSDFILES` (0..8), version u32, the
//! store's device id u64 (so a catalog never names entries of another
//! device), file count u32, then per file (in name order): name length
//! u16, the UTF-8 name, length u64, chunk count u32, and per chunk its
//! packed [`BlockLoc`] u64 and payload length u32; CRC32C of all of it
//! last.

use std::collections::BTreeMap;

use strata_device::le::{u32_at, u64_at};

use crate::error::SsdError;
use crate::loc::BlockLoc;

const MAGIC: [u8; 8] = *b"SSDFILES";
const VERSION: u32 = 1;
/// Bytes of the fixed header (magic, version, device id, file count).
const HEADER_LEN: usize = 24;

/// One entry holding a piece of a file: its location and payload length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub(crate) loc: BlockLoc,
    pub(crate) len: u32,
}

/// A file: its length and the entries holding it, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FileChunks {
    pub(crate) len: u64,
    pub(crate) chunks: Vec<Chunk>,
}

/// The files of one set and where their bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    /// The device the entries are on ([`SsdStore::device_id`](crate::SsdStore::device_id)).
    pub(crate) device_id: u64,
    pub(crate) files: BTreeMap<String, FileChunks>,
}

impl Catalog {
    /// An empty catalog for the device `device_id`.
    pub fn empty(device_id: u64) -> Catalog {
        Catalog {
            device_id,
            files: BTreeMap::new(),
        }
    }

    /// The files' names and lengths, in name order.
    pub fn files(&self) -> impl Iterator<Item = (&str, u64)> {
        self.files.iter().map(|(name, f)| (name.as_str(), f.len))
    }

    /// Every entry the catalog names, with its payload length.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (BlockLoc, usize)> + '_ {
        (self.files.values()).flat_map(|f| f.chunks.iter().map(|c| (c.loc, c.len as usize)))
    }

    /// The catalog's bytes.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + 64 * self.files.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.device_id.to_le_bytes());
        out.extend_from_slice(&(self.files.len() as u32).to_le_bytes());
        for (name, file) in &self.files {
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&file.len.to_le_bytes());
            out.extend_from_slice(&(file.chunks.len() as u32).to_le_bytes());
            for chunk in &file.chunks {
                out.extend_from_slice(&chunk.loc.pack().to_le_bytes());
                out.extend_from_slice(&chunk.len.to_le_bytes());
            }
        }
        let crc = crc32c::crc32c(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads a catalog's bytes; the error says what is wrong.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Catalog, String> {
        if bytes.len() < HEADER_LEN + 4 || bytes[..8] != MAGIC {
            return Err("not a file catalog".into());
        }
        let body = bytes.len() - 4;
        if crc32c::crc32c(&bytes[..body]) != u32_at(bytes, body) {
            return Err("checksum mismatch".into());
        }
        let version = u32_at(bytes, 8);
        if version != VERSION {
            return Err(format!("catalog version {version} is not supported"));
        }
        let mut reader = Reader {
            bytes: &bytes[..body],
            at: HEADER_LEN,
        };
        let mut files = BTreeMap::new();
        for _ in 0..u32_at(bytes, 20) {
            let raw = reader.take(2)?;
            let name_len = usize::from(u16::from_le_bytes([raw[0], raw[1]]));
            let name = std::str::from_utf8(reader.take(name_len)?)
                .map_err(|_| "a file name is not UTF-8".to_string())?
                .to_owned();
            let len = u64_at(reader.take(8)?, 0);
            let count = u32_at(reader.take(4)?, 0) as usize;
            let mut chunks = Vec::with_capacity(count.min(body / 12));
            for _ in 0..count {
                let raw = reader.take(12)?;
                chunks.push(Chunk {
                    loc: BlockLoc::unpack(u64_at(raw, 0)),
                    len: u32_at(raw, 8),
                });
            }
            let held: u64 = chunks.iter().map(|c| u64::from(c.len)).sum();
            if held != len {
                return Err(format!("{name}: chunks hold {held} bytes, not {len}"));
            }
            files.insert(name, FileChunks { len, chunks });
        }
        if reader.at != body {
            return Err("bytes after the last file".into());
        }
        Ok(Catalog {
            device_id: u64_at(bytes, 12),
            files,
        })
    }

    /// [`decode`](Self::decode) as the store's error, naming the file.
    pub(crate) fn decode_named(bytes: &[u8], name: &str) -> Result<Catalog, SsdError> {
        Catalog::decode(bytes).map_err(|reason| SsdError::Catalog {
            name: name.to_owned(),
            reason,
        })
    }
}

/// A cursor over the catalog's bytes that refuses to run past them.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        let end = end.ok_or_else(|| "the catalog ends inside a file".to_string())?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Catalog {
        let mut catalog = Catalog::empty(0xfeed);
        let chunk = |block, offset, len| Chunk {
            loc: BlockLoc { block, offset },
            len,
        };
        catalog.files.insert(
            "a.idx".into(),
            FileChunks {
                len: 70_000,
                chunks: vec![chunk(3, 64, 65_536), chunk(3, 65_616, 4_464)],
            },
        );
        catalog.files.insert("empty".into(), FileChunks::default());
        catalog
    }

    #[test]
    fn catalogs_round_trip_and_damage_is_refused() {
        let catalog = sample();
        let bytes = catalog.encode();
        assert_eq!(Catalog::decode(&bytes), Ok(catalog.clone()));
        assert_eq!(
            catalog.files().collect::<Vec<_>>(),
            [("a.idx", 70_000), ("empty", 0)]
        );
        assert_eq!(catalog.entries().count(), 2);
        for cut in [0, 10, bytes.len() - 1] {
            assert!(Catalog::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[30] ^= 1;
        assert!(Catalog::decode(&flipped).unwrap_err().contains("checksum"));
    }

    #[test]
    fn a_file_count_past_the_bytes_is_refused_without_allocating_it() {
        let mut bytes = Catalog::empty(1).encode();
        bytes.truncate(bytes.len() - 4);
        bytes[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        let crc = crc32c::crc32c(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        assert!(Catalog::decode(&bytes).unwrap_err().contains("ends inside"));
    }
}
