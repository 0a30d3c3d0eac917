//! The format's constants, its [`Value`], its length and string encoding
//! ([`put_length`], [`put_string`]) and its footer: [`seal`] writes the
//! RDB version and the CRC-64 after an object, [`open`] checks them. A
//! leaf.

/// Redis's CRC-64 (Jones polynomial, reflected).
const CRC64: crc::Crc<u64> = crc::Crc::<u64>::new(&crc::CRC_64_REDIS);

/// The RDB version Strata's payloads carry: Redis 7.0's (10). Redis's
/// `RESTORE` refuses a payload newer than its own RDB version, so 10 is
/// what lets every Redis 7 (7.0 is 10, 7.2 is 11, 7.4 is 12) restore
/// Strata's dumps; and it is true of what is written, since every
/// encoding [`dump`](super::dump) uses (types 0, 1, 2, 4 and 5, and the
/// streams' 19, which came with version 10) and the function opcode are
/// as old.
pub const VERSION: u16 = 10;

/// The newest RDB version Strata reads: Redis 7.4's (12), whose dumps of
/// these types use the encodings 7.2 (11) introduced; the types it added
/// (hashes with field expiry) are refused as bad data.
pub const MAX_VERSION: u16 = 12;

/// Largest string a payload may declare when no `proto-max-bulk-len`
/// applies (`FUNCTION RESTORE`): Redis's default.
pub const MAX_STRING: usize = 512 << 20;

/// A key's value as a `DUMP` payload carries it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string (HyperLogLogs and bitmaps included).
    String(Vec<u8>),
    /// A list's elements in order.
    List(Vec<Vec<u8>>),
    /// A set's members (none twice).
    Set(Vec<Vec<u8>>),
    /// A sorted set's (score, member) entries, no member twice, no NaN.
    SortedSet(Vec<(f64, Vec<u8>)>),
    /// A hash's fields and values alternating (no field twice).
    Hash(Vec<Vec<u8>>),
    /// A stream: entries, counters, consumer groups.
    Stream(Box<StreamValue>),
}

/// A stream identifier: (milliseconds, sequence).
pub type Id = (u64, u64);

/// A stream as a payload carries it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamValue {
    /// Live entries in rising order: identifier, fields and values
    /// alternating.
    pub entries: Vec<(Id, Vec<Vec<u8>>)>,
    /// The largest identifier ever added (or set).
    pub last_id: Id,
    /// The largest identifier deleted.
    pub max_deleted: Id,
    /// Entries ever added.
    pub entries_added: u64,
    /// Consumer groups.
    pub groups: Vec<StreamGroup>,
}

/// A consumer group as a payload carries it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StreamGroup {
    /// Its name.
    pub name: Vec<u8>,
    /// The last entry delivered to it.
    pub last_id: Id,
    /// Its read counter; `None` when unknown.
    pub entries_read: Option<u64>,
    /// Pending entries: identifier, consumer (an index into
    /// `consumers`), delivery time (Unix ms), delivery count.
    pub pending: Vec<(Id, usize, u64, u64)>,
    /// Consumers: name, seen time, active time (Unix ms).
    pub consumers: Vec<(Vec<u8>, u64, Option<u64>)>,
}

/// RDB object types (`rdb.h`).
pub(crate) mod kind {
    pub const STRING: u8 = 0;
    pub const LIST: u8 = 1;
    pub const SET: u8 = 2;
    pub const ZSET: u8 = 3;
    pub const HASH: u8 = 4;
    pub const ZSET_2: u8 = 5;
    pub const LIST_ZIPLIST: u8 = 10;
    pub const SET_INTSET: u8 = 11;
    pub const ZSET_ZIPLIST: u8 = 12;
    pub const HASH_ZIPLIST: u8 = 13;
    pub const LIST_QUICKLIST: u8 = 14;
    pub const STREAM_LISTPACKS: u8 = 15;
    pub const HASH_LISTPACK: u8 = 16;
    pub const ZSET_LISTPACK: u8 = 17;
    pub const LIST_QUICKLIST_2: u8 = 18;
    pub const STREAM_LISTPACKS_2: u8 = 19;
    pub const SET_LISTPACK: u8 = 20;
    pub const STREAM_LISTPACKS_3: u8 = 21;
}

/// RDB's length encoding.
pub fn put_length(out: &mut Vec<u8>, len: u64) {
    if len < 1 << 6 {
        out.push(len as u8);
    } else if len < 1 << 14 {
        out.push(0x40 | (len >> 8) as u8);
        out.push(len as u8);
    } else if len <= u64::from(u32::MAX) {
        out.push(0x80);
        out.extend_from_slice(&(len as u32).to_be_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// An RDB string, raw.
pub fn put_string(out: &mut Vec<u8>, bytes: &[u8]) {
    put_length(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Appends the footer: `version`, then the CRC-64 of all of `out`.
pub fn seal(out: &mut Vec<u8>, version: u16) {
    out.extend_from_slice(&version.to_le_bytes());
    let crc = CRC64.checksum(out);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// Redis's CRC-64 of `bytes` (an RDB file's checksum).
pub fn crc64(bytes: &[u8]) -> u64 {
    CRC64.checksum(bytes)
}

/// The body of `payload` when its footer is right: at least the footer's
/// 10 bytes, a version no newer than [`MAX_VERSION`], a matching CRC-64.
pub fn open(payload: &[u8]) -> Option<&[u8]> {
    let body_len = payload.len().checked_sub(10)?;
    let (checked, crc) = payload.split_at(payload.len() - 8);
    let version = u16::from_le_bytes([checked[body_len], checked[body_len + 1]]);
    let crc = u64::from_le_bytes(crc.try_into().ok()?);
    (version <= MAX_VERSION && CRC64.checksum(checked) == crc).then_some(&payload[..body_len])
}
