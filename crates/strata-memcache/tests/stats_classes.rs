//! `stats items`, `stats slabs` and `stats cachedump` over TCP: Strata's
//! size classes in memcached's shape, `END`-terminated, bounded, with
//! memcached's errors; and `stats` on an empty server (`bytes 0`).

use crate::common;

use std::collections::HashMap;

use common::{Conn, Server};
use strata_kv::size_class::{chunk_size, class_of};

/// `STAT <name> <value>` lines of a report, as a map.
fn report(c: &mut Conn, request: &str) -> HashMap<String, u64> {
    let text = String::from_utf8(c.call(request.as_bytes())).unwrap();
    assert!(text.ends_with("END\r\n"), "{text}");
    text.lines()
        .filter_map(|l| l.strip_prefix("STAT "))
        .map(|l| {
            let (name, value) = l.split_once(' ').unwrap();
            (name.to_string(), value.parse().unwrap())
        })
        .collect()
}

/// The record size of key `k<i>` (2-5 bytes) with a value of `len` bytes:
/// control byte, three varints (key length, value length, CAS), key, value.
fn size(key: &str, len: usize, cas: u64) -> usize {
    let varint = |v: u64| (64 - v.max(1).leading_zeros() as usize).div_ceil(7);
    1 + 1 + varint(len as u64) + varint(cas) + key.len() + len
}

#[test]
fn empty_server() {
    let server = Server::start();
    let mut c = server.connect();
    assert_eq!(c.stat("bytes"), "0");
    assert_eq!(c.stat("curr_items"), "0");
    c.check(b"stats items\r\n", b"END\r\n");
    let slabs = report(&mut c, "stats slabs\r\n");
    assert_eq!(slabs.len(), 2, "{slabs:?}");
    assert_eq!(slabs["active_slabs"], 0);
    assert!(slabs.contains_key("total_malloced"));
    c.check(b"stats cachedump 1 0\r\n", b"END\r\n");
}

#[test]
fn items_and_slabs_per_class() {
    let server = Server::start();
    let mut c = server.connect();
    // 30 small items, 20 of about 1000 bytes (two with an expiry).
    for i in 0..30 {
        c.check(
            format!("set s{i} 0 0 3\r\nabc\r\n").as_bytes(),
            b"STORED\r\n",
        );
    }
    let big = "x".repeat(1000);
    for i in 0..20 {
        let exp = if i < 2 { 100 } else { 0 };
        c.check(
            format!("set b{i} 0 {exp} 1000\r\n{big}\r\n").as_bytes(),
            b"STORED\r\n",
        );
    }
    let small = class_of(size("s10", 3, 10));
    let large = class_of(size("b10", 1000, 40));
    assert_ne!(small, large);
    server.advance_secs(9);
    c.check(
        b"get b3\r\n",
        format!("VALUE b3 0 1000\r\n{big}\r\nEND\r\n").as_bytes(),
    );
    let items = report(&mut c, "stats items\r\n");
    let item = |class: usize, field: &str| items[&format!("items:{class}:{field}")];
    assert_eq!(item(small, "number") + item(large, "number"), 50);
    assert_eq!(item(large, "number"), 20);
    assert_eq!(item(large, "age"), 9);
    assert!(item(large, "mem_requested") > 20 * 1000);
    assert_eq!(item(large, "evicted"), 0);
    // Only classes holding items, each with the same fields.
    assert_eq!(items.len() % 8, 0, "{items:?}");

    let slabs = report(&mut c, "stats slabs\r\n");
    let slab = |class: usize, field: &str| slabs[&format!("{class}:{field}")];
    assert_eq!(slab(large, "chunk_size"), chunk_size(large));
    assert_eq!(slab(large, "used_chunks"), 20);
    assert_eq!(slab(large, "total_chunks"), 20);
    assert_eq!(slab(large, "total_pages"), 1);
    assert_eq!(slab(large, "free_chunks"), 0);
    assert_eq!(
        slab(large, "chunks_per_page"),
        (1 << 20) / chunk_size(large)
    );
    assert_eq!(slabs["active_slabs"] as usize, items.len() / 8);
    assert!(slabs["total_malloced"] > 20 * 1000);
}

#[test]
fn cachedump_lists_a_class() {
    let server = Server::start();
    let mut c = server.connect();
    let big = "y".repeat(1000);
    for i in 0..20 {
        let exp = if i < 2 { 100 } else { 0 };
        c.check(
            format!("set b{i} 0 {exp} 1000\r\n{big}\r\n").as_bytes(),
            b"STORED\r\n",
        );
    }
    c.check(b"set tiny 0 0 1\r\nz\r\n", b"STORED\r\n");
    let class = class_of(size("b10", 1000, 10));
    let dump =
        String::from_utf8(c.call(format!("stats cachedump {class} 0\r\n").as_bytes())).unwrap();
    let lines: Vec<&str> = dump.lines().collect();
    assert_eq!(lines.len(), 21, "{dump}");
    assert_eq!(*lines.last().unwrap(), "END");
    let expiry = server.now_secs() + 100;
    for i in 0..20 {
        let exp = if i < 2 { expiry } else { 0 };
        let want = format!("ITEM b{i} [1000 b; {exp} s]");
        assert!(lines.contains(&want.as_str()), "{want} in {dump}");
    }
    // `me` names the same class.
    let me = String::from_utf8(c.call(b"me b3\r\n")).unwrap();
    assert!(me.contains(&format!(" cls={class} ")), "{me}");
    // A limit, a class with nothing, and memcached's errors.
    let dump = c.call(format!("stats cachedump {class} 5\r\n").as_bytes());
    assert_eq!(String::from_utf8(dump).unwrap().lines().count(), 6);
    c.check(
        b"stats cachedump 0 0\r\nstats cachedump 63 0\r\n",
        b"END\r\nEND\r\n",
    );
    c.check(
        b"stats cachedump 1\r\n",
        b"CLIENT_ERROR bad command line\r\n",
    );
    c.check(b"stats cachedump\r\n", b"CLIENT_ERROR bad command line\r\n");
    c.check(
        b"stats cachedump a 1\r\n",
        b"CLIENT_ERROR bad command line format\r\n",
    );
    c.check(
        b"stats cachedump 64 1\r\n",
        b"CLIENT_ERROR Illegal slab id\r\n",
    );
    // The connection is still usable.
    c.check(b"get tiny\r\n", b"VALUE tiny 0 1\r\nz\r\nEND\r\n");
}

#[test]
fn cachedump_output_stays_under_two_megabytes() {
    let server = Server::start();
    let mut c = server.connect();
    // 12,000 items of 250-byte keys in one class: about 3.2 MB of lines.
    let mut batch = Vec::new();
    for i in 0..12_000 {
        let key = format!("{i:0>250}");
        batch.extend_from_slice(format!("set {key} 0 0 1 noreply\r\nv\r\n").as_bytes());
    }
    c.send(&batch);
    c.check(b"mn\r\n", b"MN\r\n");
    let class = class_of(size(&"0".repeat(250), 1, 12_000));
    let dump = c.call(format!("stats cachedump {class} 0\r\n").as_bytes());
    assert!(dump.ends_with(b"END\r\n"));
    assert!(dump.len() <= 2 * 1024 * 1024, "{}", dump.len());
    assert!(dump.len() > 2 * 1024 * 1024 - 300, "{}", dump.len());
}
