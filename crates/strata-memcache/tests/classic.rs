//! Classic memcached commands over TCP, replies compared byte for byte with
//! what memcached 1.6 sends for the same requests.

use crate::common;

use common::Server;

#[test]
fn set_get_gets_many_keys() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set a 5 0 3\r\nabc\r\n", b"STORED\r\n");
    c.check(b"set b 0 0 0\r\n\r\n", b"STORED\r\n");
    c.check(b"get a\r\n", b"VALUE a 5 3\r\nabc\r\nEND\r\n");
    c.check(
        b"get a nokey b\r\n",
        b"VALUE a 5 3\r\nabc\r\nVALUE b 0 0\r\n\r\nEND\r\n",
    );
    c.check(b"get nokey\r\n", b"END\r\n");
    let cas = c.cas_of("a");
    c.check(
        b"gets a\r\n",
        format!("VALUE a 5 3 {cas}\r\nabc\r\nEND\r\n").as_bytes(),
    );
    // Binary data, including "\r\n" inside the value.
    c.check(b"set bin 0 0 4\r\n\r\n\0\xff\r\n", b"STORED\r\n");
    c.check(b"get bin\r\n", b"VALUE bin 0 4\r\n\r\n\0\xff\r\nEND\r\n");
    // More keys than memcached splits at once (24 tokens).
    let keys: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
    for k in &keys {
        c.check(format!("set {k} 0 0 1\r\nx\r\n").as_bytes(), b"STORED\r\n");
    }
    let reply = c.call(format!("get {}\r\n", keys.join(" ")).as_bytes());
    assert_eq!(reply.windows(5).filter(|w| w == b"VALUE").count(), 40);
    assert!(reply.ends_with(b"END\r\n"));
    // Leading and repeated spaces, bare newlines.
    c.check(b"   get  a   \n", b"VALUE a 5 3\r\nabc\r\nEND\r\n");
    // Flags are 32 bits; wider values are truncated as memcached does.
    c.check(
        b"set f 4294967295 0 1\r\nx\r\nget f\r\n",
        b"STORED\r\nVALUE f 4294967295 1\r\nx\r\nEND\r\n",
    );
    c.check(
        b"set f 4294967296 0 1\r\nx\r\nget f\r\n",
        b"STORED\r\nVALUE f 0 1\r\nx\r\nEND\r\n",
    );
}

#[test]
fn add_replace_append_prepend() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"add a 1 0 1\r\nx\r\n", b"STORED\r\n");
    c.check(b"add a 0 0 1\r\ny\r\n", b"NOT_STORED\r\n");
    c.check(b"replace nokey 0 0 1\r\nx\r\n", b"NOT_STORED\r\n");
    c.check(b"replace a 3 0 1\r\ny\r\n", b"STORED\r\n");
    c.check(b"get a\r\n", b"VALUE a 3 1\r\ny\r\nEND\r\n");
    // append/prepend keep the item's flags and ignore theirs.
    c.check(b"append a 5 0 2\r\nyz\r\n", b"STORED\r\n");
    c.check(b"prepend a 7 100 2\r\nvw\r\n", b"STORED\r\n");
    c.check(b"get a\r\n", b"VALUE a 3 5\r\nvwyyz\r\nEND\r\n");
    c.check(b"append nokey 0 0 1\r\nx\r\n", b"NOT_STORED\r\n");
    c.check(b"prepend nokey 0 0 1\r\nx\r\n", b"NOT_STORED\r\n");
    // ...but still parse them.
    c.check(
        b"append a abc 0 1\r\nx\r\n",
        b"CLIENT_ERROR bad command line format\r\nERROR\r\n",
    );
}

