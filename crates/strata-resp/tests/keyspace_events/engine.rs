//! Events the engine starts: `expired` (background and on access) and
//! `evicted`; FLUSHALL announcing nothing per key; the setting's parsing
//! and `CONFIG GET` compared with Redis; the memcached port.

use crate::common::{self, Client, Value};
