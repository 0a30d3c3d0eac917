//! Meta commands (`mg`, `ms`, `md`, `ma`, `mn`, `me`) over TCP, replies
//! compared with memcached 1.6's for the same requests.

use crate::common;

use common::{Conn, Server};

fn cas(c: &mut Conn, key: &str) -> u64 {
    let reply = String::from_utf8(c.call(format!("mg {key} c\r\n").as_bytes())).unwrap();
    reply
        .trim_end()
        .strip_prefix("HD c")
        .unwrap_or_else(|| panic!("{reply}"))
        .parse()
        .unwrap()
}

#[test]
fn meta_get() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set a 5 0 3\r\nabc\r\n", b"STORED\r\n");
    let a = cas(&mut c, "a");
    c.check(b"mg a\r\nmg a v\r\n", b"HD\r\nVA 3\r\nabc\r\n");
    c.check(
        b"mg a s v f t c k O123 q\r\n",
        format!("VA 3 s3 f5 t-1 c{a} ka O123\r\nabc\r\n").as_bytes(),
    );
    c.check(
        b"mg a k\r\nmg a f k\r\nmg a s\r\n",
        b"HD ka\r\nHD f5 ka\r\nHD s3\r\n",
    );
    // Misses: EN with O and k, hidden by q (hits are not hidden).
    c.check(
        b"mg nokey v\r\nmg nokey v q\r\nmg nokey v k O9 c\r\n",
        b"EN\r\nEN knokey O9\r\n",
    );
    c.check(b"mg a q\r\n", b"HD\r\n");
    // Opaque up to 31 bytes after the O.
    let ok = format!("O{}", "o".repeat(31));
    c.check(
        format!("mg a {ok}\r\n").as_bytes(),
        format!("HD {ok}\r\n").as_bytes(),
    );
    c.check(
        format!("mg a {ok}x\r\n").as_bytes(),
        b"CLIENT_ERROR opaque token too long\r\n",
    );
    c.check(b"mg a O\r\n", b"HD O\r\n");
    // P and L are ignored; flags accepted by memcached's common parser are too.
    c.check(
        b"mg a Pfoo Lbar v\r\nmg a C5 D5 J5 M5 I F5\r\n",
        b"VA 3\r\nabc\r\nHD\r\n",
    );
    // u reads without counting a hit.
    let hits: u64 = c.stat("get_hits").parse().unwrap();
    c.check(b"mg a u v\r\n", b"VA 3\r\nabc\r\n");
    assert_eq!(
        c.stat("get_hits").parse::<u64>().unwrap(),
        hits + 1,
        "mg still counts its own stat"
    );
}

#[test]
fn meta_get_errors() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set a 0 0 1\r\nx\r\n", b"STORED\r\n");
    c.check(b"mg\r\n", b"ERROR\r\n");
    c.check(
        b"mg a zz\r\nmg a Q\r\nmg a E5\r\n",
        &b"CLIENT_ERROR invalid flag\r\n".repeat(3),
    );
    c.check(b"mg a v v\r\n", b"CLIENT_ERROR duplicate flag\r\n");
    c.check(b"mg a vv\r\n", b"VA 1\r\nx\r\n");
    c.check(
        b"mg a Tabc t\r\nmg a Nx\r\nmg a Rx\r\nmg a Cx\r\n",
        &b"CLIENT_ERROR bad token in command line format\r\n".repeat(4),
    );
    c.check(
        b"mg a Fx v\r\n",
        b"CLIENT_ERROR bad command line format\r\n",
    );
    c.check(
        b"mg a M v\r\n",
        b"CLIENT_ERROR incorrect length for M token\r\n",
    );
    c.check(b"mg a Dx\r\nmg a Jx\r\n", b"CLIENT_ERROR invalid numeric delta value\r\nCLIENT_ERROR invalid numeric initial value\r\n");
    c.check(
        b"mg a Fx Z\r\nmg a Nx Fx\r\n",
        b"CLIENT_ERROR invalid flag\r\nCLIENT_ERROR bad token in command line format\r\n",
    );
    let flags: Vec<String> = (0..18).map(|i| format!("P{i}")).collect();
    c.check(
        format!("mg a {}\r\n", flags.join(" ")).as_bytes(),
        b"CLIENT_ERROR options flags are too long\r\n",
    );
    c.check(
        b"mg YQ b v k\r\nmg !!! b v\r\nmg a b\r\n",
        &b"CLIENT_ERROR error decoding key\r\n".repeat(3),
    );
}