#[test]
fn cas_semantics() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"cas nokey 0 0 1 5\r\nx\r\n", b"NOT_FOUND\r\n");
    c.check(b"set a 0 0 1\r\nx\r\n", b"STORED\r\n");
    let cas = c.cas_of("a");
    c.check(
        format!("cas a 0 0 1 {}\r\ny\r\n", cas + 1000).as_bytes(),
        b"EXISTS\r\n",
    );
    c.check(
        format!("cas a 9 0 1 {cas}\r\ny\r\n").as_bytes(),
        b"STORED\r\n",
    );
    c.check(b"get a\r\n", b"VALUE a 9 1\r\ny\r\nEND\r\n");
    // The CAS changed with the store: the old one no longer works.
    c.check(
        format!("cas a 0 0 1 {cas}\r\nz\r\n").as_bytes(),
        b"EXISTS\r\n",
    );
    let new_cas = c.cas_of("a");
    assert_ne!(new_cas, cas);
    // touch keeps the CAS, every write changes it.
    c.check(b"touch a 100\r\n", b"TOUCHED\r\n");
    assert_eq!(c.cas_of("a"), new_cas);
    c.check(b"append a 0 0 1\r\n!\r\n", b"STORED\r\n");
    assert_ne!(c.cas_of("a"), new_cas);
    assert_eq!(c.stat("cas_misses"), "1");
    assert_eq!(c.stat("cas_hits"), "1");
    assert_eq!(c.stat("cas_badval"), "2");
}

#[test]
fn delete_forms() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set d 0 0 1\r\nx\r\n", b"STORED\r\n");
    c.check(b"delete d\r\n", b"DELETED\r\n");
    c.check(b"delete d\r\n", b"NOT_FOUND\r\n");
    c.check(b"delete d noreply\r\n", b"");
    c.check(
        b"set d 0 0 1\r\nx\r\ndelete d 0\r\n",
        b"STORED\r\nDELETED\r\n",
    );
    let usage = b"CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n";
    c.check(b"delete d 5\r\n", usage);
    c.check(b"delete d noreply extra\r\n", usage);
    c.check(b"delete d 1 noreply\r\n", b"");
    c.check(b"delete d 0 noreply\r\n", b"");
    c.check(b"delete\r\ndelete d 0 0 0\r\n", b"ERROR\r\nERROR\r\n");
}

#[test]
fn incr_decr() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"set n 0 0 2\r\n10\r\nincr n 5\r\ndecr n 100\r\nget n\r\n",
        b"STORED\r\n15\r\n0\r\nVALUE n 0 2\r\n0 \r\nEND\r\n",
    );
    c.check(
        b"set n 0 0 3\r\n100\r\ndecr n 95\r\nget n\r\nincr n 1\r\nget n\r\n",
        b"STORED\r\n5\r\nVALUE n 0 3\r\n5  \r\nEND\r\n6\r\nVALUE n 0 3\r\n6  \r\nEND\r\n",
    );
    // Wraps at 2^64.
    c.check(
        b"set n 0 0 20\r\n18446744073709551615\r\nincr n 2\r\nget n\r\n",
        b"STORED\r\n1\r\nVALUE n 0 20\r\n1                   \r\nEND\r\n",
    );
    // Growing numbers get longer.
    c.check(
        b"set n 7 0 1\r\n9\r\nincr n 1\r\nget n\r\n",
        b"STORED\r\n10\r\nVALUE n 7 2\r\n10\r\nEND\r\n",
    );
    c.check(b"incr n 18446744073709551615\r\n", b"9\r\n");
    let non_numeric = b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n";
    for value in [&b"ab"[..], b"12a", b"-12", b"", b"18446744073709551616"] {
        let mut req = format!("set n 0 0 {}\r\n", value.len()).into_bytes();
        req.extend_from_slice(value);
        req.extend_from_slice(b"\r\nincr n 1\r\n");
        let mut want = b"STORED\r\n".to_vec();
        want.extend_from_slice(non_numeric);
        c.check(&req, &want);
    }
    c.check(
        b"set n 0 0 3\r\n 12\r\nincr n 2\r\nget n\r\n",
        b"STORED\r\n14\r\nVALUE n 0 3\r\n14 \r\nEND\r\n",
    );
    let bad_delta = b"CLIENT_ERROR invalid numeric delta argument\r\n";
    c.check(b"incr n abc\r\n", bad_delta);
    c.check(b"incr n -1\r\n", bad_delta);
    c.check(b"incr n 18446744073709551616\r\n", bad_delta);
    c.check(
        b"incr nokey 1\r\ndecr nokey 1\r\n",
        b"NOT_FOUND\r\nNOT_FOUND\r\n",
    );
    c.check(b"incr nokey 1 noreply\r\nincr nokey abc noreply\r\n", b"");
    c.check(
        b"incr\r\nincr n\r\nincr n 1 2 3\r\n",
        b"ERROR\r\nERROR\r\nERROR\r\n",
    );
    // Flags are kept and the CAS changes.
    c.check(b"set n 5 0 1\r\n5\r\n", b"STORED\r\n");
    let before = c.cas_of("n");
    c.check(
        b"incr n 1 noreply\r\nget n\r\n",
        b"VALUE n 5 1\r\n6\r\nEND\r\n",
    );
    assert_ne!(c.cas_of("n"), before);
}

