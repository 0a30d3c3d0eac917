//! memcached's ASCII authentication (`-Y` auth file) over raw TCP, with
//! memcached 1.6.18's replies: nothing but a login `set` before logging
//! in, then the ordinary protocol; and the binary protocol, refused with a
//! binary error and a close instead of a hang.

use crate::common;

use std::path::Path;

use common::Server;
use strata_memcache::auth_file::AuthFile;

fn server() -> Server {
    let auth = AuthFile::parse(b"alice:secret\nbob:pw2\n", Path::new("/etc/strata/mc.auth"))
        .expect("valid auth file");
    Server::with_auth(auth)
}

const UNAUTHENTICATED: &[u8] = b"CLIENT_ERROR unauthenticated\r\n";

#[test]
fn nothing_but_login_before_authenticating() {
    let server = server();
    let mut c = server.connect();
    for request in [
        &b"get foo\r\n"[..],
        b"version\r\n",
        b"mg foo v\r\n",
        b"mn\r\n",
        b"flush_all\r\n",
        b"stats\r\n",
        b"quit\r\n",
        b"bogus\r\n",
        b"set foo 0 0\r\n",
        b"add foo 0 0 12\r\n",
    ] {
        c.send(request);
        assert_eq!(
            String::from_utf8_lossy(&c.read_n(UNAUTHENTICATED.len())),
            String::from_utf8_lossy(UNAUTHENTICATED),
            "{:?}",
            String::from_utf8_lossy(request)
        );
    }
    // `add` took its line only: its data line is read as a command.
    c.send(b"alice secret\r\n");
    assert_eq!(c.read_n(UNAUTHENTICATED.len()), UNAUTHENTICATED);
    // `ms` (a data block follows) also stays unauthenticated: the block is
    // just another line.
    c.send(b"ms foo 2\r\nhi\r\n");
    let both = [UNAUTHENTICATED, UNAUTHENTICATED].concat();
    assert_eq!(c.read_n(both.len()), both);
    assert_eq!(server.keyspace.stats().items, 0, "nothing was stored");
}

#[test]
fn login_then_the_ordinary_protocol() {
    let server = server();
    let mut c = server.connect();
    c.send(b"set foo 0 0 9\r\nalice bad\r\n");
    assert_eq!(c.read_n(37), b"CLIENT_ERROR authentication failure\r\n");
    c.send(b"set foo 0 0 5\r\nalice\r\n");
    let format = b"CLIENT_ERROR bad authentication token format\r\n";
    assert_eq!(c.read_n(format.len()), format);
    c.send(b"set foo 0 0 5\r\nalicexx\r\n");
    // The 2 bytes after the 5 were taken as the terminator; the rest is a
    // (blank) command line.
    let replies = [
        &b"CLIENT_ERROR bad command line termination\r\n"[..],
        UNAUTHENTICATED,
    ]
    .concat();
    assert_eq!(c.read_n(replies.len()), replies);
    // Key, flags, expiry and noreply are ignored; spaces between user and
    // password too. Nothing is stored under the key.
    c.send(b"set anykey 5 100 11 noreply\r\nbob     pw2\r\n");
    assert_eq!(c.read_n(8), b"STORED\r\n");
    c.check(b"get anykey\r\n", b"END\r\n");
    c.check(
        b"set k 0 0 2\r\nhi\r\nget k\r\n",
        b"STORED\r\nVALUE k 0 2\r\nhi\r\nEND\r\n",
    );
    // After login, a `set` is a `set`.
    c.check(
        b"set k 0 0 12\r\nalice secret\r\nget k\r\n",
        b"STORED\r\nVALUE k 0 12\r\nalice secret\r\nEND\r\n",
    );
    assert_eq!(c.stat("auth_cmds"), "2");
    assert_eq!(c.stat("auth_errors"), "1");
    let settings = String::from_utf8(c.call(b"stats settings\r\n")).unwrap();
    assert!(
        settings.contains("STAT auth_enabled_ascii /etc/strata/mc.auth\r\n"),
        "{settings}"
    );
    // Each connection logs in on its own.
    let mut other = server.connect();
    other.send(b"get k\r\n");
    assert_eq!(other.read_n(UNAUTHENTICATED.len()), UNAUTHENTICATED);
}

#[test]
fn oversized_credentials_are_discarded_not_buffered() {
    let server = server();
    let mut c = server.connect();
    let size = 1 << 20;
    c.send(format!("set k 0 0 {size}\r\n").as_bytes());
    let format = b"CLIENT_ERROR bad authentication token format\r\n";
    assert_eq!(c.read_n(format.len()), format);
    c.send(&vec![b'x'; size]);
    c.send(b"\r\nset k 0 0 12\r\nalice secret\r\n");
    assert_eq!(c.read_n(8), b"STORED\r\n");
}

#[test]
fn binary_protocol_gets_an_error_and_a_close() {
    // A binary GET of "foo" with opaque 0xdeadbeef.
    let mut get = vec![0x80, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 3];
    get.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    get.extend_from_slice(&[0; 8]);
    get.extend_from_slice(b"foo");
    let mut expected = vec![0x81, 0x00, 0, 0, 0, 0, 0x00, 0x83, 0, 0, 0, 13];
    expected.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    expected.extend_from_slice(&[0; 8]);
    expected.extend_from_slice(b"Not supported");
    for server in [Server::start(), server()] {
        let mut c = server.connect();
        c.send(&get);
        assert_eq!(c.read_to_close(), expected);
        // A header that arrives in pieces is answered once it is whole.
        let mut c = server.connect();
        c.send(&get[..10]);
        std::thread::sleep(std::time::Duration::from_millis(50));
        c.send(&get[10..]);
        assert_eq!(c.read_to_close(), expected);
    }
    // After text requests too.
    let server = Server::start();
    let mut c = server.connect();
    c.send(b"set a 0 0 1\r\nx\r\n");
    c.send(&get);
    let mut both = b"STORED\r\n".to_vec();
    both.extend_from_slice(&expected);
    assert_eq!(c.read_to_close(), both);
}
