//! [`SnapshotWriter`]: streams records into checksummed blocks of a
//! temporary file and makes it a complete snapshot only in `finish`.
//!
//! Durability order in `finish`: last block and trailer written, file
//! synced, renamed to its final name, directory synced. Until the last step
//! returns, a crash leaves the previous snapshots as they were (plus at most
//! a stray `.tmp`, which nothing reads). A failed write or sync fails the
//! writer for good: it never retries a sync and reports success.

use std::io;

use strata_device::{Device, Directory};

use crate::format::{fold_body_crc, BlockHeader, Header, Trailer, BLOCK_HEADER_LEN};
use crate::item::MAX_RECORD_HEADER_LEN;
use crate::name::{parse_snapshot_name, temp_name};
use crate::throttle::Throttle;
use crate::{SnapshotError, SnapshotInfo, SnapshotItem, WriterOptions};

/// Writes one snapshot. Not thread-safe by itself (`&mut self`), but `Send`:
/// the usual home is a background thread that owns the directory handle.
///
/// Dropping a writer that was not finished removes its temporary file (best
/// effort), as [`abort`](Self::abort) does.
pub struct SnapshotWriter<'d> {
    dir: &'d dyn Directory,
    name: String,
    temp: String,
    device: Box<dyn Device>,
    header: Header,
    block_size: usize,
    /// The block being filled: `BLOCK_HEADER_LEN` bytes to be sealed, then
    /// the payload so far. Never sealed while it could take more bytes, so
    /// the last byte of every added record is in the current block.
    block: Vec<u8>,
    block_ends: u32,
    /// Bytes written to the device so far.
    offset: u64,
    records: u64,
    body_crc: u32,
    throttle: Option<Throttle>,
    /// Sync after this many bytes past `synced`; see `WriterOptions::sync_every`.
    sync_every: Option<u64>,
    synced: u64,
    state: State,
}

enum State {
    Writing,
    /// A write or sync failed; the text of the first failure.
    Failed(String),
    /// Finished or aborted: nothing left to clean up.
    Done,
}