#[test]
fn touch_and_gat() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"touch t 10\r\n", b"NOT_FOUND\r\n");
    c.check(
        b"set t 3 0 1\r\nx\r\ntouch t 10\r\n",
        b"STORED\r\nTOUCHED\r\n",
    );
    c.check(
        b"touch t abc\r\ntouch t\r\ntouch t 10 noreply\r\ntouch t 10 20 30\r\n",
        b"CLIENT_ERROR invalid exptime argument\r\nERROR\r\nERROR\r\n",
    );
    c.check(b"gat\r\n", b"ERROR\r\n");
    c.check(b"gat 10\r\n", b"END\r\n");
    c.check(
        b"gat abc t\r\n",
        b"CLIENT_ERROR invalid exptime argument\r\n",
    );
    let cas = c.cas_of("t");
    c.check(b"gat 100 t nokey\r\n", b"VALUE t 3 1\r\nx\r\nEND\r\n");
    c.check(
        b"gats 100 t\r\n",
        format!("VALUE t 3 1 {cas}\r\nx\r\nEND\r\n").as_bytes(),
    );
    // noreply is just a key for gat.
    c.check(b"gat 10 t noreply\r\n", b"VALUE t 3 1\r\nx\r\nEND\r\n");
    // A negative exptime returns the item once, then it is gone.
    c.check(
        b"gat -1 t\r\nget t\r\n",
        b"VALUE t 3 1\r\nx\r\nEND\r\nEND\r\n",
    );
    assert_eq!(c.stat("touch_hits"), "6");
    assert_eq!(c.stat("touch_misses"), "3");
}

#[test]
fn flush_all_now_and_noreply() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"set a 0 0 1\r\nx\r\nflush_all\r\nget a\r\n",
        b"STORED\r\nOK\r\nEND\r\n",
    );
    c.check(
        b"set a 0 0 1\r\nx\r\nflush_all noreply\r\nget a\r\n",
        b"STORED\r\nEND\r\n",
    );
    c.check(b"flush_all 0\r\nflush_all -1\r\n", b"OK\r\nOK\r\n");
    c.check(
        b"flush_all abc\r\nflush_all abc noreply\r\n",
        b"CLIENT_ERROR invalid exptime argument\r\n",
    );
    c.check(b"flush_all 1 2 3\r\n", b"ERROR\r\n");
    assert_eq!(c.stat("cmd_flush"), "4");
}

#[test]
fn version_verbosity_quit() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"version\r\nversion x y\r\n",
        b"VERSION 1.6.18-strata-0.1.0-test\r\nVERSION 1.6.18-strata-0.1.0-test\r\n",
    );
    c.check(
        b"verbosity\r\nverbosity 1\r\nverbosity abc\r\nverbosity 1 noreply\r\nverbosity 1 2\r\nverbosity 1 2 3\r\n",
        b"ERROR\r\nOK\r\nCLIENT_ERROR bad command line format\r\nOK\r\nERROR\r\n",
    );
    let settings = c.call(b"stats settings\r\n");
    assert!(String::from_utf8_lossy(&settings).contains("STAT verbosity 1\r\n"));
    c.send(b"get a\r\nquit\r\nversion\r\n");
    assert_eq!(c.read_to_close(), b"END\r\n");
}