#[test]
fn meta_get_base64_keys() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"mg YQ== b v k\r\n", b"EN kYQ== b\r\n");
    c.check(
        b"ms YWJj 1 b k\r\nx\r\nmg abc v\r\n",
        b"HD kYWJj b\r\nVA 1\r\nx\r\n",
    );
    c.check(b"mg YWJj b k v\r\n", b"VA 1 kYWJj b\r\nx\r\n");
    // Binary keys with bytes a text key cannot hold.
    c.check(
        b"ms AAEC/w== 2 b\r\nhi\r\nmg AAEC/w== b v s\r\n",
        b"HD\r\nVA 2 s2\r\nhi\r\n",
    );
}

#[test]
fn vivify_and_recache_tokens() {
    let server = Server::start();
    let mut c = server.connect();
    // The first client to miss with N wins; later readers see Z.
    c.check(b"mg nv N30 s t v\r\n", b"VA 0 s0 t30 W\r\n\r\n");
    let mut other = server.connect();
    other.check(
        b"mg nv N30 s v\r\nmg nv v\r\n",
        b"VA 0 s0 Z\r\n\r\nVA 0 Z\r\n\r\n",
    );
    c.check(b"mg nk v N30 q k\r\n", b"VA 0 knk W\r\n\r\n");
    // The winner stores the real value: a new item, unmarked.
    c.check(b"ms nv 4\r\nreal\r\nmg nv v\r\n", b"HD\r\nVA 4\r\nreal\r\n");
    // R: win once when less TTL than asked remains.
    c.check(
        b"set r 0 0 1\r\nx\r\nmg r R30 t v\r\n",
        b"STORED\r\nVA 1 t-1\r\nx\r\n",
    );
    c.check(
        b"mg r T10\r\nmg r R30 t v\r\nmg r R30 t\r\n",
        b"HD\r\nVA 1 t10 W\r\nx\r\nHD t10 Z\r\n",
    );
}

#[test]
fn invalidation_marks_stale() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set a 0 0 1\r\nx\r\n", b"STORED\r\n");
    let before = cas(&mut c, "a");
    c.check(b"md a I T30\r\n", b"HD\r\n");
    let after = cas_from_stale(&mut c);
    assert_ne!(after, before, "invalidation bumps the CAS");
    c.check(
        b"mg a v t c\r\n",
        format!("VA 1 t30 c{after} Z X\r\nx\r\n").as_bytes(),
    );
    // A normal store replaces the stale item.
    c.check(b"ms a 1\r\ny\r\nmg a v\r\n", b"HD\r\nVA 1\r\ny\r\n");
    // A late write with an older CAS and I is stored, but stays stale and
    // keeps the token state.
    let fresh = cas(&mut c, "a");
    c.check(b"md a I\r\n", b"HD\r\n");
    let _ = cas_from_stale(&mut c);
    c.check(format!("ms a 1 C{fresh} I\r\nz\r\n").as_bytes(), b"HD\r\n");
    let reply = String::from_utf8(c.call(b"mg a v\r\n")).unwrap();
    assert_eq!(reply, "VA 1 Z X\r\nz\r\n");
    // Without I an older CAS is refused.
    c.check(format!("ms a 1 C{fresh}\r\nw\r\n").as_bytes(), b"EX\r\n");
}

