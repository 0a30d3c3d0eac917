//! Rule semantics checked against what Redis 7 answers for the same rules
//! (descriptions as `ACL LIST` prints them, errors as `ACL SETUSER` does).

use super::*;
use crate::acl::command_set::id_of;

fn user_with(rules: &[&str]) -> User {
    let mut user = User::new(b"u", 1);
    apply_all(&mut user, rules.iter().map(|r| r.as_bytes())).expect("rules apply");
    user
}

fn described(rules: &[&str]) -> String {
    String::from_utf8(user_with(rules).describe()).unwrap()
}

fn refused(rules: &[&str]) -> String {
    let mut user = User::new(b"u", 1);
    apply_all(&mut user, rules.iter().map(|r| r.as_bytes()))
        .expect_err("a rule fails")
        .to_string()
}

fn allows(user: &User, name: &str) -> bool {
    let spec = command_set::by_name(name).unwrap();
    user.commands.contains(id_of(spec).unwrap())
}

#[test]
fn descriptions_match_redis() {
    assert_eq!(
        described(&["on", ">pw", "~cache:*", "+@read", "+set", "%R~r:*", "&chan"]),
        "user u on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 \
         ~cache:* %R~r:* resetchannels &chan -@all +@read +set"
    );
    assert_eq!(
        described(&["+config|get"]),
        "user u off resetchannels -@all +config|get"
    );
    assert_eq!(
        described(&["ON", "AllKeys", "+GET", "+@READ"]),
        "user u on ~* resetchannels -@all +get +@read"
    );
    assert_eq!(
        described(&["%R~a", "%W~a", "~b", "%R~b", "%W~c"]),
        "user u off ~a ~b %W~c resetchannels -@all"
    );
    assert_eq!(
        described(&["+config", "-config|set"]),
        "user u off resetchannels -@all +config -config|set"
    );
}

#[test]
fn command_rules_keep_one_entry_per_name() {
    assert_eq!(
        described(&["+@all", "-@dangerous", "+@all", "-get", "+@read"]),
        "user u off resetchannels +@all -get +@read"
    );
    assert_eq!(
        described(&["-@all", "+get", "-get", "+@read", "-@read"]),
        "user u off resetchannels -@all -get -@read"
    );
    assert_eq!(
        described(&["allcommands", "nocommands"]),
        "user u off resetchannels -@all"
    );
}

#[test]
fn commands_and_categories() {
    let user = user_with(&["+@read", "-strlen", "+set"]);
    assert!(allows(&user, "get") && allows(&user, "mget") && allows(&user, "set"));
    assert!(!allows(&user, "strlen") && !allows(&user, "del"));
    assert!(!user.all_commands);

    let all_but = user_with(&["+@all", "-@dangerous", "+flushdb"]);
    assert!(allows(&all_but, "get") && allows(&all_but, "flushdb"));
    assert!(!allows(&all_but, "flushall") && !allows(&all_but, "keys"));
    assert!(!allows(&all_but, "config|set") && !allows(&all_but, "acl|setuser"));
    assert!(
        allows(&all_but, "acl|whoami"),
        "acl|whoami is not @dangerous"
    );
    assert!(!all_but.all_commands && all_but.from_all_commands);

    let config = user_with(&["+config", "-config|set"]);
    assert!(allows(&config, "config|get") && !allows(&config, "config|set"));
    let everything = user_with(&["allcommands"]);
    assert!(everything.all_commands && allows(&everything, "acl|setuser"));
}

#[test]
fn passwords() {
    let user = user_with(&[">a", ">a", ">b", "<a"]);
    assert_eq!(user.passwords, vec![PasswordHash::of(b"b")]);
    let user = user_with(&[">p1", "nopass", ">p3"]);
    assert!(!user.nopass);
    assert_eq!(user.passwords, vec![PasswordHash::of(b"p3")]);
    let hash = PasswordHash::of(b"x").to_hex();
    let user = user_with(&["on", &format!("#{hash}")]);
    assert!(user.accepts(b"x") && !user.accepts(b"y"));
    let user = user_with(&["on", &format!("#{hash}"), &format!("!{hash}")]);
    assert!(user.passwords.is_empty() && !user.accepts(b"x"));
    assert!(user_with(&["on", "nopass"]).accepts(b"whatever"));
    assert!(!user_with(&["off", "nopass"]).accepts(b"whatever"));
    let user = user_with(&[">a", "resetpass"]);
    assert!(user.passwords.is_empty() && !user.nopass);
}

