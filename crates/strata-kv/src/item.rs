//! What callers see of an item and how they ask for it to change.

use std::borrow::Cow;

/// What a value is: a plain string, or one of Redis's collections encoded
/// by the front end (the engine stores every kind as one record; see
/// docs/design/kv.md, *Collections*).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ValueKind {
    /// A string (every memcached item, Redis strings).
    #[default]
    String,
    /// A Redis hash.
    Hash,
    /// A Redis list.
    List,
    /// A Redis set.
    Set,
    /// A Redis sorted set.
    SortedSet,
    /// A Redis stream (entries, consumer groups: the front end's encoding).
    Stream,
}

impl ValueKind {
    fn code(self) -> u64 {
        match self {
            Self::String => 0,
            Self::Hash => 1,
            Self::List => 2,
            Self::Set => 3,
            Self::SortedSet => 4,
            Self::Stream => 5,
        }
    }

    fn from_code(code: u64) -> Option<Self> {
        Some(match code {
            0 => Self::String,
            1 => Self::Hash,
            2 => Self::List,
            3 => Self::Set,
            4 => Self::SortedSet,
            5 => Self::Stream,
            _ => return None,
        })
    }
}

/// How a string was last written, which Redis's `OBJECT ENCODING` tells
/// apart; kept in the record's [`KindCode`] through the log, checkpoints,
/// `RENAME` and `COPY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StringForm {
    /// Written whole (SET and the like): named by its content (`int`,
    /// `embstr`, `raw`). Also every value that is not a string.
    #[default]
    Whole,
    /// Edited in its bytes (APPEND to a key, SETRANGE, the bit writes,
    /// BITOP's result): `raw` whatever the length until written whole.
    Edited,
    /// The text of a number written as text (INCRBYFLOAT's result):
    /// `embstr` or `raw` by length, never `int`.
    Text,
}

/// What a record's flags word keeps of its value's kind (bits 32-39): a
/// [`ValueKind`]'s code, or a string's [`StringForm`] other than `Whole`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KindCode(u64);

impl KindCode {
    /// A string in [`StringForm::Edited`].
    const EDITED_STRING: Self = Self(6);
    /// A string in [`StringForm::Text`].
    const TEXT_STRING: Self = Self(7);

    /// The code of a string written in `form`.
    pub(crate) fn string(form: StringForm) -> Self {
        match form {
            StringForm::Whole => Self::from(ValueKind::String),
            StringForm::Edited => Self::EDITED_STRING,
            StringForm::Text => Self::TEXT_STRING,
        }
    }

    /// The flags word of a value of this kind with memcached `client_flags`.
    pub(crate) fn flags(self, client_flags: u32) -> u64 {
        u64::from(client_flags) | self.0 << 32
    }
}

impl From<ValueKind> for KindCode {
    fn from(kind: ValueKind) -> Self {
        Self(kind.code())
    }
}

/// The flags word records, log changes and snapshots store: memcached's
/// client flags in the low 32 bits, the [`ValueKind`] above them (0 for a
/// string, so records written before kinds existed read as strings).
pub fn stored_flags(flags: u32, kind: ValueKind) -> u64 {
    KindCode::from(kind).flags(flags)
}

/// Splits a stored flags word; `None` for a kind (or a namespace bit, see
/// [`chunk`](crate::chunk)) this build does not know.
pub fn split_stored_flags(stored: u64) -> Option<(u32, ValueKind)> {
    if stored >> 40 & !(crate::chunk::KNOWN_BITS >> 40) != 0 {
        return None;
    }
    let kind = match stored >> 32 & 0xff {
        code if code == KindCode::EDITED_STRING.0 || code == KindCode::TEXT_STRING.0 => {
            ValueKind::String
        }
        code => ValueKind::from_code(code)?,
    };
    Some((stored as u32, kind))
}

/// The [`StringForm`] a stored flags word records (`Whole` for every
/// value that is not a string).
pub fn string_form(stored: u64) -> StringForm {
    match stored >> 32 & 0xff {
        code if code == KindCode::EDITED_STRING.0 => StringForm::Edited,
        code if code == KindCode::TEXT_STRING.0 => StringForm::Text,
        _ => StringForm::Whole,
    }
}

/// A borrowed view of a live (unexpired) item, valid while the shard lock is held.
#[derive(Debug, Clone, Copy)]
pub struct ItemRef<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The value bytes.
    pub value: &'a [u8],
    /// What the value is (strings for everything memcached writes).
    pub kind: ValueKind,
    /// memcached client flags (0 for items written over RESP).
    pub flags: u32,
    /// How a string was last written (`Whole` for other kinds).
    pub form: StringForm,
    /// Version that changes on every modification; unique across the keyspace.
    pub cas: u64,
    /// Absolute expiry in Unix milliseconds, `None` for never.
    pub expires_at: Option<u64>,
}

impl ItemRef<'_> {
    /// The flags word as stored (client flags and kind).
    pub fn stored_flags(&self) -> u64 {
        match self.form {
            StringForm::Whole => stored_flags(self.flags, self.kind),
            form => KindCode::string(form).flags(self.flags),
        }
    }
}

/// A new version of an item.
#[derive(Debug, Clone)]
pub struct NewItem<'v> {
    /// The value to store.
    pub value: Cow<'v, [u8]>,
    /// memcached client flags.
    pub flags: u32,
    /// Absolute expiry in Unix milliseconds, `None` for never. An expiry at or
    /// before now stores nothing and deletes any existing item.
    pub expires_at: Option<u64>,
}

/// The decision an [`update`](crate::Store::update) closure returns.
#[derive(Debug, Clone)]
pub enum Mutation<'v> {
    /// Leave the key as it is.
    Keep,
    /// Remove the item, if any.
    Delete,
    /// Replace (or create) the item with a string; it gets a fresh CAS version.
    Put(NewItem<'v>),
    /// Replace (or create) the item with a value of this kind (a Redis
    /// collection in the front end's encoding); a fresh CAS version.
    PutKind(ValueKind, NewItem<'v>),
    /// Replace (or create) the item with a string written in this
    /// [`StringForm`] (an edit of the old one's bytes, or a number's
    /// text): as [`Put`](Self::Put), and the item reads with that
    /// [`form`](ItemRef::form) until the next `Put`.
    PutString(StringForm, NewItem<'v>),
    /// Change only the expiry of the existing item (no-op when absent); the
    /// CAS version is kept, as memcached's `touch` does.
    SetExpiry(Option<u64>),
}

impl<'v> Mutation<'v> {
    /// Writes `item` as a copy of a value of `kind` written in `form`
    /// (`RENAME` and `COPY` keep how the value was written).
    pub fn put_copy(kind: ValueKind, form: StringForm, item: NewItem<'v>) -> Self {
        match form {
            StringForm::Whole => Self::PutKind(kind, item),
            form => Self::PutString(form, item),
        }
    }
}

/// What [`delete`](crate::Store::delete) found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// A live item was removed.
    Removed,
    /// No live item had that key.
    Missing,
}
