//! The device header in block 0: which geometry the device was formatted
//! with, and the random nonce that ties every block to this format.
//!
//! Layout: magic `STRATSSD` (0..8), version u32 (8..12), block size u32
//! (12..16), block count u32 (16..20, block 0 included), index home u32
//! (20..24: 0 an index rebuilt by scanning, 1 a persistent index; devices
//! formatted before it existed hold 0 there), nonce u64 (24..32), CRC32C
//! of bytes 0..32 (32..36).
//!
//! Versions: 1 (every block the primary user's; the owner bytes of block
//! headers are zero) and 2 (block headers record their owner, see
//! [`StoreUser`](crate::StoreUser)). Both are read; a new device is
//! formatted as 2, and a version 1 device is raised to 2 before the first
//! block of another user is written, so a build that knows only version 1
//! refuses it instead of reading another user's blocks as its own.

use strata_device::le::{u32_at, u64_at};

const MAGIC: [u8; 8] = *b"STRATSSD";

/// The format version this build formats devices with.
pub(crate) const DEVICE_VERSION: u32 = 2;

/// The first version whose block headers record an owner.
pub(crate) const USERS_VERSION: u32 = 2;

/// The oldest version this build reads.
const OLDEST_VERSION: u32 = 1;

const LEN: usize = 36;

/// What block 0 says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeviceHeader {
    /// The format version the device is at.
    pub(crate) version: u32,
    pub(crate) block_size: u32,
    pub(crate) block_count: u32,
    /// [`IndexHome::code`](crate::IndexHome) of the engine's index.
    pub(crate) index_home: u32,
    pub(crate) nonce: u64,
}

impl DeviceHeader {
    /// Writes the header at the start of `page` (at least 36 bytes; the
    /// rest is left as is).
    pub(crate) fn encode(&self, page: &mut [u8]) {
        page[0..8].copy_from_slice(&MAGIC);
        page[8..12].copy_from_slice(&self.version.to_le_bytes());
        page[12..16].copy_from_slice(&self.block_size.to_le_bytes());
        page[16..20].copy_from_slice(&self.block_count.to_le_bytes());
        page[20..24].copy_from_slice(&self.index_home.to_le_bytes());
        page[24..32].copy_from_slice(&self.nonce.to_le_bytes());
        let crc = crc32c::crc32c(&page[..32]);
        page[32..LEN].copy_from_slice(&crc.to_le_bytes());
    }

    /// Reads the header of `page`: `Ok(None)` if the page is all zeros (a
    /// device never formatted), an error describing the problem if it is
    /// not a valid header of this version.
    pub(crate) fn decode(page: &[u8]) -> Result<Option<DeviceHeader>, String> {
        if page.iter().all(|&b| b == 0) {
            return Ok(None);
        }
        if page[0..8] != MAGIC {
            return Err("block 0 is not a Strata SSD device header (bad magic); \
                 refusing to overwrite what may be other data"
                .into());
        }
        let crc = crc32c::crc32c(&page[..32]);
        if u32_at(page, 32) != crc {
            return Err("the device header's checksum does not match".into());
        }
        let version = u32_at(page, 8);
        if !(OLDEST_VERSION..=DEVICE_VERSION).contains(&version) {
            return Err(format!(
                "device format version {version} is not supported (this build reads \
                 {OLDEST_VERSION} to {DEVICE_VERSION})"
            ));
        }
        Ok(Some(DeviceHeader {
            version,
            block_size: u32_at(page, 12),
            block_count: u32_at(page, 16),
            index_home: u32_at(page, 20),
            nonce: u64_at(page, 24),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_damage_is_refused() {
        let header = DeviceHeader {
            version: DEVICE_VERSION,
            block_size: 1 << 20,
            block_count: 77,
            index_home: 1,
            nonce: 0xDEAD_BEEF,
        };
        let mut page = vec![0u8; 4096];
        assert_eq!(DeviceHeader::decode(&page), Ok(None));
        header.encode(&mut page);
        assert_eq!(DeviceHeader::decode(&page), Ok(Some(header)));
        DeviceHeader {
            version: 1,
            ..header
        }
        .encode(&mut page);
        assert_eq!(DeviceHeader::decode(&page).unwrap().unwrap().version, 1);
        DeviceHeader {
            version: 3,
            ..header
        }
        .encode(&mut page);
        assert!(DeviceHeader::decode(&page)
            .unwrap_err()
            .contains("version 3 is not supported"));
        header.encode(&mut page);
        page[13] ^= 1;
        assert!(DeviceHeader::decode(&page)
            .unwrap_err()
            .contains("checksum"));
        page[0] = b'X';
        assert!(DeviceHeader::decode(&page).unwrap_err().contains("magic"));
    }
}