#[test]
fn stats_report_counters() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"set a 0 0 1\r\nx\r\nget a b\r\ndelete a\r\ndelete a\r\n",
        b"STORED\r\nVALUE a 0 1\r\nx\r\nEND\r\nDELETED\r\nNOT_FOUND\r\n",
    );
    c.check(
        b"set n 0 0 1\r\n1\r\nincr n 1\r\nincr zz 1\r\ndecr n 1\r\ndecr zz 1\r\n",
        b"STORED\r\n2\r\nNOT_FOUND\r\n1\r\nNOT_FOUND\r\n",
    );
    let reply = String::from_utf8(c.call(b"stats\r\n")).unwrap();
    for field in [
        "pid",
        "uptime",
        "time",
        "version",
        "pointer_size",
        "rusage_user",
        "rusage_system",
        "max_connections",
        "curr_connections",
        "total_connections",
        "rejected_connections",
        "connection_structures",
        "cmd_get",
        "cmd_set",
        "cmd_flush",
        "cmd_touch",
        "get_hits",
        "get_misses",
        "get_expired",
        "get_flushed",
        "delete_misses",
        "delete_hits",
        "incr_misses",
        "incr_hits",
        "decr_misses",
        "decr_hits",
        "cas_misses",
        "cas_hits",
        "cas_badval",
        "touch_hits",
        "touch_misses",
        "auth_cmds",
        "auth_errors",
        "bytes_read",
        "bytes_written",
        "limit_maxbytes",
        "threads",
        "bytes",
        "curr_items",
        "total_items",
        "evictions",
    ] {
        assert!(
            reply.contains(&format!("STAT {field} ")),
            "missing {field} in {reply}"
        );
    }
    assert!(reply.ends_with("END\r\n"));
    assert_eq!(c.stat("cmd_get"), "2");
    assert_eq!(c.stat("get_hits"), "1");
    assert_eq!(c.stat("get_misses"), "1");
    assert_eq!(c.stat("cmd_set"), "2");
    assert_eq!(c.stat("delete_hits"), "1");
    assert_eq!(c.stat("delete_misses"), "1");
    assert_eq!(c.stat("incr_hits"), "1");
    assert_eq!(c.stat("incr_misses"), "1");
    assert_eq!(c.stat("decr_hits"), "1");
    assert_eq!(c.stat("decr_misses"), "1");
    assert_eq!(c.stat("curr_items"), "1");
    assert_eq!(c.stat("curr_connections"), "1");
    assert_eq!(c.stat("version"), "1.6.18-strata-0.1.0-test");
    // The binary's commit, as the server was given it.
    assert_eq!(c.stat("strata_commit"), common::COMMIT);
    assert_eq!(c.stat("time"), server.now_secs().to_string());
    let ks = server.keyspace.stats();
    assert_eq!(c.stat("limit_maxbytes"), ks.memory_limit.to_string());
    let ks = server.keyspace.stats();
    assert_eq!(
        c.stat("bytes"),
        (ks.used_memory - ks.index_bytes).to_string()
    );
    assert_eq!(c.stat("listen_disabled_num"), "0");
    assert_eq!(c.stat("time_in_listen_disabled_us"), "0");

    let settings = String::from_utf8(c.call(b"stats settings\r\n")).unwrap();
    for line in [
        "STAT maxconns 1024\r\n",
        "STAT tcpport 11211\r\n",
        "STAT udpport 0\r\n",
        "STAT evictions on\r\n",
        "STAT cas_enabled yes\r\n",
        "STAT item_size_max 1048576\r\n",
    ] {
        assert!(settings.contains(line), "missing {line:?} in {settings}");
    }
    c.check(b"stats foo\r\n", b"ERROR\r\n");
    c.check(
        b"stats detail\r\nstats detail on\r\nstats detail dump\r\n",
        b"CLIENT_ERROR usage: stats detail on|off|dump\r\nOK\r\nEND\r\n",
    );
    // Per-prefix counts while detail is on: gets (with hits), sets,
    // deletes, classic and meta alike; keys without `:` are not counted.
    c.check(b"set user:1 0 0 1\r\na\r\n", b"STORED\r\n");
    c.check(
        b"get user:1 user:2\r\n",
        b"VALUE user:1 0 1\r\na\r\nEND\r\n",
    );
    c.check(b"ms sess:9 1\r\nb\r\n", b"HD\r\n");
    c.check(b"mg sess:9 v\r\n", b"VA 1\r\nb\r\n");
    c.check(b"delete user:1\r\n", b"DELETED\r\n");
    c.check(b"md sess:nope\r\n", b"NF\r\n");
    c.check(b"set plain 0 0 1\r\nc\r\n", b"STORED\r\n");
    c.check(
        b"stats detail dump\r\n",
        b"PREFIX sess get 1 hit 1 set 1 del 1\r\nPREFIX user get 2 hit 1 set 1 del 1\r\nEND\r\n",
    );
    c.check(b"stats detail off\r\nget user:1\r\n", b"OK\r\nEND\r\n");
    let settings = String::from_utf8(c.call(b"stats settings\r\n")).unwrap();
    assert!(
        settings.contains("STAT detail_enabled no\r\n"),
        "{settings}"
    );
    c.check(
        b"stats detail dump\r\n",
        b"PREFIX sess get 1 hit 1 set 1 del 1\r\nPREFIX user get 2 hit 1 set 1 del 1\r\nEND\r\n",
    );
    c.check(b"stats sizes\r\n", b"STAT sizes_status disabled\r\nEND\r\n");
    let conns = String::from_utf8(c.call(b"stats conns\r\n")).unwrap();
    assert!(conns.contains(":addr tcp:127.0.0.1:"), "{conns}");
    c.check(b"stats reset\r\n", b"RESET\r\n");
    assert_eq!(c.stat("cmd_get"), "0");
    c.check(b"stats detail dump\r\n", b"END\r\n");
}