/// Reads the CAS of stale item `a` (the first reader wins the token).
fn cas_from_stale(c: &mut Conn) -> u64 {
    let reply = String::from_utf8(c.call(b"mg a c\r\n")).unwrap();
    let rest = reply
        .strip_prefix("HD c")
        .unwrap_or_else(|| panic!("{reply}"));
    assert!(rest.ends_with(" X W\r\n"), "{reply}");
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn meta_set_modes_and_flags() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"ms a 3\r\nabc\r\nmg a v f t\r\n",
        b"HD\r\nVA 3 f0 t-1\r\nabc\r\n",
    );
    let reply = String::from_utf8(c.call(b"ms a 3 F7 T100 c k O5\r\nxyz\r\n")).unwrap();
    let a = cas(&mut c, "a");
    assert_eq!(reply, format!("HD c{a} ka O5\r\n"));
    c.check(b"mg a v f t\r\n", b"VA 3 f7 t100\r\nxyz\r\n");
    c.check(
        b"ms a 3 q\r\nabc\r\nms a 3 q ME\r\nabc\r\nms nokey 3 q MR\r\nabc\r\n",
        b"NS\r\nNS\r\n",
    );
    c.check(b"ms a 1 MA\r\nz\r\nmg a v\r\n", b"HD\r\nVA 4\r\nabcz\r\n");
    c.check(b"ms a 1 MP\r\ny\r\nmg a v\r\n", b"HD\r\nVA 5\r\nyabcz\r\n");
    c.check(
        b"ms a 1 ME\r\nw\r\nms a 1 MR\r\nw\r\nmg a v\r\n",
        b"NS\r\nHD\r\nVA 1\r\nw\r\n",
    );
    c.check(
        b"ms nokey 1 MR\r\nw\r\nms nokey 1 MA\r\nw\r\nms nokey 1 MS\r\nw\r\n",
        b"NS\r\nNS\r\nHD\r\n",
    );
    c.check(
        b"md nokey\r\nms nokey 1 MR O5 k c\r\nx\r\n",
        b"HD\r\nNS O5 knokey c0\r\n",
    );
    // N creates on an append miss (a newer memcached feature).
    c.check(
        b"ms viv 1 MA N30\r\nw\r\nmg viv v t\r\n",
        b"HD\r\nVA 1 t30\r\nw\r\n",
    );
    // CAS.
    c.check(b"set c 0 0 1\r\nx\r\n", b"STORED\r\n");
    let cc = cas(&mut c, "c");
    c.check(
        format!(
            "ms c 1 C{}\r\ny\r\nms nokey2 1 C1\r\ny\r\nms c 1 C{} q\r\ny\r\n",
            cc + 1,
            cc + 1
        )
        .as_bytes(),
        b"EX\r\nNF\r\nEX\r\n",
    );
    c.check(
        format!("ms c 1 C{cc} q\r\ny\r\nmg c v\r\n").as_bytes(),
        b"VA 1\r\ny\r\n",
    );
    c.check(
        b"ms zero 0\r\n\r\nmg zero v s\r\n",
        b"HD\r\nVA 0 s0\r\n\r\n",
    );
}

#[test]
fn meta_set_errors() {
    let server = Server::start();
    let mut c = server.connect();
    // Bad lines before the length is understood: data is parsed as a command.
    c.check(
        b"ms a\r\nabc\r\n",
        b"CLIENT_ERROR bad command line format\r\nERROR\r\n",
    );
    c.check(b"ms\r\n", b"ERROR\r\n");
    c.check(b"ms a abc\r\nabc\r\nms a -1\r\nabc\r\n", b"CLIENT_ERROR bad command line format\r\nERROR\r\nCLIENT_ERROR bad command line format\r\nERROR\r\n");
    let key = "k".repeat(251);
    c.check(
        format!("ms {key} 1\r\nx\r\n").as_bytes(),
        b"CLIENT_ERROR bad command line format\r\nERROR\r\n",
    );
    let flags: Vec<String> = (0..17).map(|i| format!("P{i}")).collect();
    c.check(
        format!("ms a 1 {}\r\nx\r\n", flags.join(" ")).as_bytes(),
        b"CLIENT_ERROR options flags too long\r\nERROR\r\n",
    );
    // Errors after the length: the data block is swallowed.
    c.check(
        b"ms a 3 Z\r\nabc\r\nms a 3 S3\r\nabc\r\n",
        b"CLIENT_ERROR invalid flag\r\nCLIENT_ERROR invalid flag\r\n",
    );
    c.check(
        b"ms a 3 MX\r\nabc\r\nms a 1 Ma\r\nq\r\n",
        b"CLIENT_ERROR invalid mode for ms M token\r\nCLIENT_ERROR invalid mode for ms M token\r\n",
    );
    c.check(
        b"ms a 3 Mxx\r\nabc\r\n",
        b"CLIENT_ERROR incorrect length for M token\r\n",
    );
    c.check(
        b"ms YWJ 1 b\r\nx\r\n",
        b"CLIENT_ERROR error decoding key\r\n",
    );
    c.check(
        format!("ms a 1 O{}\r\nx\r\n", "o".repeat(32)).as_bytes(),
        b"CLIENT_ERROR opaque token too long\r\n",
    );
    c.check(
        b"ms a 2\r\nabc\r\n",
        b"CLIENT_ERROR bad data chunk\r\nERROR\r\n",
    );
    c.check(b"mg a\r\n", b"EN\r\n");
}

