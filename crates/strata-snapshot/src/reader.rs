//! [`SnapshotReader`]: streams a snapshot's records back, verifying every
//! block as it goes and the trailer at the end; plus the cheap
//! header-and-trailer check that choosing a snapshot uses.

use strata_device::{Device, Directory};

use crate::chunks::Chunks;
use crate::format::{
    fold_body_crc, starts_trailer, BadHeader, BlockHeader, Header, Trailer, BLOCK_HEADER_LEN,
    FORMAT_VERSION, HEADER_LEN, MAX_BLOCK_LEN, TRAILER_LEN,
};
use crate::item::MIN_RECORD_LEN;
use crate::name::parse_snapshot_name;
use crate::stream::{FeedError, RecordStream};
use crate::{SnapshotError, SnapshotInfo, SnapshotItem};

/// An open snapshot whose header verified.
pub struct SnapshotReader {
    name: String,
    device: Box<dyn Device>,
    file_len: u64,
    header: Header,
}

impl SnapshotReader {
    /// Opens the snapshot `name` in `dir` and verifies its header (magic,
    /// checksum, format version, and the LSN against the name when it is a
    /// [`snapshot_name`](crate::snapshot_name)).
    pub fn open(dir: &dyn Directory, name: &str) -> Result<SnapshotReader, SnapshotError> {
        let device = dir
            .open(name)
            .map_err(|e| SnapshotError::io(format!("open {name}"), e))?;
        let file_len = device
            .len()
            .map_err(|e| SnapshotError::io(format!("read the length of {name}"), e))?;
        let header = read_header(&*device, name, file_len)?;
        Ok(SnapshotReader {
            name: name.to_owned(),
            device,
            file_len,
            header,
        })
    }

    /// The file name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The LSN the snapshot starts from.
    pub fn start_lsn(&self) -> u64 {
        self.header.start_lsn
    }

    /// When the snapshot was created, unix milliseconds.
    pub fn created_ms(&self) -> u64 {
        self.header.created_ms
    }