#[test]
fn too_many_connections_reply() {
    let server = Server::with_config(Default::default(), 1);
    let mut first = server.connect();
    first.check(b"version\r\n", b"VERSION 1.6.18-strata-0.1.0-test\r\n");
    let mut second = server.connect();
    assert_eq!(
        second.read_to_close(),
        b"ERROR Too many open connections\r\n"
    );
    first.check(b"version\r\n", b"VERSION 1.6.18-strata-0.1.0-test\r\n");
}

/// `cache_memlimit` changes the memory limit as memcached's does.
#[test]
fn cache_memlimit_sets_the_limit() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"cache_memlimit 4\r\n",
        b"MEMLIMIT_TOO_SMALL cannot set maxbytes to less than 8m\r\n",
    );
    c.check(b"cache_memlimit abc\r\n", b"ERROR\r\n");
    c.check(b"cache_memlimit 4294967304\r\n", b"ERROR\r\n");
    c.check(b"cache_memlimit -1\r\n", b"ERROR\r\n");
    c.check(
        b"cache_memlimit 1000000001\r\n",
        b"MEMLIMIT_ADJUST_FAILED input value is megabytes not bytes\r\n",
    );
    c.check(b"cache_memlimit\r\n", b"ERROR\r\n");
    c.check(b"cache_memlimit 64\r\n", b"OK\r\n");
    assert_eq!(c.stat("limit_maxbytes"), (64u64 << 20).to_string());
    c.send(b"cache_memlimit 32 noreply\r\n");
    assert_eq!(c.stat("limit_maxbytes"), (32u64 << 20).to_string());
}

/// An empty server reports `bytes 0`, as memcached.
#[test]
fn empty_server_has_no_bytes() {
    let server = Server::start();
    let mut c = server.connect();
    assert_eq!(c.stat("bytes"), "0");
    assert_eq!(c.stat("curr_items"), "0");
}
