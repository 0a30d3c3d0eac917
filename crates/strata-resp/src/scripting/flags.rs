//! Script flags (Redis 7): an `EVAL` script declares them on a shebang
//! first line (`#!lua flags=no-writes,allow-oom`), a function when it is
//! registered ([`FLAGS`]). A script without a shebang is a legacy script:
//! no flags apply, and each command it runs is checked as it runs.
//!
//! Before a flagged script runs ([`admit`]): `no-cluster` refuses it in
//! cluster mode; one not declared `no-writes` is refused by the `_RO`
//! commands; `no-writes` runs it read-only. Accepted and changing nothing
//! here: `allow-stale` (Strata has no replicas), `allow-cross-slot-keys`
//! (the keys a script reaches inside are not checked against its slot)
//! and `allow-oom`: Redis refuses a flagged script without it at its start
//! while memory is past `maxmemory`, but Strata's store mode refuses each
//! write that would pass the limit (memory never goes past it), so there
//! is no such state to refuse in; a script's writes fail there as any
//! write does, flag or not.

use super::functions::FLAGS;
use super::Access;
use crate::reply::RespError;
use crate::shared::Shared;

/// A script's declared flags: bit `i` is [`FLAGS`]`[i]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptFlags(u8);

impl ScriptFlags {
    /// The flags at `indexes` into [`FLAGS`] (a function's).
    pub fn from_indexes(indexes: &[usize]) -> ScriptFlags {
        ScriptFlags(indexes.iter().fold(0, |bits, &i| bits | 1 << i))
    }

    /// Declared `no-writes`: runs read-only.
    pub fn no_writes(self) -> bool {
        self.has("no-writes")
    }

    fn has(self, name: &str) -> bool {
        FLAGS
            .iter()
            .position(|flag| *flag == name)
            .is_some_and(|i| self.0 & (1 << i) != 0)
    }
}

fn err(text: &str) -> RespError {
    RespError::Script(format!("ERR {text}"))
}

/// The flags of `body`'s shebang line, with Redis's errors; `None` for a
/// legacy script (no `#!` first line).
pub fn shebang(body: &[u8]) -> Result<Option<ScriptFlags>, RespError> {
    if !body.starts_with(b"#!") {
        return Ok(None);
    }
    let end = memchr::memchr(b'\n', body).ok_or_else(|| err("Invalid script shebang"))?;
    let line = String::from_utf8_lossy(&body[..end]);
    let mut parts = line.split_ascii_whitespace();
    let engine = parts.next().unwrap_or_default();
    if engine != "#!lua" {
        return Err(err(&format!(
            "Unexpected engine in script shebang: {engine}"
        )));
    }
    let mut bits = 0u8;
    for part in parts {
        let Some(list) = part.strip_prefix("flags=") else {
            return Err(err(&format!("Unknown lua shebang option: {part}")));
        };
        // Redis splits on commas: `flags=` is no flag, `a,` an empty one.
        for flag in list.split(',').filter(|_| !list.is_empty()) {
            let i = FLAGS
                .iter()
                .position(|known| *known == flag)
                .ok_or_else(|| err(&format!("Unexpected flag in script shebang: {flag}")))?;
            bits |= 1 << i;
        }
    }
    Ok(Some(ScriptFlags(bits)))
}

/// Redis's checks before a flagged script runs; the access it runs with.
pub fn admit(shared: &Shared, flags: ScriptFlags, access: Access) -> Result<Access, RespError> {
    if flags.has("no-cluster") && shared.cluster.get().is_some() {
        return Err(err(
            "Can not run script on cluster, 'no-cluster' flag is set.",
        ));
    }
    if flags.no_writes() {
        return Ok(Access::ReadOnly);
    }
    match access {
        Access::ReadOnly => Err(err(
            "Can not execute a script with write flag using *_ro command.",
        )),
        Access::ReadWrite => Ok(access),
    }
}

#[cfg(test)]
mod tests {
    use super::{shebang, ScriptFlags};

    #[test]
    fn shebang_flags_and_errors_as_redis_words_them() {
        assert_eq!(shebang(b"return 1").unwrap(), None);
        let flags = shebang(b"#!lua  flags=no-writes,allow-oom \nreturn 1").unwrap();
        assert_eq!(flags, Some(ScriptFlags::from_indexes(&[0, 1])));
        assert_eq!(
            shebang(b"#!lua flags=\nreturn 1").unwrap(),
            Some(ScriptFlags::default())
        );
        let error = |body: &[u8]| shebang(body).unwrap_err().to_string();
        assert_eq!(error(b"#!lua"), "ERR Invalid script shebang");
        assert_eq!(
            error(b"#!python\nreturn 1"),
            "ERR Unexpected engine in script shebang: #!python"
        );
        assert_eq!(
            error(b"#!lua name=x\nreturn 1"),
            "ERR Unknown lua shebang option: name=x"
        );
        assert_eq!(
            error(b"#!lua flags=bogus\nreturn 1"),
            "ERR Unexpected flag in script shebang: bogus"
        );
        assert_eq!(
            error(b"#!lua flags=no-writes,\nreturn 1"),
            "ERR Unexpected flag in script shebang: "
        );
    }
}
