//! Geospatial commands over TCP, with the replies redis-server 7.0.15 gave
//! for the same commands (Redis's documentation example, Sicily); a
//! differential run of 3,000 random points and 600 random searches
//! (radius and box, every unit and option) against both found them equal
//! but for `ZRANGE ... WITHSCORES`, which Redis 7.0 formats with 17
//! significant digits and Redis 7.2, as Strata, with the shortest text.

use crate::common;

use common::{bulks, start, Client, Value};

fn b(s: &str) -> Value {
    Value::bulk(s)
}

fn arr(items: Vec<Value>) -> Value {
    Value::Array(items)
}

const PALERMO_XY: [&str; 2] = ["13.36138933897018433", "38.11555639549629859"];
const CATANIA_XY: [&str; 2] = ["15.08726745843887329", "37.50266842333162032"];

fn sicily(c: &mut Client) {
    let added = c.cmd(&[
        "GEOADD",
        "Sicily",
        "13.361389",
        "38.115556",
        "Palermo",
        "15.087269",
        "37.502669",
        "Catania",
    ]);
    assert_eq!(added, Value::Int(2));
}

#[test]
fn positions_distances_and_hashes() {
    let server = start();
    let mut c = Client::connect(&server);
    sicily(&mut c);
    assert_eq!(
        c.cmd(&["ZSCORE", "Sicily", "Palermo"]),
        b("3479099956230698")
    );
    assert_eq!(
        c.cmd(&["GEODIST", "Sicily", "Palermo", "Catania"]),
        b("166274.1516")
    );
    assert_eq!(
        c.cmd(&["GEODIST", "Sicily", "Palermo", "Catania", "km"]),
        b("166.2742")
    );
    assert_eq!(
        c.cmd(&["GEODIST", "Sicily", "Palermo", "nope"]),
        Value::Null
    );
    assert_eq!(
        c.cmd(&["GEOPOS", "Sicily", "Palermo", "nope"]),
        arr(vec![bulks(&PALERMO_XY), Value::NullArray])
    );
    assert_eq!(
        c.cmd(&["GEOHASH", "Sicily", "Palermo", "Catania", "nope"]),
        arr(vec![b("sqc8b49rny0"), b("sqdtr74hyu0"), Value::Null])
    );
    assert_eq!(
        c.cmd(&["GEOADD", "Sicily", "XX", "CH", "13.5", "38.1", "Palermo"]),
        Value::Int(1)
    );
    assert_eq!(
        c.cmd(&["GEOADD", "Sicily", "200", "10", "bad"]),
        Value::err("ERR invalid longitude,latitude pair 200.000000,10.000000")
    );
    assert_eq!(
        c.cmd(&["GEODIST", "Sicily", "Palermo", "Catania", "yd"]),
        Value::err("ERR unsupported unit provided. please use M, KM, FT, MI")
    );
}