impl<'d> SnapshotWriter<'d> {
    /// Starts the snapshot `name` (normally [`snapshot_name`](crate::snapshot_name)
    /// of `start_lsn`) in `dir`, writing to `<name>.tmp` (replacing any stray
    /// one). `rate` paces writes to about that many bytes per second.
    ///
    /// The caller guarantees that the snapshot will hold the state as of
    /// `start_lsn`: applying every log record with an LSN at or above it to
    /// the snapshot reproduces the state.
    pub fn create(
        dir: &'d dyn Directory,
        name: &str,
        start_lsn: u64,
        rate: Option<u64>,
    ) -> Result<SnapshotWriter<'d>, SnapshotError> {
        SnapshotWriter::create_with(dir, name, start_lsn, WriterOptions::new().rate(rate))
    }

    /// [`create`](Self::create) with every setting of [`WriterOptions`].
    pub fn create_with(
        dir: &'d dyn Directory,
        name: &str,
        start_lsn: u64,
        options: WriterOptions,
    ) -> Result<SnapshotWriter<'d>, SnapshotError> {
        options.validate()?;
        if let Some(lsn) = parse_snapshot_name(name) {
            if lsn != start_lsn {
                return Err(SnapshotError::InvalidName {
                    name: name.to_owned(),
                    reason: format!("names LSN {lsn} but the snapshot starts at LSN {start_lsn}"),
                });
            }
        }
        let temp = temp_name(name);
        let device = dir
            .create(&temp)
            .map_err(|e| SnapshotError::io(format!("create {temp}"), e))?;
        let throttle = options
            .rate
            .map(|rate| Throttle::new(rate, options.block_size, options.clock.clone()));
        let mut block = Vec::with_capacity(BLOCK_HEADER_LEN + options.block_size);
        block.resize(BLOCK_HEADER_LEN, 0);
        let mut writer = SnapshotWriter {
            dir,
            name: name.to_owned(),
            temp,
            device,
            header: Header {
                start_lsn,
                created_ms: options.creation_time(),
            },
            block_size: options.block_size,
            block,
            block_ends: 0,
            offset: 0,
            records: 0,
            body_crc: 0,
            throttle,
            sync_every: options.sync_every,
            synced: 0,
            state: State::Writing,
        };
        // On failure the writer is dropped, which removes the temp file.
        let header = writer.header.encode();
        writer.write(&header)?;
        Ok(writer)
    }

    /// Appends one record.
    ///
    /// Records come back from a reader in the order they were added.
    pub fn add(&mut self, item: &SnapshotItem<'_>) -> Result<(), SnapshotError> {
        self.check_writing()?;
        item.check_size()?;
        let mut header = [0u8; MAX_RECORD_HEADER_LEN];
        let len = item.encode_header(&mut header);
        self.push(&header[..len])?;
        self.push(item.key)?;
        self.push(item.value)?;
        self.block_ends += 1;
        self.records += 1;
        Ok(())
    }

    /// Records added so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Bytes written to the device so far (the current block excluded).
    pub fn bytes_written(&self) -> u64 {
        self.offset
    }

    /// The final name of the snapshot.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Completes the snapshot: writes the last block and the trailer, syncs
    /// the file, renames it to its final name and syncs the directory. Only
    /// when this returns `Ok` is the snapshot complete and durable; on an
    /// error it is not (the temporary file is removed, best effort) and any
    /// older snapshot is still the newest complete one. (One exception: when
    /// only the final directory sync fails and the snapshot replaced one of
    /// the same name, the new, complete file stays in place.)
    pub fn finish(mut self) -> Result<SnapshotInfo, SnapshotError> {
        self.check_writing()?;
        if self.block.len() > BLOCK_HEADER_LEN {
            self.seal_block()?;
        }
        let trailer = Trailer {
            records: self.records,
            body_crc: self.body_crc,
        };
        self.write(&trailer.encode())?;
        let name = self.name.clone();
        let temp = self.temp.clone();
        self.check(self.device.sync(), || format!("sync {temp}"))?;
        let replacing = self.dir.open(&name).is_ok();
        self.check(self.dir.rename(&temp, &name), || {
            format!("rename {temp} to {name}")
        })?;
        if let Err(e) = self.dir.sync_names() {
            // The rename may or may not survive a crash: take the name back,
            // so that no snapshot `finish` did not vouch for is chosen. But
            // if it replaced a snapshot of the same name, that one is gone
            // either way and this complete, synced file is its best heir.
            if !replacing {
                let _ = self.dir.remove(&name);
            }
            self.state = State::Done;
            return Err(SnapshotError::io(
                format!("sync the directory of {name}"),
                e,
            ));
        }
        self.state = State::Done;
        Ok(SnapshotInfo {
            name,
            start_lsn: self.header.start_lsn,
            records: self.records,
            bytes: self.offset,
            created_ms: self.header.created_ms,
        })
    }

    /// Gives up: removes the temporary file. Never touches complete
    /// snapshots.
    pub fn abort(mut self) -> Result<(), SnapshotError> {
        self.state = State::Done;
        match self.dir.remove(&self.temp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(SnapshotError::io(format!("remove {}", self.temp), e))
            }
            _ => Ok(()),
        }
    }

    /// Appends bytes to the record stream, sealing full blocks first.
    fn push(&mut self, mut bytes: &[u8]) -> Result<(), SnapshotError> {
        while !bytes.is_empty() {
            let room = BLOCK_HEADER_LEN + self.block_size - self.block.len();
            if room == 0 {
                self.seal_block()?;
                continue;
            }
            let take = room.min(bytes.len());
            self.block.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        Ok(())
    }

    /// Seals and writes the current block, and starts the next.
    fn seal_block(&mut self) -> Result<(), SnapshotError> {
        let crc = BlockHeader::seal(&mut self.block, self.block_ends);
        let block = std::mem::take(&mut self.block);
        let written = self.write(&block);
        self.block = block;
        self.block.truncate(BLOCK_HEADER_LEN);
        written?;
        self.body_crc = fold_body_crc(self.body_crc, crc);
        self.block_ends = 0;
        Ok(())
    }

    /// Paces, then writes `bytes` at the end of the file.
    fn write(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        if let Some(throttle) = &mut self.throttle {
            throttle.take(bytes.len());
        }
        let offset = self.offset;
        let temp = self.temp.clone();
        self.check(self.device.write_all_at(bytes, offset), || {
            format!("write {} bytes to {temp} at offset {offset}", bytes.len())
        })?;
        self.offset += bytes.len() as u64;
        if self
            .sync_every
            .is_some_and(|every| self.offset - self.synced >= every)
        {
            self.synced = self.offset;
            let temp = self.temp.clone();
            self.check(self.device.sync(), || format!("sync {temp}"))?;
        }
        Ok(())
    }

    /// Turns a device error into the writer's failure.
    fn check(
        &mut self,
        result: io::Result<()>,
        context: impl FnOnce() -> String,
    ) -> Result<(), SnapshotError> {
        result.map_err(|e| {
            let error = SnapshotError::io(context(), e);
            self.state = State::Failed(error.to_string());
            error
        })
    }

    fn check_writing(&self) -> Result<(), SnapshotError> {
        match &self.state {
            State::Writing => Ok(()),
            State::Failed(cause) => Err(SnapshotError::WriterFailed {
                name: self.name.clone(),
                cause: cause.clone(),
            }),
            State::Done => unreachable!("a finished writer is consumed"),
        }
    }
}

