//! [`User`]: one ACL user, what it may run and touch, and how Redis 7
//! describes it (`ACL LIST`, `ACL GETUSER`, the ACL file).
//!
//! A user is a value: changes build a new one from a copy (see
//! [`rules`](super::rules)), so a connection holding an `Arc<User>` sees a
//! consistent set of permissions, and the store publishes the new value
//! whole.

use super::command_set::CommandSet;
use super::passwords::PasswordHash;

/// A key pattern with the access it grants (`~p`: both, `%R~p`, `%W~p`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPattern {
    /// Glob pattern, Redis `stringmatchlen` rules.
    pub pattern: Vec<u8>,
    /// Grants reading the keys' values.
    pub read: bool,
    /// Grants changing or removing the keys.
    pub write: bool,
}

/// One ACL user.
#[derive(Debug, Clone)]
pub struct User {
    /// The name (no spaces or NUL bytes).
    pub name: Vec<u8>,
    /// Identity across changes: kept by `ACL SETUSER` and `ACL LOAD`, new
    /// when a deleted name is created again, so connections of the old
    /// user are never taken for the new one.
    pub generation: u64,
    /// `on`: may authenticate.
    pub enabled: bool,
    /// `nopass`: any password is accepted.
    pub nopass: bool,
    /// SHA-256 of each accepted password, in the order added.
    pub passwords: Vec<PasswordHash>,
    /// `sanitize-payload` / `skip-sanitize-payload`, kept and shown as
    /// given (Strata has no `RESTORE` whose payload it would govern).
    pub sanitize_payload: Option<bool>,
    /// Allowed commands and subcommands.
    pub commands: CommandSet,
    /// Every command allowed, nothing removed since the last `+@all`: the
    /// check may skip the bitmap.
    pub all_commands: bool,
    /// The rules start from `+@all` (else `-@all`), as descriptions show.
    pub from_all_commands: bool,
    /// Command rules since the last `+@all`/`-@all`, at most one per
    /// command or category, in the order given (`+get`, `-@write`).
    pub command_rules: Vec<String>,
    /// `allkeys` / `~*`.
    pub all_keys: bool,
    /// Key patterns, when not `all_keys`.
    pub keys: Vec<KeyPattern>,
    /// `allchannels` / `&*`.
    pub all_channels: bool,
    /// Channel patterns, when not `all_channels` (stored and shown; Strata
    /// has no pub/sub yet).
    pub channels: Vec<Vec<u8>>,
}

impl User {
    /// A new user as `ACL SETUSER` creates it: `off`, no password, no keys,
    /// no channels, `-@all`.
    pub fn new(name: &[u8], generation: u64) -> Self {
        Self {
            name: name.to_vec(),
            generation,
            enabled: false,
            nopass: false,
            passwords: Vec::new(),
            sanitize_payload: None,
            commands: CommandSet::default(),
            all_commands: false,
            from_all_commands: false,
            command_rules: Vec::new(),
            all_keys: false,
            keys: Vec::new(),
            all_channels: false,
            channels: Vec::new(),
        }
    }

    /// The `default` user Strata starts with: `on ~* &* +@all`, with
    /// `requirepass` as its password, or `nopass` without one.
    pub fn default_user(generation: u64, requirepass: Option<&str>) -> Self {
        let mut user = Self::new(b"default", generation);
        user.enabled = true;
        user.set_default_password(requirepass);
        user.commands = CommandSet::full();
        user.all_commands = true;
        user.from_all_commands = true;
        user.all_keys = true;
        user.all_channels = true;
        user
    }

    /// What `requirepass` (at start or `CONFIG SET`) does to the default
    /// user: `resetpass`, then `>password`, or `nopass` when empty.
    pub fn set_default_password(&mut self, requirepass: Option<&str>) {
        self.passwords.clear();
        match requirepass.filter(|p| !p.is_empty()) {
            Some(password) => {
                self.nopass = false;
                self.passwords.push(PasswordHash::of(password.as_bytes()));
            }
            None => self.nopass = true,
        }
    }

    /// Whether this user may run anything on any key: the checks are
    /// skipped.
    pub fn unrestricted(&self) -> bool {
        self.all_commands && self.all_keys
    }