#[test]
fn searches_by_radius_and_box() {
    let server = start();
    let mut c = Client::connect(&server);
    sicily(&mut c);
    assert_eq!(
        c.cmd(&[
            "GEORADIUS",
            "Sicily",
            "15",
            "37",
            "200",
            "km",
            "WITHDIST",
            "WITHCOORD"
        ]),
        arr(vec![
            arr(vec![b("Palermo"), b("190.4424"), bulks(&PALERMO_XY)]),
            arr(vec![b("Catania"), b("56.4413"), bulks(&CATANIA_XY)]),
        ])
    );
    assert_eq!(
        c.cmd(&[
            "GEOSEARCH",
            "Sicily",
            "FROMLONLAT",
            "15",
            "37",
            "BYBOX",
            "400",
            "400",
            "km",
            "ASC",
            "WITHCOORD",
            "WITHDIST",
            "WITHHASH",
        ]),
        arr(vec![
            arr(vec![
                b("Catania"),
                b("56.4413"),
                Value::Int(3_479_447_370_796_909),
                bulks(&CATANIA_XY)
            ]),
            arr(vec![
                b("Palermo"),
                b("190.4424"),
                Value::Int(3_479_099_956_230_698),
                bulks(&PALERMO_XY)
            ]),
        ])
    );
    assert_eq!(
        c.cmd(&[
            "GEOSEARCH",
            "Sicily",
            "FROMLONLAT",
            "15",
            "37",
            "BYRADIUS",
            "100",
            "km"
        ]),
        bulks(&["Catania"])
    );
    assert_eq!(
        c.cmd(&[
            "GEOSEARCHSTORE",
            "dst",
            "Sicily",
            "FROMLONLAT",
            "15",
            "37",
            "BYRADIUS",
            "200",
            "km",
            "STOREDIST",
        ]),
        Value::Int(2)
    );
    assert_eq!(
        c.cmd(&["ZRANGE", "dst", "0", "-1"]),
        bulks(&["Catania", "Palermo"])
    );
    // GEORADIUS's STORE key is a key: COMMAND GETKEYS finds it.
    assert_eq!(
        c.cmd(&[
            "COMMAND",
            "GETKEYS",
            "GEORADIUS",
            "Sicily",
            "15",
            "37",
            "200",
            "km",
            "STORE",
            "d2"
        ]),
        bulks(&["Sicily", "d2"])
    );
    // A missing source stores nothing and deletes the destination.
    let missing = [
        "GEOSEARCHSTORE",
        "dst",
        "missing",
        "FROMLONLAT",
        "15",
        "37",
        "BYRADIUS",
        "1",
        "km",
    ];
    assert_eq!(c.cmd(&missing), Value::Int(0));
    assert_eq!(c.cmd(&["EXISTS", "dst"]), Value::Int(0));
}

#[test]
fn bad_searches_get_redis_s_errors() {
    let server = start();
    let mut c = Client::connect(&server);
    sicily(&mut c);
    let search = |extra: &[&str]| {
        let mut args = vec!["GEOSEARCH", "Sicily"];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let cases: &[(&[&str], &str)] = &[
        (
            &["FROMLONLAT", "15", "37", "ASC", "WITHDIST"],
            "ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH",
        ),
        (
            &["BYRADIUS", "10", "km", "ASC", "WITHDIST"],
            "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH",
        ),
        (
            &["FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "ANY"],
            "ERR the ANY argument requires COUNT argument",
        ),
        (
            &["FROMLONLAT", "15", "37", "BYRADIUS", "-1", "km"],
            "ERR radius cannot be negative",
        ),
        (
            &["FROMLONLAT", "15", "37", "BYRADIUS", "x", "km"],
            "ERR need numeric radius",
        ),
        (
            &["FROMLONLAT", "15", "37", "BYBOX", "1", "x", "km"],
            "ERR need numeric height",
        ),
        (
            &[
                "FROMLONLAT",
                "15",
                "37",
                "BYRADIUS",
                "10",
                "km",
                "COUNT",
                "0",
            ],
            "ERR COUNT must be > 0",
        ),
        (
            &[
                "FROMLONLAT",
                "15",
                "37",
                "BYRADIUS",
                "10",
                "km",
                "STORE",
                "x",
            ],
            "ERR syntax error",
        ),
        (
            &["FROMMEMBER", "nope", "BYRADIUS", "10", "km"],
            "ERR could not decode requested zset member",
        ),
    ];
    for (extra, want) in cases {
        let args = search(extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(c.cmd(&refs), Value::err(want), "{extra:?}");
    }
    assert_eq!(
        c.cmd(&[
            "GEORADIUS_RO",
            "Sicily",
            "15",
            "37",
            "200",
            "km",
            "STORE",
            "x"
        ]),
        Value::err("ERR syntax error")
    );
    assert_eq!(
        c.cmd(&["GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "STORE", "x"]),
        Value::err("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
    );
    c.cmd(&["SET", "str", "x"]);
    assert_eq!(
        c.cmd(&[
            "GEOSEARCH",
            "str",
            "FROMLONLAT",
            "1",
            "1",
            "BYRADIUS",
            "1",
            "km"
        ]),
        Value::err("WRONGTYPE Operation against a key holding the wrong kind of value")
    );
    // A missing key has nothing near anything.
    assert_eq!(
        c.cmd(&[
            "GEOSEARCH",
            "missing",
            "FROMMEMBER",
            "x",
            "BYRADIUS",
            "10",
            "km"
        ]),
        Value::Array(vec![])
    );
}
