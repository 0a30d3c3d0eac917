//! Expiration rules driven by a manual clock (no sleeping): relative times
//! up to 30 days, absolute Unix times beyond, negative times, touch, gat,
//! meta TTLs and delayed flush_all.

use crate::common;

use common::Server;

#[test]
fn relative_expiry() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set r 0 10 1\r\nx\r\n", b"STORED\r\n");
    server.advance_secs(9);
    c.check(b"get r\r\n", b"VALUE r 0 1\r\nx\r\nEND\r\n");
    server.advance_secs(1);
    c.check(b"get r\r\n", b"END\r\n");
    // 30 days exactly is still relative.
    c.check(b"set r 0 2592000 1\r\nx\r\n", b"STORED\r\n");
    server.advance_secs(2_591_999);
    c.check(b"get r\r\n", b"VALUE r 0 1\r\nx\r\nEND\r\n");
    server.advance_secs(1);
    c.check(b"get r\r\n", b"END\r\n");
}

#[test]
fn absolute_expiry() {
    let server = Server::start();
    let mut c = server.connect();
    let at = server.now_secs() + 100;
    c.check(format!("set a 0 {at} 1\r\nx\r\n").as_bytes(), b"STORED\r\n");
    server.advance_secs(99);
    c.check(b"get a\r\n", b"VALUE a 0 1\r\nx\r\nEND\r\n");
    server.advance_secs(1);
    c.check(b"get a\r\n", b"END\r\n");
    // An absolute time in the past (anything beyond 30 days is absolute).
    let past = server.now_secs() - 10;
    c.check(
        format!("set a 0 {past} 1\r\nx\r\nget a\r\n").as_bytes(),
        b"STORED\r\nEND\r\n",
    );
    c.check(b"set a 0 2592001 1\r\nx\r\nget a\r\n", b"STORED\r\nEND\r\n");
}

#[test]
fn negative_and_zero_expiry() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set n 0 0 1\r\nx\r\n", b"STORED\r\n");
    // A negative time stores nothing and removes the old item.
    c.check(b"set n 0 -1 1\r\ny\r\nget n\r\n", b"STORED\r\nEND\r\n");
    c.check(b"set n 0 0 1\r\nx\r\n", b"STORED\r\n");
    server.advance_secs(10 * 365 * 86_400);
    c.check(b"get n\r\n", b"VALUE n 0 1\r\nx\r\nEND\r\n");
    // Exptimes wider than 32 bits are truncated like memcached's int32:
    // 2^32 becomes 0 (never), 2^31 becomes negative (expired).
    c.check(
        b"set w 0 4294967296 1\r\nx\r\nget w\r\n",
        b"STORED\r\nVALUE w 0 1\r\nx\r\nEND\r\n",
    );
    c.check(
        b"set w 0 2147483648 1\r\nx\r\nget w\r\n",
        b"STORED\r\nEND\r\n",
    );
}

#[test]
fn touch_and_gat_reset_expiry() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set t 0 10 1\r\nx\r\n", b"STORED\r\n");
    server.advance_secs(5);
    c.check(b"touch t 20\r\n", b"TOUCHED\r\n");
    server.advance_secs(15);
    c.check(b"get t\r\n", b"VALUE t 0 1\r\nx\r\nEND\r\n");
    c.check(b"gat 0 t\r\n", b"VALUE t 0 1\r\nx\r\nEND\r\n");
    server.advance_secs(1000);
    c.check(b"get t\r\n", b"VALUE t 0 1\r\nx\r\nEND\r\n");
    c.check(b"gat 5 t\r\n", b"VALUE t 0 1\r\nx\r\nEND\r\n");
    server.advance_secs(5);
    c.check(b"get t\r\ntouch t 10\r\n", b"END\r\nNOT_FOUND\r\n");
    // append keeps the expiry of the item.
    c.check(
        b"set t 0 10 1\r\nx\r\nappend t 0 0 1\r\ny\r\n",
        b"STORED\r\nSTORED\r\n",
    );
    server.advance_secs(10);
    c.check(b"get t\r\n", b"END\r\n");
}

#[test]
fn meta_ttls() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"ms m 1 T30\r\nx\r\nmg m t v\r\n",
        b"HD\r\nVA 1 t30\r\nx\r\n",
    );
    server.advance_secs(10);
    c.check(b"mg m t\r\n", b"HD t20\r\n");
    c.check(b"mg m T100 t\r\nmg m t\r\n", b"HD t100\r\nHD t100\r\n");
    c.check(b"ms p 1\r\nx\r\nmg p t\r\n", b"HD\r\nHD t-1\r\n");
    c.check(b"mg m T-1\r\nmg m v\r\n", b"HD\r\nEN\r\n");
    c.check(b"mg v N30 t s v\r\n", b"VA 0 t30 s0 W\r\n\r\n");
    server.advance_secs(30);
    c.check(b"mg v v\r\n", b"EN\r\n");
    c.check(
        b"set n 0 0 1\r\n5\r\nma n T15 t v\r\n",
        b"STORED\r\nVA 1 t15\r\n6\r\n",
    );
    server.advance_secs(15);
    c.check(b"ma n\r\n", b"NF\r\n");
    c.check(
        b"ma n N0 v t\r\nma n2 N-1\r\nmg n2\r\n",
        b"VA 1 t-1\r\n0\r\nHD\r\nEN\r\n",
    );
}

#[test]
fn flush_all_with_delay() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set a 0 0 1\r\nx\r\nflush_all 10\r\n", b"STORED\r\nOK\r\n");
    server.advance_secs(9);
    // Items stored before the deadline are flushed too.
    c.check(
        b"set b 0 0 1\r\ny\r\nget a b\r\n",
        b"STORED\r\nVALUE a 0 1\r\nx\r\nVALUE b 0 1\r\ny\r\nEND\r\n",
    );
    server.advance_secs(1);
    c.check(b"get a b\r\n", b"END\r\n");
    // After the flush, new items live normally.
    c.check(b"set c 0 0 1\r\nz\r\n", b"STORED\r\n");
    server.advance_secs(100);
    c.check(b"get c\r\n", b"VALUE c 0 1\r\nz\r\nEND\r\n");
    // An absolute flush time, and a later immediate flush_all cancelling a
    // pending one.
    let at = server.now_secs() + 50;
    c.check(format!("flush_all {at} noreply\r\n").as_bytes(), b"");
    server.advance_secs(49);
    c.check(b"get c\r\n", b"VALUE c 0 1\r\nz\r\nEND\r\n");
    server.advance_secs(1);
    c.check(b"get c\r\n", b"END\r\n");
    c.check(
        b"set d 0 0 1\r\nx\r\nflush_all 5\r\nflush_all 0\r\nset e 0 0 1\r\ny\r\n",
        b"STORED\r\nOK\r\nOK\r\nSTORED\r\n",
    );
    server.advance_secs(10);
    c.check(b"get d e\r\n", b"VALUE e 0 1\r\ny\r\nEND\r\n");
}