    /// Whether `password` logs this user in.
    pub fn accepts(&self, password: &[u8]) -> bool {
        self.enabled && (self.nopass || super::passwords::any_matches(&self.passwords, password))
    }

    /// The name as text (lossy), for messages.
    pub fn display_name(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }

    /// `ACL GETUSER`'s `flags`.
    pub fn flags(&self) -> Vec<&'static str> {
        let mut flags = vec![if self.enabled { "on" } else { "off" }];
        if self.nopass {
            flags.push("nopass");
        }
        match self.sanitize_payload {
            Some(true) => flags.push("sanitize-payload"),
            Some(false) => flags.push("skip-sanitize-payload"),
            None => {}
        }
        flags
    }

    /// `ACL GETUSER`'s `commands`: `+@all` or `-@all`, then the rules.
    pub fn describe_commands(&self) -> String {
        let mut text = String::from(if self.from_all_commands {
            "+@all"
        } else {
            "-@all"
        });
        for rule in &self.command_rules {
            text.push(' ');
            text.push_str(rule);
        }
        text
    }

    /// `ACL GETUSER`'s `keys`: `~*`, or each pattern with its access.
    pub fn describe_keys(&self) -> Vec<u8> {
        if self.all_keys {
            return b"~*".to_vec();
        }
        let mut text = Vec::new();
        for key in &self.keys {
            if !text.is_empty() {
                text.push(b' ');
            }
            text.extend_from_slice(match (key.read, key.write) {
                (true, false) => b"%R~",
                (false, true) => b"%W~",
                _ => b"~",
            });
            text.extend_from_slice(&key.pattern);
        }
        text
    }

    /// `ACL GETUSER`'s `channels`: `&*`, or each pattern.
    pub fn describe_channels(&self) -> Vec<u8> {
        if self.all_channels {
            return b"&*".to_vec();
        }
        let mut text = Vec::new();
        for channel in &self.channels {
            if !text.is_empty() {
                text.push(b' ');
            }
            text.push(b'&');
            text.extend_from_slice(channel);
        }
        text
    }

    /// The user as `ACL LIST` and the ACL file write it: rules that
    /// rebuild it from scratch (`user alice on #<sha256> ~cache:*
    /// resetchannels -@all +@read`).
    pub fn describe(&self) -> Vec<u8> {
        let mut text = b"user ".to_vec();
        text.extend_from_slice(&self.name);
        for flag in self.flags() {
            text.push(b' ');
            text.extend_from_slice(flag.as_bytes());
        }
        for hash in &self.passwords {
            text.extend_from_slice(b" #");
            text.extend_from_slice(hash.to_hex().as_bytes());
        }
        let keys = self.describe_keys();
        if !keys.is_empty() {
            text.push(b' ');
            text.extend_from_slice(&keys);
        }
        if !self.all_channels {
            text.extend_from_slice(b" resetchannels");
        }
        let channels = self.describe_channels();
        if !channels.is_empty() {
            text.push(b' ');
            text.extend_from_slice(&channels);
        }
        text.push(b' ');
        text.extend_from_slice(self.describe_commands().as_bytes());
        text
    }
}

/// Whether `name` may name a user: Redis refuses whitespace and NUL.
pub fn valid_username(name: &[u8]) -> bool {
    !name
        .iter()
        .any(|&b| b == 0 || b.is_ascii_whitespace() || b == 0x0b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_user_descriptions() {
        let open = User::default_user(0, None);
        assert_eq!(open.describe(), b"user default on nopass ~* &* +@all");
        assert!(open.accepts(b"anything") && open.unrestricted());
        let closed = User::default_user(0, Some("pw"));
        assert_eq!(
            String::from_utf8(closed.describe()).unwrap(),
            "user default on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~* &* +@all"
        );
        assert!(closed.accepts(b"pw") && !closed.accepts(b"pw2"));
    }

    #[test]
    fn new_user_is_closed() {
        let user = User::new(b"bob", 1);
        assert_eq!(user.describe(), b"user bob off resetchannels -@all");
        assert!(!user.accepts(b""));
        assert!(!user.unrestricted());
    }
}
