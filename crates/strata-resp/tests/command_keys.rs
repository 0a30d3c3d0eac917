//! `COMMAND`'s key information against a real Redis 7.0, for every command
//! and subcommand both have: the legacy first key, last key and step, and
//! the key specifications (flags, notes, `begin_search` by index, keyword
//! or unknown, `find_keys` by range, key count or unknown), which cluster
//! clients route by and ACLs check keys by.

use std::collections::BTreeMap;

use crate::common;

use common::peer::require_redis;
use common::{Client, Value};

/// Every row of `COMMAND`, subcommands included, by name.
fn rows(c: &mut Client) -> BTreeMap<String, Vec<Value>> {
    fn walk(row: &Value, out: &mut BTreeMap<String, Vec<Value>>) {
        let fields = row.array().to_vec();
        for sub in fields[9].array() {
            walk(sub, out);
        }
        out.insert(fields[0].text(), fields);
    }
    let mut out = BTreeMap::new();
    for row in c.cmd(&["COMMAND"]).array() {
        walk(row, &mut out);
    }
    out
}

#[test]
fn key_positions_and_specifications_are_redis_s() {
    let peer = require_redis();
    let server = common::start();
    for resp in ["2", "3"] {
        let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
        for c in [&mut redis, &mut strata] {
            c.cmd(&["HELLO", resp]);
        }
        let (want, got) = (rows(&mut redis), rows(&mut strata));
        let mut compared = 0;
        for (name, theirs) in &want {
            let Some(ours) = got.get(name) else {
                continue;
            };
            assert_eq!(
                ours[3..6],
                theirs[3..6],
                "{name}: first, last, step in RESP{resp}"
            );
            assert_eq!(
                ours[8], theirs[8],
                "{name}: key specifications in RESP{resp}"
            );
            compared += 1;
        }
        assert!(compared > 350, "only {compared} commands in common");
    }
}