#[test]
fn errors_match_redis() {
    assert_eq!(
        refused(&["+nonexist"]),
        "Error in ACL SETUSER modifier '+nonexist': Unknown command or category name in ACL"
    );
    assert_eq!(
        refused(&["+client|nope"]),
        "Error in ACL SETUSER modifier '+client|nope': Unknown command or category name in ACL"
    );
    assert_eq!(
        refused(&["#abc"]),
        "Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 characters \
         and contain only lowercase hexadecimal characters"
    );
    assert_eq!(
        refused(&["<nop"]),
        "Error in ACL SETUSER modifier '<nop': The password you are trying to remove from the \
         user does not exist"
    );
    assert_eq!(
        refused(&["foo"]),
        "Error in ACL SETUSER modifier 'foo': Syntax error"
    );
    assert_eq!(
        refused(&["allkeys", "~x"]),
        "Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or the \
         'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start \
         with an empty list of patterns"
    );
    assert_eq!(
        refused(&["allchannels", "&x"]),
        "Error in ACL SETUSER modifier '&x': Adding a pattern after the * pattern (or the \
         'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to \
         start with an empty list of channels"
    );
    for bad in [
        "%~x",
        "%X~x",
        "%R",
        "%RR~x",
        "+@nosuch",
        "+",
        "(+get ~x)",
        "+get|x",
    ] {
        assert!(
            apply(&mut User::new(b"u", 1), bad.as_bytes()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn empty_rules_and_reset() {
    assert_eq!(described(&["", "on", ""]), "user u on resetchannels -@all");
    assert_eq!(
        described(&["on", ">x", "~*", "&*", "+@all", "reset"]),
        "user u off sanitize-payload resetchannels -@all"
    );
    assert_eq!(
        described(&["~a", "resetkeys", "~b"]),
        "user u off ~b resetchannels -@all"
    );
    assert_eq!(
        described(&["~a", "allkeys"]),
        "user u off ~* resetchannels -@all"
    );
    assert_eq!(
        described(&["&a", "&a", "&b"]),
        "user u off resetchannels &a &b -@all"
    );
    assert_eq!(
        described(&["sanitize-payload"]),
        "user u off sanitize-payload resetchannels -@all"
    );
}

mod model {
    //! `ACL LIST`'s description is what `ACL SAVE` writes and `ACL LOAD`
    //! reads back: applied to a fresh user it must rebuild the same
    //! permissions, whatever rules built the original.

    use proptest::prelude::*;

    use super::*;

    fn rule() -> impl Strategy<Value = String> {
        let words = prop::sample::select(vec![
            "on",
            "off",
            "nopass",
            "resetpass",
            ">a",
            ">b",
            "<a",
            "allkeys",
            "resetkeys",
            "~k*",
            "~x",
            "%R~r*",
            "%W~w*",
            "%RW~x",
            "allchannels",
            "resetchannels",
            "&c*",
            "allcommands",
            "nocommands",
            "+@read",
            "-@read",
            "+@write",
            "-@string",
            "+@dangerous",
            "-@dangerous",
            "+get",
            "-get",
            "+set",
            "-del",
            "+config",
            "-config|set",
            "+config|get",
            "+acl|whoami",
            "reset",
            "sanitize-payload",
        ]);
        words.prop_map(str::to_string)
    }

    fn build(rules: &[String]) -> User {
        let mut user = User::new(b"u", 1);
        for rule in rules {
            // Rules that fail (a pattern after allkeys, removing a missing
            // password) change nothing, as in ACL SETUSER.
            let mut copy = user.clone();
            if apply(&mut copy, rule.as_bytes()).is_ok() {
                user = copy;
            }
        }
        user
    }

    proptest! {
        #[test]
        fn descriptions_rebuild_the_same_user(rules in prop::collection::vec(rule(), 0..24)) {
            let user = build(&rules);
            let text = String::from_utf8(user.describe()).unwrap();
            let mut words = text.split(' ');
            prop_assert_eq!(words.next(), Some("user"));
            prop_assert_eq!(words.next(), Some("u"));
            let mut rebuilt = User::new(b"u", 1);
            apply_all(&mut rebuilt, words.map(str::as_bytes)).expect("a description applies");
            prop_assert_eq!(rebuilt.describe(), user.describe());
            prop_assert_eq!(rebuilt.commands, user.commands);
            prop_assert_eq!(&rebuilt.keys, &user.keys);
            prop_assert_eq!(rebuilt.all_keys, user.all_keys);
            prop_assert_eq!(&rebuilt.passwords, &user.passwords);
            prop_assert_eq!((rebuilt.enabled, rebuilt.nopass), (user.enabled, user.nopass));
        }
    }
}
