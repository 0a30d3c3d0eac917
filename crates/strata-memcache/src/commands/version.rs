//! `version`: `VERSION 1.6.18-strata-<strata version>` (extra words are
//! ignored, as in memcached).
//!
//! The reply leads with the memcached release whose protocol Strata speaks:
//! clients read the leading `major.minor.micro` to decide what the server
//! supports, and libmemcached refuses a server whose major version is 0.
//! Strata's own version follows, so it is never hidden.

use bytes::{BufMut, BytesMut};

use crate::shared::Shared;

/// The memcached release whose text protocol this crate reproduces.
pub const MEMCACHED_COMPAT: &str = "1.6.18";

/// The version string reported by `version` and `stats`.
pub fn version_string(shared: &Shared) -> String {
    format!("{MEMCACHED_COMPAT}-strata-{}", shared.info.version)
}

/// Replies with the server's version.
pub fn execute(shared: &Shared, out: &mut BytesMut) {
    out.put_slice(b"VERSION ");
    out.put_slice(version_string(shared).as_bytes());
    out.put_slice(b"\r\n");
}
