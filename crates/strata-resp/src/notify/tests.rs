//! Publishing: channels and messages per setting, nothing for a class
//! that is off, and the engine observer installed only while `expired`
//! or `evicted` can be sent.

use std::borrow::Cow;
use std::sync::Arc;

use bytes::BytesMut;
use strata_kv::{Clock, Keyspace, KeyspaceConfig, ManualClock, NewItem, Store};
use strata_service::Clients;

use super::flags::{parse, GENERIC};
use super::{publish, Notifier};
use crate::pubsub::{Hub, Mailbox};

fn subscriber(hub: &Hub, clients: &Clients) -> Arc<Mailbox> {
    let addr = "127.0.0.1:7000".parse().expect("addr");
    let mailbox = Arc::new(Mailbox::new(clients.register(addr, addr)));
    hub.add(crate::pubsub::Kind::Pattern, b"__key*__:*", &mailbox);
    mailbox
}

fn taken(mailbox: &Mailbox) -> String {
    let mut out = BytesMut::new();
    mailbox.take_into(&mut out);
    String::from_utf8_lossy(&out).replace("\r\n", " ")
}

fn flags(text: &str) -> u32 {
    parse(text.as_bytes()).unwrap_or_else(|| panic!("{text}"))
}

#[test]
fn channels_follow_the_setting() {
    let (hub, clients) = (Hub::default(), Clients::default());
    let sub = subscriber(&hub, &clients);
    publish(&hub, flags("Kg"), GENERIC, "del", b"k1");
    let keyspace = taken(&sub);
    assert!(keyspace.contains("__keyspace@0__:k1 $3 del"), "{keyspace}");
    assert!(!keyspace.contains("__keyevent"), "{keyspace}");
    publish(&hub, flags("Eg"), GENERIC, "del", b"k2");
    let keyevent = taken(&sub);
    assert!(keyevent.contains("__keyevent@0__:del $2 k2"), "{keyevent}");
    assert!(!keyevent.contains("__keyspace"), "{keyevent}");
    // Keyspace first, then keyevent.
    publish(&hub, flags("KEA"), GENERIC, "del", b"k3");
    let both = taken(&sub);
    let (ks, ke) = (both.find("__keyspace"), both.find("__keyevent"));
    assert!(ks.is_some() && ks < ke, "{both}");
    // A class that is off, or neither K nor E: nothing.
    publish(&hub, flags("KE$"), GENERIC, "del", b"k4");
    publish(&hub, flags("g"), GENERIC, "del", b"k5");
    assert_eq!(taken(&sub), "");
}

#[test]
fn the_engine_observer_follows_expired_and_evicted() {
    let clock = Arc::new(ManualClock::new(1_000));
    let keyspace = Keyspace::new(KeyspaceConfig::default(), clock.clone());
    let (hub, clients) = (Arc::new(Hub::default()), Clients::default());
    let sub = subscriber(&hub, &clients);
    let notifier = Notifier::default();
    let expiring = |key: &[u8]| {
        let item = NewItem {
            value: Cow::Borrowed(&b"v"[..]),
            flags: 0,
            expires_at: Some(clock.now_ms() + 100),
        };
        keyspace.store().set(key, item).expect("set");
    };
    // `x` without K or E: no observer, nothing sent.
    notifier.set(flags("x"), &keyspace, &hub);
    expiring(b"a");
    clock.advance_ms(200);
    keyspace.run_maintenance();
    assert_eq!(taken(&sub), "");
    notifier.set(flags("Ex"), &keyspace, &hub);
    expiring(b"b");
    clock.advance_ms(200);
    keyspace.run_maintenance();
    assert!(taken(&sub).contains("__keyevent@0__:expired $1 b"));
    notifier.set(0, &keyspace, &hub);
    expiring(b"c");
    clock.advance_ms(200);
    keyspace.run_maintenance();
    assert_eq!(taken(&sub), "");
    assert_eq!(notifier.flags(), 0);
}
