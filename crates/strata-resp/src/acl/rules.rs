//! ACL rules (`on`, `>password`, `~pattern`, `+@read`, `-config|set`, ...)
//! applied to a [`User`], with Redis 7's meanings and error texts.
//!
//! A rule changes the user in place; callers apply a whole list to a copy
//! and keep it only if every rule applied ([`apply_all`]), so a failing
//! `ACL SETUSER` changes nothing. Selectors (`(...)`) are not supported and
//! are refused as syntax errors.

use super::categories;
use super::command_set;
use super::passwords::PasswordHash;
use super::users::{KeyPattern, User};

/// Why a rule was refused; `Display` is Redis's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// `+nosuch`, `-@nosuch`, `+get|x`.
    #[error("Unknown command or category name in ACL")]
    UnknownCommand,
    /// Anything else that is not a rule.
    #[error("Syntax error")]
    Syntax,
    /// A key pattern after `allkeys`.
    #[error("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")]
    AfterAllKeys,
    /// A channel pattern after `allchannels`.
    #[error("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")]
    AfterAllChannels,
    /// `<password` or `!hash` of a password the user does not have.
    #[error("The password you are trying to remove from the user does not exist")]
    NoSuchPassword,
    /// `#hash` or `!hash` that is not 64 lower-case hex digits.
    #[error("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")]
    BadHash,
}

/// A rule that failed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedRule {
    /// The rule as given.
    pub rule: Vec<u8>,
    /// Why.
    pub error: RuleError,
}

impl std::fmt::Display for FailedRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Error in ACL SETUSER modifier '{}': {}",
            String::from_utf8_lossy(&self.rule),
            self.error
        )
    }
}

/// Applies every rule to `user`, stopping at the first that fails (the
/// caller discards the partly changed copy).
pub fn apply_all<'a>(
    user: &mut User,
    rules: impl IntoIterator<Item = &'a [u8]>,
) -> Result<(), FailedRule> {
    for rule in rules {
        apply(user, rule).map_err(|error| FailedRule {
            rule: rule.to_vec(),
            error,
        })?;
    }
    Ok(())
}

/// Applies one rule.
pub fn apply(user: &mut User, rule: &[u8]) -> Result<(), RuleError> {
    let keyword = |word: &str| rule.eq_ignore_ascii_case(word.as_bytes());
    match rule {
        [] => {}
        _ if keyword("on") => user.enabled = true,
        _ if keyword("off") => user.enabled = false,
        _ if keyword("nopass") => {
            user.nopass = true;
            user.passwords.clear();
        }
        _ if keyword("resetpass") => {
            user.nopass = false;
            user.passwords.clear();
        }
        _ if keyword("sanitize-payload") => user.sanitize_payload = Some(true),
        _ if keyword("skip-sanitize-payload") => user.sanitize_payload = Some(false),
        _ if keyword("allkeys") || rule == b"~*" => {
            user.all_keys = true;
            user.keys.clear();
        }
        _ if keyword("resetkeys") => {
            user.all_keys = false;
            user.keys.clear();
        }
        _ if keyword("allchannels") || rule == b"&*" => {
            user.all_channels = true;
            user.channels.clear();
        }
        _ if keyword("resetchannels") => {
            user.all_channels = false;
            user.channels.clear();
        }
        _ if keyword("allcommands") || keyword("+@all") => all_commands(user, true),
        _ if keyword("nocommands") || keyword("-@all") => all_commands(user, false),
        // There are no selectors to clear: they are not supported.
        _ if keyword("clearselectors") => {}
        _ if keyword("reset") => {
            let steps = ["resetpass", "resetkeys", "resetchannels", "off", "-@all"];
            for step in steps.into_iter().chain(["sanitize-payload"]) {
                apply(user, step.as_bytes())?;
            }
        }
        [b'>', password @ ..] => add_password(user, PasswordHash::of(password)),
        [b'#', hex @ ..] => {
            add_password(user, PasswordHash::from_hex(hex).ok_or(RuleError::BadHash)?);
        }
        [b'<', password @ ..] => remove_password(user, PasswordHash::of(password))?,
        [b'!', hex @ ..] => {
            remove_password(user, PasswordHash::from_hex(hex).ok_or(RuleError::BadHash)?)?;
        }
        [b'~', ..] | [b'%', ..] => add_key_pattern(user, rule)?,
        [b'&', pattern @ ..] => {
            if user.all_channels {
                return Err(RuleError::AfterAllChannels);
            }
            if !user.channels.iter().any(|c| c == pattern) {
                user.channels.push(pattern.to_vec());
            }
        }
        [sign @ (b'+' | b'-'), b'@', category @ ..] => {
            let name = std::str::from_utf8(category).map_err(|_| RuleError::UnknownCommand)?;
            let category = categories::canonical(name).ok_or(RuleError::UnknownCommand)?;
            let allow = *sign == b'+';
            for spec in categories::members(category) {
                user.commands.change(spec, allow);
            }
            note_rule(user, allow, &format!("@{category}"));
        }
        [sign @ (b'+' | b'-'), name @ ..] => {
            let name = std::str::from_utf8(name).map_err(|_| RuleError::UnknownCommand)?;
            let spec = command_set::by_name(name).ok_or(RuleError::UnknownCommand)?;
            let allow = *sign == b'+';
            user.commands.change(spec, allow);
            note_rule(user, allow, spec.name);
        }
        _ => return Err(RuleError::Syntax),
    }
    Ok(())
}

