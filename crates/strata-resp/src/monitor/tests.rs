//! The monitor registry: who gets lines, which commands are shown, and
//! the bound on a monitor that does not read.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::BytesMut;
use strata_service::Clients;

use super::{allowed_while_monitoring, Monitors, Source};
use crate::args::Args;
use crate::lookup::lookup;
use crate::pubsub::{Hub, Mailbox};

fn mailbox(clients: &Clients, port: u16) -> Arc<Mailbox> {
    let addr = format!("127.0.0.1:{port}").parse().expect("addr");
    Arc::new(Mailbox::new(clients.register(addr, addr)))
}

fn with_args<R>(words: &[&str], f: impl FnOnce(&Args<'_>) -> R) -> R {
    let words: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
    crate::args::with_words(&words, f)
}

/// What waits in `mailbox`, as text.
fn taken(mailbox: &Mailbox) -> String {
    let mut out = BytesMut::new();
    mailbox.take_into(&mut out);
    String::from_utf8(out.to_vec()).expect("ascii")
}

/// Feeds `words` as a command run by a client on port 7000.
fn run(monitors: &Monitors, hub: &Hub, words: &[&str]) {
    let spec = lookup(words[0].as_bytes()).expect("known command");
    let from = Source::Client("10.0.0.1:7000".parse().expect("addr"));
    with_args(words, |args| monitors.command_ran(hub, from, spec, args));
}

#[test]
fn lines_reach_every_monitor_until_it_leaves() {
    let (clients, hub, monitors) = (Clients::default(), Hub::default(), Monitors::default());
    assert!(!monitors.active());
    let (a, b) = (mailbox(&clients, 1), mailbox(&clients, 2));
    monitors.add(&a);
    monitors.add(&b);
    assert!(monitors.active());
    assert_eq!(monitors.len(), 2);
    run(&monitors, &hub, &["SET", "k", "v"]);
    let line = taken(&a);
    assert!(line.starts_with('+') && line.ends_with(" [0 10.0.0.1:7000] \"SET\" \"k\" \"v\"\r\n"));
    assert_eq!(taken(&b), line);
    monitors.remove(a.id());
    assert_eq!(monitors.len(), 1);
    run(&monitors, &hub, &["PING"]);
    assert_eq!(taken(&a), "");
    assert!(taken(&b).ends_with("\"PING\"\r\n"));
    monitors.remove(b.id());
    // Nobody left: commands cost the one load again.
    assert!(!monitors.active());
}

#[test]
fn admin_skip_monitor_and_unknown_subcommands_are_hidden() {
    let (clients, hub, monitors) = (Clients::default(), Hub::default(), Monitors::default());
    let m = mailbox(&clients, 1);
    monitors.add(&m);
    for hidden in [
        &["CONFIG", "GET", "timeout"][..],
        &["CLIENT", "LIST"],
        &["client", "nosuch"],
        &["SLOWLOG", "LEN"],
        &["MONITOR"],
        &["EVAL", "return 1", "0"],
        &["FCALL", "f", "0"],
    ] {
        run(&monitors, &hub, hidden);
        assert_eq!(taken(&m), "", "{hidden:?} was shown");
    }
    run(&monitors, &hub, &["CLIENT", "SETNAME", "x"]);
    assert!(taken(&m).ends_with("\"CLIENT\" \"SETNAME\" \"x\"\r\n"));
    run(&monitors, &hub, &["AUTH", "user", "pw"]);
    assert!(taken(&m).ends_with("\"AUTH\" \"(redacted)\" \"(redacted)\"\r\n"));
    // Script commands: `[0 lua]`.
    let spec = lookup(b"get").expect("get");
    with_args(&["get", "k"], |args| {
        monitors.command_ran(&hub, Source::Script, spec, args)
    });
    assert!(taken(&m).ends_with(" [0 lua] \"get\" \"k\"\r\n"));
}

#[test]
fn a_monitor_over_the_limit_is_closed_and_forgotten() {
    let (clients, hub, monitors) = (Clients::default(), Hub::default(), Monitors::default());
    hub.limit.set(200, 0, 0);
    let (slow, fast) = (mailbox(&clients, 1), mailbox(&clients, 2));
    monitors.add(&slow);
    monitors.add(&fast);
    run(&monitors, &hub, &["SET", "k", &"x".repeat(80)]);
    taken(&fast);
    // `slow` never reads: the second line takes it past 200 bytes.
    run(&monitors, &hub, &["SET", "k", &"y".repeat(80)]);
    assert_eq!(monitors.len(), 1);
    assert_eq!(hub.disconnections.load(Ordering::Relaxed), 1);
    assert!(clients.get(slow.id()).is_none_or(|c| c.is_closing()));
    assert_eq!(taken(&slow), "", "what waited is dropped");
    assert!(taken(&fast).contains("yyyy"));
    // A line longer than the limit by itself closes every monitor (it is
    // never built).
    run(&monitors, &hub, &["SET", "k", &"\x01".repeat(100)]);
    assert!(!monitors.active());
    assert_eq!(hub.disconnections.load(Ordering::Relaxed), 2);
}

#[test]
fn a_monitor_may_run_only_what_does_not_touch_the_keyspace() {
    let allowed = |words: &[&str]| {
        let spec = lookup(words[0].as_bytes()).expect("known");
        with_args(words, |args| allowed_while_monitoring(spec, args))
    };
    for ok in [
        &["PING"][..],
        &["ECHO", "x"],
        &["CLIENT", "INFO"],
        &["OBJECT", "HELP"],
        &["SUBSCRIBE", "c"],
        &["RESET"],
        &["QUIT"],
        &["MULTI"],
        &["EXEC"],
        &["TIME"],
    ] {
        assert!(allowed(ok), "{ok:?} refused");
    }
    for refused in [
        &["GET", "k"][..],
        &["SET", "k", "v"],
        &["PUBLISH", "c", "m"],
        &["OBJECT", "ENCODING", "k"],
        &["EVAL", "return 1", "0"],
        &["EVAL_RO", "return 1", "0"],
        &["DBSIZE"],
    ] {
        assert!(!allowed(refused), "{refused:?} allowed");
    }
}