impl Drop for SnapshotWriter<'_> {
    fn drop(&mut self) {
        if !matches!(self.state, State::Done) {
            // Best effort: a stray temp file is harmless and removed later
            // by `remove_older_than`.
            let _ = self.dir.remove(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::HEADER_LEN;
    use strata_device::MemDirectory;

    fn item(i: u32) -> Vec<u8> {
        format!("key-{i}").into_bytes()
    }

    #[test]
    fn writer_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<SnapshotWriter<'static>>();
    }

    #[test]
    fn header_size_constant_matches() {
        assert_eq!(
            Header {
                start_lsn: 0,
                created_ms: 0
            }
            .encode()
            .len(),
            HEADER_LEN
        );
    }

    #[test]
    fn blocks_are_cut_at_the_block_size() {
        let dir = MemDirectory::new();
        let options = WriterOptions::new().block_size(10);
        let mut writer = SnapshotWriter::create_with(&dir, "s", 1, options).unwrap();
        for i in 0..10 {
            let key = item(i);
            let it = SnapshotItem {
                key: &key,
                value: b"",
                flags: 0,
                cas: 0,
                expires_at: None,
            };
            writer.add(&it).unwrap();
        }
        // 10 records of 10 bytes: nine full blocks written, the tenth
        // still pending because it could take more.
        assert_eq!(
            writer.bytes_written(),
            (HEADER_LEN + 9 * (BLOCK_HEADER_LEN + 10)) as u64
        );
        let info = writer.finish().unwrap();
        assert_eq!(info.records, 10);
        assert_eq!(dir.list().unwrap(), ["s"]);
    }

    /// Bytes of the unfinished snapshot that survive a power cut after
    /// `items` records were added.
    fn durable_bytes_after(options: WriterOptions, items: u32) -> u64 {
        let dir = MemDirectory::new();
        let options = options.block_size(64);
        let mut writer = SnapshotWriter::create_with(&dir, "s", 1, options).unwrap();
        dir.sync_names().unwrap(); // so the temporary name itself survives the cut
        for i in 0..items {
            let key = item(i);
            let it = SnapshotItem {
                key: &key,
                value: &[7; 50],
                flags: 0,
                cas: 0,
                expires_at: None,
            };
            writer.add(&it).unwrap();
        }
        let after_cut = dir.crash();
        let temp = temp_name("s");
        let durable = after_cut.open(&temp).map_or(0, |d| d.len().unwrap());
        drop(writer);
        durable
    }

    #[test]
    fn sync_every_makes_the_file_durable_as_it_grows() {
        assert_eq!(durable_bytes_after(WriterOptions::new(), 200), 0);
        let durable = durable_bytes_after(WriterOptions::new().sync_every(Some(4096)), 200);
        // ~12 KiB written: synced at least twice, never ahead of the writes.
        assert!((8192..12 * 1024 + 4096).contains(&durable), "{durable}");
        let refused = WriterOptions::new().sync_every(Some(0));
        assert!(SnapshotWriter::create_with(&MemDirectory::new(), "s", 1, refused).is_err());
    }
}