fn all_commands(user: &mut User, allow: bool) {
    user.commands = if allow {
        command_set::CommandSet::full()
    } else {
        command_set::CommandSet::default()
    };
    user.all_commands = allow;
    user.from_all_commands = allow;
    user.command_rules.clear();
}

/// Records `+name`/`-name` for descriptions, replacing an earlier rule of
/// the same name (as Redis 7.2 does), so the list stays bounded by the
/// number of commands and categories.
fn note_rule(user: &mut User, allow: bool, name: &str) {
    if !allow {
        user.all_commands = false;
    }
    user.command_rules.retain(|rule| &rule[1..] != name);
    user.command_rules
        .push(format!("{}{name}", if allow { '+' } else { '-' }));
}

fn add_password(user: &mut User, hash: PasswordHash) {
    user.nopass = false;
    if !user.passwords.contains(&hash) {
        user.passwords.push(hash);
    }
}

fn remove_password(user: &mut User, hash: PasswordHash) -> Result<(), RuleError> {
    let before = user.passwords.len();
    user.passwords.retain(|h| *h != hash);
    if user.passwords.len() == before {
        return Err(RuleError::NoSuchPassword);
    }
    Ok(())
}

/// `~pattern` (read and write), `%R~pattern`, `%W~pattern`, `%RW~pattern`.
fn add_key_pattern(user: &mut User, rule: &[u8]) -> Result<(), RuleError> {
    if user.all_keys {
        return Err(RuleError::AfterAllKeys);
    }
    let (read, write, pattern) = match rule {
        [b'~', pattern @ ..] => (true, true, pattern),
        [b'%', rest @ ..] => {
            let tilde = rest
                .iter()
                .position(|&c| c == b'~')
                .ok_or(RuleError::Syntax)?;
            let (mut read, mut write) = (false, false);
            for &c in &rest[..tilde] {
                match c.to_ascii_uppercase() {
                    b'R' if !read => read = true,
                    b'W' if !write => write = true,
                    _ => return Err(RuleError::Syntax),
                }
            }
            if !read && !write {
                return Err(RuleError::Syntax);
            }
            (read, write, &rest[tilde + 1..])
        }
        _ => return Err(RuleError::Syntax),
    };
    match user.keys.iter_mut().find(|k| k.pattern == pattern) {
        Some(existing) => {
            existing.read |= read;
            existing.write |= write;
        }
        None => user.keys.push(KeyPattern {
            pattern: pattern.to_vec(),
            read,
            write,
        }),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