#[test]
fn meta_delete() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"set a 0 0 1\r\nx\r\nmd a\r\nmd a\r\nmd a q\r\nmd nokey q\r\n",
        b"STORED\r\nHD\r\nNF\r\nNF\r\nNF\r\n",
    );
    c.check(
        b"set a 0 0 1\r\nx\r\nmd a q\r\nmg a\r\n",
        b"STORED\r\nEN\r\n",
    );
    c.check(
        b"set a 0 0 1\r\nx\r\nmd a k O7 c t f v s\r\n",
        b"STORED\r\nHD ka O7\r\n",
    );
    c.check(
        b"md nokey O5 k\r\nmd YQ== k O7 b\r\n",
        b"NF O5 knokey\r\nNF kYQ== b O7\r\n",
    );
    c.check(b"set a 0 0 1\r\nx\r\n", b"STORED\r\n");
    let a = cas(&mut c, "a");
    c.check(
        format!("md a C{}\r\nmd a C{} q\r\nmd nokey C1\r\n", a + 1, a + 1).as_bytes(),
        b"EX\r\nEX\r\nNF\r\n",
    );
    c.check(format!("md a C{a}\r\nmg a\r\n").as_bytes(), b"HD\r\nEN\r\n");
    c.check(b"md a Z\r\nmd\r\nmd a b\r\nmd a q q\r\n", b"CLIENT_ERROR invalid or duplicate flag\r\nERROR\r\nCLIENT_ERROR invalid or duplicate flag\r\nCLIENT_ERROR invalid or duplicate flag\r\n");
    // T alone does nothing but delete.
    c.check(
        b"set a 0 0 1\r\nx\r\nmd a T30\r\nmg a v t\r\n",
        b"STORED\r\nHD\r\nEN\r\n",
    );
    // x empties the value, keeps the item (flags reset).
    c.check(
        b"set a 5 100 1\r\nx\r\nmd a x\r\nmg a v f t\r\n",
        b"STORED\r\nHD\r\nVA 0 f0 t100\r\n\r\n",
    );
}

#[test]
fn meta_arithmetic() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"set n 0 0 2\r\n10\r\nma n\r\nmg n v\r\nma n v\r\nma n v D5\r\nma n v MD D3\r\nma n v M- D100\r\nma n v M+ D7\r\nma n v MI\r\n",
        b"STORED\r\nHD\r\nVA 2\r\n11\r\nVA 2\r\n12\r\nVA 2\r\n17\r\nVA 2\r\n14\r\nVA 1\r\n0\r\nVA 1\r\n7\r\nVA 1\r\n8\r\n",
    );
    c.check(
        b"ma n v Mi\r\nma n v Mx\r\n",
        &b"CLIENT_ERROR invalid mode for ma M token\r\n".repeat(2),
    );
    c.check(
        b"ma nokey\r\nma nokey q\r\nma nokey O5 k t c v\r\n",
        b"NF\r\nNF\r\nNF O5 knokey\r\n",
    );
    c.check(b"ma viv v N30\r\n", b"VA 1\r\n0\r\n");
    let reply = String::from_utf8(c.call(b"ma viv2 v N30 J42 t c\r\n")).unwrap();
    let v2 = cas(&mut c, "viv2");
    assert_eq!(reply, format!("VA 2 t30 c{v2}\r\n42\r\n"));
    // Auto-creation is reported even with q; a normal success is hidden.
    c.check(
        b"ma viv3 N30 J42 q\r\nmg viv3 v t\r\nma viv3 q\r\nma viv3 q v\r\n",
        b"HD\r\nVA 2 t30\r\n42\r\n",
    );
    let non_numeric = b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n";
    c.check(
        b"set x 0 0 1\r\nx\r\nma x\r\nma x q\r\n",
        &[&b"STORED\r\n"[..], non_numeric, non_numeric].concat(),
    );
    c.check(
        b"set w 0 0 20\r\n18446744073709551615\r\nma w v\r\nmg w v\r\n",
        b"STORED\r\nVA 1\r\n0\r\nVA 20\r\n0                   \r\n",
    );
    c.check(
        b"set n 3 0 3\r\n100\r\nma n MD D95 v\r\nmg n v f\r\n",
        b"STORED\r\nVA 1\r\n5\r\nVA 3 f3\r\n5  \r\n",
    );
    c.check(b"set n 0 0 1\r\n5\r\n", b"STORED\r\n");
    let n = cas(&mut c, "n");
    c.check(
        format!("ma n C{} v\r\nma n C{} q\r\n", n + 1, n + 1).as_bytes(),
        b"EX\r\nEX\r\n",
    );
    let reply =
        String::from_utf8(c.call(format!("ma n C{n} v T30 t c k O9 s f\r\n").as_bytes())).unwrap();
    let n2 = cas(&mut c, "n");
    assert_eq!(reply, format!("VA 1 t30 c{n2} kn O9\r\n6\r\n"));
    c.check(b"ma n v D18446744073709551615\r\n", b"VA 1\r\n5\r\n");
    for bad in [
        "Dabc",
        "D-1",
        "D18446744073709551616",
        "Jx N0",
        "Z",
        "b",
        "Nabc",
    ] {
        c.check(
            format!("ma n {bad}\r\n").as_bytes(),
            b"CLIENT_ERROR invalid or duplicate flag\r\n",
        );
    }
    c.check(b"ma\r\n", b"ERROR\r\n");
    assert_eq!(c.stat("incr_misses"), "6");
    assert_eq!(c.stat("decr_hits"), "3");
}

