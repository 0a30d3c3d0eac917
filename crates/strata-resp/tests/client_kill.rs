//! `CLIENT KILL` in both of Redis 7's forms: what each filter matches,
//! `SKIPME`, killing oneself, and the errors for bad filters. A killed
//! connection is closed by the server; the others keep working.

use crate::common;

use common::{Client, Value};

/// This connection's `id` and `addr`, from `CLIENT INFO`.
fn me(c: &mut Client) -> (String, String) {
    let info = c.cmd(&["CLIENT", "INFO"]).text();
    let field = |name: &str| {
        info.split(' ')
            .find_map(|f| f.strip_prefix(&format!("{name}=")).map(str::to_owned))
            .unwrap_or_else(|| panic!("no {name} in {info}"))
    };
    (field("id"), field("addr"))
}

#[test]
fn kills_by_id_address_and_type_and_spares_the_rest() {
    let server = common::start();
    let mut admin = Client::connect(&server);
    let mut by_id = Client::connect(&server);
    let mut by_addr = Client::connect(&server);
    let mut subscriber = Client::connect(&server);
    let mut bystander = Client::connect(&server);
    let (id, _) = me(&mut by_id);
    let (_, addr) = me(&mut by_addr);
    subscriber.cmd(&["SUBSCRIBE", "news"]);

    assert_eq!(admin.cmd(&["CLIENT", "KILL", "ID", &id]), Value::Int(1));
    assert!(by_id.is_closed());
    // The old form: one address, +OK.
    assert_eq!(admin.cmd(&["CLIENT", "KILL", &addr]), Value::ok());
    assert!(by_addr.is_closed());
    assert_eq!(
        admin.cmd(&["CLIENT", "KILL", &addr]),
        Value::err("ERR No such client")
    );
    assert_eq!(
        admin.cmd(&["CLIENT", "KILL", "TYPE", "pubsub"]),
        Value::Int(1)
    );
    assert!(subscriber.is_closed());
    assert_eq!(
        admin.cmd(&["CLIENT", "KILL", "TYPE", "replica"]),
        Value::Int(0)
    );
    assert_eq!(bystander.cmd(&["PING"]), Value::Simple("PONG".into()));
    assert_eq!(admin.cmd(&["PING"]), Value::Simple("PONG".into()));
}

#[test]
fn skipme_and_killing_oneself() {
    let server = common::start();
    let mut admin = Client::connect(&server);
    let mut other = Client::connect(&server);
    let (id, addr) = me(&mut admin);
    // By default the caller is spared: only the other goes.
    assert_eq!(
        admin.cmd(&["CLIENT", "KILL", "USER", "default"]),
        Value::Int(1)
    );
    assert!(other.is_closed());
    assert_eq!(admin.cmd(&["CLIENT", "KILL", "ID", &id]), Value::Int(0));
    assert_eq!(
        admin.cmd(&["CLIENT", "KILL", "ADDR", &addr, "SKIPME", "no"]),
        Value::Int(1)
    );
    assert!(admin.is_closed(), "closed after the reply");
}

#[test]
fn bad_filters_are_refused_as_redis_refuses_them() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let cases: &[(&[&str], &str)] = &[
        (&["ID", "0"], "ERR client-id should be greater than 0"),
        (&["ID", "x"], "ERR client-id should be greater than 0"),
        (&["TYPE", "robot"], "ERR Unknown client type 'robot'"),
        (&["USER", "nobody"], "ERR No such user 'nobody'"),
        (&["SKIPME", "maybe"], "ERR syntax error"),
        (&["COLOUR", "red"], "ERR syntax error"),
        (&["ID", "1", "TYPE"], "ERR syntax error"),
    ];
    for (filters, want) in cases {
        let mut args = vec!["CLIENT", "KILL"];
        args.extend_from_slice(filters);
        assert_eq!(c.cmd(&args), Value::err(want), "{filters:?}");
    }
    assert_eq!(
        c.cmd(&["CLIENT", "KILL"]),
        Value::err("ERR wrong number of arguments for 'client|kill' command")
    );
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
}
