//! `ACL LOG`: the most recent denials (failed authentications, refused
//! commands and keys), newest first, at most [`MAX_ENTRIES`]. As in
//! Redis, a denial equal to one of the ten newest entries (same reason,
//! context, object and user) created less than a minute earlier counts on
//! that entry instead of adding one. Objects and user names are cut to
//! [`MAX_TEXT`] bytes so the log's memory stays bounded whatever clients
//! send.

use std::collections::VecDeque;

/// Entries kept (Redis's `acllog-max-len` default).
pub const MAX_ENTRIES: usize = 128;
/// Longest object or user name kept in an entry.
pub const MAX_TEXT: usize = 512;
/// Entries scanned for one to count a new denial on.
const GROUPING_SCAN: usize = 10;
/// Denials this close to an entry's creation count on it.
const GROUPING_MS: u64 = 60_000;

/// What was denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// `AUTH` or `HELLO AUTH` with wrong credentials.
    Auth,
    /// A command the user may not run.
    Command,
    /// A key the user may not touch.
    Key,
}

impl Reason {
    /// Redis's name.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Auth => "auth",
            Reason::Command => "command",
            Reason::Key => "key",
        }
    }
}

/// Where it was denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// A command sent by the client.
    TopLevel,
    /// A command inside `MULTI`/`EXEC`.
    Multi,
    /// A command a script ran (`redis.call`).
    Lua,
}

impl Context {
    /// Redis's name.
    pub fn name(self) -> &'static str {
        match self {
            Context::TopLevel => "toplevel",
            Context::Multi => "multi",
            Context::Lua => "lua",
        }
    }
}

/// One denial, as `ACL LOG` reports it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Denials counted on this entry.
    pub count: u64,
    /// What was denied.
    pub reason: Reason,
    /// Where.
    pub context: Context,
    /// The command (`acl|setuser`), key, or `AUTH`/`HELLO`.
    pub object: Vec<u8>,
    /// The user (for `auth`, the name tried).
    pub username: Vec<u8>,
    /// The client, as `CLIENT LIST` shows it, at the latest denial.
    pub client_info: String,
    /// Unique, increasing id.
    pub entry_id: u64,
    /// Unix milliseconds of the first denial.
    pub created_ms: u64,
    /// Unix milliseconds of the latest denial.
    pub updated_ms: u64,
}

/// A denial to record.
#[derive(Debug, Clone)]
pub struct Denied<'a> {
    /// What was denied.
    pub reason: Reason,
    /// Where.
    pub context: Context,
    /// The command, key, or `AUTH`/`HELLO`.
    pub object: &'a [u8],
    /// The user (or name tried).
    pub username: &'a [u8],
    /// The client line.
    pub client_info: String,
}

/// The bounded log.
#[derive(Debug, Default)]
pub struct AclLog {
    entries: VecDeque<Entry>,
    next_id: u64,
}

fn cut(text: &[u8]) -> &[u8] {
    &text[..text.len().min(MAX_TEXT)]
}

impl AclLog {
    /// Records a denial at `now_ms` (Unix milliseconds).
    pub fn add(&mut self, denied: Denied<'_>, now_ms: u64) {
        let (object, username) = (cut(denied.object), cut(denied.username));
        let found = self.entries.iter().take(GROUPING_SCAN).position(|e| {
            e.reason == denied.reason
                && e.context == denied.context
                && e.object == object
                && e.username == username
                && now_ms.saturating_sub(e.created_ms) <= GROUPING_MS
        });
        if let Some(entry) = found.and_then(|i| self.entries.remove(i)) {
            let entry = Entry {
                count: entry.count + 1,
                client_info: denied.client_info,
                updated_ms: now_ms,
                ..entry
            };
            self.entries.push_front(entry);
            return;
        }
        self.entries.push_front(Entry {
            count: 1,
            reason: denied.reason,
            context: denied.context,
            object: object.to_vec(),
            username: username.to_vec(),
            client_info: denied.client_info,
            entry_id: self.next_id,
            created_ms: now_ms,
            updated_ms: now_ms,
        });
        self.next_id += 1;
        self.entries.truncate(MAX_ENTRIES);
    }

    /// The newest `limit` entries, newest first.
    pub fn newest(&self, limit: usize) -> Vec<Entry> {
        self.entries.iter().take(limit).cloned().collect()
    }

    /// `ACL LOG RESET`: forgets every entry (ids keep increasing).
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied<'a>(reason: Reason, object: &'a [u8], user: &'a [u8]) -> Denied<'a> {
        Denied {
            reason,
            context: Context::TopLevel,
            object,
            username: user,
            client_info: "id=1".into(),
        }
    }

    #[test]
    fn groups_repeats_within_a_minute() {
        let mut log = AclLog::default();
        log.add(denied(Reason::Command, b"del", b"alice"), 1_000);
        log.add(denied(Reason::Key, b"k", b"alice"), 2_000);
        log.add(denied(Reason::Command, b"del", b"alice"), 3_000);
        let entries = log.newest(10);
        assert_eq!(entries.len(), 2);
        assert_eq!((entries[0].count, &entries[0].object[..]), (2, &b"del"[..]));
        assert_eq!(
            (entries[0].created_ms, entries[0].updated_ms),
            (1_000, 3_000)
        );
        assert_eq!(entries[0].entry_id, 0);
        // More than a minute after creation: a new entry.
        log.add(denied(Reason::Command, b"del", b"alice"), 62_000);
        assert_eq!(log.newest(10).len(), 3);
        assert_eq!(log.newest(1)[0].entry_id, 2);
    }

    #[test]
    fn bounded() {
        let mut log = AclLog::default();
        for i in 0..(MAX_ENTRIES as u64 + 50) {
            let key = i.to_string();
            log.add(denied(Reason::Key, key.as_bytes(), b"u"), i);
        }
        assert_eq!(log.newest(usize::MAX).len(), MAX_ENTRIES);
        let long = vec![b'k'; MAX_TEXT * 4];
        log.add(denied(Reason::Key, &long, &long), 0);
        assert_eq!(log.newest(1)[0].object.len(), MAX_TEXT);
        log.clear();
        assert!(log.newest(10).is_empty());
    }
}