#[test]
fn meta_noop_and_debug() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"mn\r\nmn x\r\nmn x y\r\n", b"MN\r\nMN\r\nMN\r\n");
    c.check(b"set a 0 0 1\r\nx\r\n", b"STORED\r\n");
    c.check(
        b"me a\r\n",
        b"ME a exp=-1 la=0 cas=1 fetch=no cls=1 size=50\r\n",
    );
    server.advance_secs(2);
    // `mg` fetches (memcached marks it fetched, `me` itself does not).
    let a = cas(&mut c, "a");
    c.check(
        b"me YQ== b\r\n",
        format!("ME a exp=-1 la=0 cas={a} fetch=yes cls=1 size=50\r\n").as_bytes(),
    );
    c.check(
        b"me nokey\r\nme\r\n",
        b"EN\r\nCLIENT_ERROR bad command line format\r\n",
    );
    c.check(b"touch a 100\r\n", b"TOUCHED\r\n");
    server.advance_secs(40);
    c.check(
        b"me a\r\n",
        format!("ME a exp=60 la=40 cas={a} fetch=yes cls=1 size=50\r\n").as_bytes(),
    );
}

/// `h` (fetched before) and `l` (seconds since last access) report the
/// item's state before this request, as memcached 1.6 does: a new item is
/// not fetched; a fetch marks it; `u` reads without marking; `T` (a touch)
/// marks it; an overwrite is a new item.
#[test]
fn meta_get_hit_before_and_last_access() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set a 0 0 1\r\nx\r\n", b"STORED\r\n");
    server.advance_secs(4);
    c.check(b"mg a h l\r\n", b"HD h0 l4\r\n");
    c.check(b"mg a h l v\r\n", b"VA 1 h1 l0\r\nx\r\n");
    server.advance_secs(7);
    c.check(b"mg a l h\r\n", b"HD l7 h1\r\n");
    server.advance_secs(3);
    // u: no bump, so the next request still sees 3 seconds.
    c.check(b"mg a u h l\r\nmg a h l\r\n", b"HD h1 l3\r\nHD h1 l3\r\n");
    // A classic get marks it too; peeks of other commands (me) do not.
    server.advance_secs(2);
    c.check(b"get a\r\n", b"VALUE a 0 1\r\nx\r\nEND\r\n");
    server.advance_secs(1);
    c.check(b"mg a l\r\n", b"HD l1\r\n");
    // A touch counts as an access.
    server.advance_secs(5);
    c.check(b"mg a l T60\r\nmg a l\r\n", b"HD l5\r\nHD l0\r\n");
    // An overwrite is a new item, not fetched yet.
    server.advance_secs(2);
    c.check(b"set a 0 0 1\r\ny\r\n", b"STORED\r\n");
    server.advance_secs(1);
    c.check(b"mg a h l\r\nmg a h l\r\n", b"HD h0 l1\r\nHD h1 l0\r\n");
    // A miss, and an item created by this very request (N).
    c.check(b"mg b h l\r\n", b"EN\r\n");
    c.check(b"mg b h l N30\r\n", b"HD h0 l0 W\r\n");
    server.advance_secs(2);
    // memcached bumps the item it created too.
    c.check(b"mg b h l\r\n", b"HD h1 l2 Z\r\n");
}