    /// Length of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Hands every record to `f`, in the order they were added, stopping at
    /// the first error `f` returns.
    ///
    /// Records are handed over as their blocks verify, so `f` may have seen
    /// some records before a later block turns out damaged: the result is
    /// then [`SnapshotError::Corrupt`] (or [`SnapshotError::Incomplete`] if
    /// the file ends before its trailer) and the caller must discard what it
    /// built. `Ok` means every block, the record count and the trailer
    /// verified. Each call reads the file from the start.
    pub fn for_each<E, F>(&mut self, mut f: F) -> Result<SnapshotInfo, E>
    where
        E: From<SnapshotError>,
        F: FnMut(SnapshotItem<'_>) -> Result<(), E>,
    {
        let file = self.name.as_str();
        let corrupt = |offset: u64, reason: String| SnapshotError::Corrupt {
            file: file.to_owned(),
            offset,
            reason,
        };
        let incomplete = |offset: u64| SnapshotError::Incomplete {
            file: file.to_owned(),
            offset,
        };
        let read_err = |e| SnapshotError::io(format!("read {file}"), e);
        let mut chunks = Chunks::new(&*self.device, self.file_len, HEADER_LEN as u64);
        let mut stream = RecordStream::default();
        let mut records = 0u64;
        let mut body_crc = 0u32;
        loop {
            let at = chunks.offset();
            if !chunks.fill(4).map_err(read_err)? {
                return Err(incomplete(at).into());
            }
            if starts_trailer(chunks.ahead()) {
                if !chunks.fill(TRAILER_LEN).map_err(read_err)? {
                    return Err(incomplete(at).into());
                }
                let mut bytes = [0u8; TRAILER_LEN];
                bytes.copy_from_slice(&chunks.ahead()[..TRAILER_LEN]);
                let trailer = match Trailer::decode(&bytes) {
                    Ok(Some(trailer)) => trailer,
                    Ok(None) => return Err(corrupt(at, "damaged trailer magic".into()).into()),
                    Err(reason) => return Err(corrupt(at, reason.into()).into()),
                };
                if !stream.at_record_boundary() {
                    let reason = "the last record is cut off by the trailer".into();
                    return Err(corrupt(at, reason).into());
                }
                if trailer.records != records {
                    let reason = format!(
                        "trailer counts {} records but the blocks hold {records}",
                        trailer.records
                    );
                    return Err(corrupt(at, reason).into());
                }
                if trailer.body_crc != body_crc {
                    let reason = "body checksum mismatch: a block is missing or out of place";
                    return Err(corrupt(at, reason.into()).into());
                }
                chunks.consume(TRAILER_LEN);
                if !chunks.at_end() {
                    return Err(corrupt(chunks.offset(), "bytes after the trailer".into()).into());
                }
                return Ok(self.info(records));
            }
            if !chunks.fill(BLOCK_HEADER_LEN).map_err(read_err)? {
                return Err(incomplete(at).into());
            }
            let header = BlockHeader::decode(chunks.ahead());
            let len = header.len as usize;
            if len == 0 || len > MAX_BLOCK_LEN {
                let reason = format!("block length {len} outside 1..={MAX_BLOCK_LEN}");
                return Err(corrupt(at, reason).into());
            }
            if !chunks.fill(BLOCK_HEADER_LEN + len).map_err(read_err)? {
                return Err(incomplete(at).into());
            }
            let (head, payload) =
                chunks.ahead()[..BLOCK_HEADER_LEN + len].split_at(BLOCK_HEADER_LEN);
            if !header.verifies(head, payload) {
                return Err(corrupt(at, "block checksum mismatch".into()).into());
            }
            let ended = match stream.feed(payload, &mut f) {
                Ok(ended) => ended,
                Err(FeedError::Callback(e)) => return Err(e),
                Err(FeedError::Corrupt(reason)) => return Err(corrupt(at, reason.into()).into()),
            };
            if ended != header.ends {
                let reason = format!(
                    "block header counts {} record ends but the block has {ended}",
                    header.ends
                );
                return Err(corrupt(at, reason).into());
            }
            records += u64::from(ended);
            body_crc = fold_body_crc(body_crc, header.crc);
            chunks.consume(BLOCK_HEADER_LEN + len);
        }
    }

    /// Reads and verifies the whole snapshot without keeping any record.
    pub fn verify(&mut self) -> Result<SnapshotInfo, SnapshotError> {
        self.for_each(|_| Ok::<_, SnapshotError>(()))
    }

    fn info(&self, records: u64) -> SnapshotInfo {
        SnapshotInfo {
            name: self.name.clone(),
            start_lsn: self.header.start_lsn,
            records,
            bytes: self.file_len,
            created_ms: self.header.created_ms,
        }
    }
}

/// Reads and verifies the header of `name`.
fn read_header(device: &dyn Device, name: &str, file_len: u64) -> Result<Header, SnapshotError> {
    if file_len < HEADER_LEN as u64 {
        return Err(SnapshotError::Incomplete {
            file: name.to_owned(),
            offset: file_len,
        });
    }
    let mut bytes = [0u8; HEADER_LEN];
    device
        .read_exact_at(&mut bytes, 0)
        .map_err(|e| SnapshotError::io(format!("read the header of {name}"), e))?;
    let corrupt = |reason: String| SnapshotError::Corrupt {
        file: name.to_owned(),
        offset: 0,
        reason,
    };
    let header = match Header::decode(&bytes) {
        Ok(header) => header,
        Err(BadHeader::Garbled(reason)) => return Err(corrupt(reason.into())),
        Err(BadHeader::Version(version)) => {
            return Err(SnapshotError::UnsupportedVersion {
                file: name.to_owned(),
                version,
                supported: FORMAT_VERSION,
            })
        }
    };
    if let Some(lsn) = parse_snapshot_name(name) {
        if lsn != header.start_lsn {
            return Err(corrupt(format!(
                "header says start LSN {} but the name says {lsn}",
                header.start_lsn
            )));
        }
    }
    Ok(header)
}

/// The cheap completeness check: verifies the header and that a valid
/// trailer ends the file (blocks are not read).
pub(crate) fn check_ends(dir: &dyn Directory, name: &str) -> Result<SnapshotInfo, SnapshotError> {
    let reader = SnapshotReader::open(dir, name)?;
    let file_len = reader.file_len;
    let body = file_len.checked_sub((HEADER_LEN + TRAILER_LEN) as u64);
    let Some(body) = body else {
        return Err(SnapshotError::Incomplete {
            file: name.to_owned(),
            offset: file_len,
        });
    };
    let at = file_len - TRAILER_LEN as u64;
    let mut bytes = [0u8; TRAILER_LEN];
    reader
        .device
        .read_exact_at(&mut bytes, at)
        .map_err(|e| SnapshotError::io(format!("read the trailer of {name}"), e))?;
    let corrupt = |reason: String| SnapshotError::Corrupt {
        file: name.to_owned(),
        offset: at,
        reason,
    };
    let trailer = match Trailer::decode(&bytes) {
        Ok(Some(trailer)) => trailer,
        // No trailer where it belongs: never finished, or cut short.
        Ok(None) => {
            return Err(SnapshotError::Incomplete {
                file: name.to_owned(),
                offset: file_len,
            })
        }
        Err(reason) => return Err(corrupt(reason.into())),
    };
    // No blocks without records (the writer never writes an empty block),
    // and no record shorter than its header.
    let fits = if trailer.records == 0 {
        body == 0
    } else {
        body > 0 && trailer.records <= body / MIN_RECORD_LEN as u64
    };
    if !fits {
        let reason = format!(
            "trailer counts {} records in {body} bytes of blocks",
            trailer.records
        );
        return Err(corrupt(reason));
    }
    Ok(reader.info(trailer.records))
}