#[test]
fn meta_pipeline_with_quiet_mode() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"ms a 1 q\r\n1\r\nms b 1 q\r\n2\r\nmg a v q k\r\nmg missing v q k\r\nmg b v q k\r\nmd a q\r\nmd missing q\r\n", b"VA 1 ka\r\n1\r\nVA 1 kb\r\n2\r\nNF\r\n");
}

#[test]
fn meta_cas_rules_follow_memcached_store_semantics() {
    let server = Server::start();
    let mut c = server.connect();
    // Add ignores a CAS; set/replace with one become a "cas".
    c.check(
        b"ms a 1 ME C999\r\nx\r\nms a 1 ME C999\r\ny\r\n",
        b"HD\r\nNS\r\n",
    );
    c.check(
        b"ms b 1 MR C999\r\nx\r\nms b 1 MS C0\r\nx\r\n",
        b"NF\r\nNF\r\n",
    );
    c.check(
        b"ms a 1 MR C999\r\nx\r\nms a 1 C0\r\nx\r\n",
        b"EX\r\nEX\r\n",
    );
    // Append/prepend check only a non-zero CAS.
    c.check(
        b"ms a 1 MA C0\r\nz\r\nms a 1 MA C999\r\nz\r\nmg a v\r\n",
        b"HD\r\nEX\r\nVA 2\r\nxz\r\n",
    );
    let a = cas(&mut c, "a");
    c.check(
        format!("ms a 1 MP C{a}\r\n>\r\nmg a v\r\n").as_bytes(),
        b"HD\r\nVA 3\r\n>xz\r\n",
    );
    // ma: an empty value is refused first, then the CAS (0: no check) is
    // compared, then the number is read.
    let non_numeric = "CLIENT_ERROR cannot increment or decrement non-numeric value\r\n";
    c.check(
        b"ms e 0\r\n\r\nma e C999999\r\n",
        format!("HD\r\n{non_numeric}").as_bytes(),
    );
    c.check(
        b"ms e 1\r\nx\r\nma e C999999\r\nma e C0\r\n",
        format!("HD\r\nEX\r\n{non_numeric}").as_bytes(),
    );
    // md: any C must match.
    c.check(b"md e C0\r\n", b"EX\r\n");
}

#[test]
fn ttl_flags_apply_in_request_order() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"set a 0 0 1\r\nx\r\nmg a t T30\r\nmg a t\r\n",
        b"STORED\r\nHD t-1\r\nHD t30\r\n",
    );
    // A created item has no TTL until its N flag is reached.
    c.check(b"mg n t N100\r\nmg n t\r\n", b"HD t-1 W\r\nHD t100 Z\r\n");
    c.check(
        b"mg m N100 T50 t\r\nmg m t\r\n",
        b"HD t50 W\r\nHD t50 Z\r\n",
    );
    c.check(
        b"mg m2 T50 N100 t\r\nmg m2 t\r\n",
        b"HD t100 W\r\nHD t100 Z\r\n",
    );
    // R compares with the TTL at its own position.
    c.check(b"set r 0 0 1\r\nx\r\nmg r R30 T10\r\n", b"STORED\r\nHD\r\n");
    c.check(
        b"set r 0 0 1\r\nx\r\nmg r T10 R30\r\n",
        b"STORED\r\nHD W\r\n",
    );
    // ma likewise.
    c.check(
        b"set i 0 100 1\r\n1\r\nma i t T30 v\r\nma i t\r\n",
        b"STORED\r\nVA 1 t100\r\n2\r\nHD t30\r\n",
    );
    c.check(
        b"ma j t N40 J5 v\r\nmg j t v\r\n",
        b"VA 1 t-1\r\n5\r\nVA 1 t40\r\n5\r\n",
    );
}
