//! Tests of the event generator: determinism, time order, fields and their skew.

use std::collections::HashMap;
use std::net::Ipv4Addr;

use serde_json::Value;

use super::*;

const START: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

fn doc(generator: &EventGenerator, n: u64) -> Value {
    serde_json::to_value(generator.event(n)).unwrap()
}

#[test]
fn same_seed_same_documents_whatever_the_batching() {
    let a = EventGenerator::new(42, START, 1000.0);
    let b = EventGenerator::new(42, START, 1000.0);
    let mut whole = Vec::new();
    a.write_bulk(&mut whole, 0, 300);
    let mut pieces = Vec::new();
    b.write_bulk(&mut pieces, 0, 100);
    b.write_bulk(&mut pieces, 100, 200);
    assert_eq!(whole, pieces);
    let other = EventGenerator::new(43, START, 1000.0);
    let mut different = Vec::new();
    other.write_bulk(&mut different, 0, 300);
    assert_ne!(whole, different);
    let text = String::from_utf8(whole).unwrap();
    assert_eq!(text.lines().count(), 600);
    assert!(text.ends_with('\n'));
    assert!(text.lines().step_by(2).all(|l| l == r#"{"index":{}}"#));
}

#[test]
fn timestamps_never_decrease_and_follow_the_rate() {
    let generator = EventGenerator::new(1, START, 2500.0);
    let mut last = String::new();
    for n in 0..5_000 {
        let ts = generator.event(n).timestamp;
        assert!(ts >= last, "document {n}: {ts} after {last}");
        last = ts;
    }
    assert_eq!(generator.timestamp_ms(2500), START + 1000);
    assert_eq!(generator.event(0).timestamp, "2026-01-01T00:00:00.000Z");
    let slow = EventGenerator::new(1, START, 0.5);
    assert_eq!(slow.timestamp_ms(3), START + 6000);
}

#[test]
fn documents_carry_the_track_fields_with_their_types() {
    let generator = EventGenerator::new(9, START, 1000.0);
    for n in 0..200 {
        let d = doc(&generator, n);
        let s = |path: &str| d.pointer(path).and_then(Value::as_str).map(str::to_owned);
        let int = |path: &str| d.pointer(path).and_then(Value::as_u64);
        let float = |path: &str| d.pointer(path).and_then(Value::as_f64);
        for path in [
            "/@timestamp",
            "/message",
            "/source",
            "/read_timestamp",
            "/fileset/module",
            "/fileset/name",
            "/input/type",
            "/prospector/type",
            "/beat/hostname",
            "/beat/name",
            "/beat/version",
            "/nginx/access/user_name",
            "/nginx/access/method",
            "/nginx/access/url",
            "/nginx/access/http_version",
            "/nginx/access/referrer",
            "/nginx/access/agent",
            "/nginx/access/user_agent/name",
            "/nginx/access/user_agent/major",
            "/nginx/access/user_agent/os",
            "/nginx/access/user_agent/os_name",
            "/nginx/access/user_agent/os_major",
            "/nginx/access/user_agent/device",
            "/nginx/access/geoip/country_iso_code",
            "/nginx/access/geoip/country_name",
            "/nginx/access/geoip/city_name",
            "/nginx/access/geoip/continent_name",
        ] {
            assert!(s(path).is_some(), "document {n} lacks string {path}: {d}");
        }
        for path in [
            "/offset",
            "/nginx/access/response_code",
            "/nginx/access/body_sent/bytes",
        ] {
            assert!(int(path).is_some(), "document {n} lacks integer {path}");
        }
        let lat = float("/nginx/access/geoip/location/lat").unwrap();
        let lon = float("/nginx/access/geoip/location/lon").unwrap();
        assert!((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon));
        let ip = s("/nginx/access/remote_ip").unwrap();
        assert!(ip.parse::<Ipv4Addr>().is_ok(), "{ip}");
        assert_eq!(
            d["nginx"]["access"]["remote_ip_list"][0].as_str(),
            Some(&*ip)
        );
        let message = s("/message").unwrap();
        let url = s("/nginx/access/url").unwrap();
        let code = int("/nginx/access/response_code").unwrap();
        assert!(message.starts_with(&format!("{ip} - - [")), "{message}");
        assert!(message.contains(&format!(" {url} HTTP/")), "{message}");
        assert!(message.contains(&format!("\" {code} ")), "{message}");
        assert!(s("/read_timestamp").unwrap() >= s("/@timestamp").unwrap());
        let host = s("/beat/hostname").unwrap();
        assert!(host.starts_with("web-") && host.ends_with(".elastic.co"));
    }
}

fn shares(values: impl Iterator<Item = String>) -> (Vec<(String, f64)>, usize) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut total = 0;
    for v in values {
        *counts.entry(v).or_default() += 1;
        total += 1;
    }
    let mut sorted: Vec<(String, f64)> = counts
        .into_iter()
        .map(|(k, c)| (k, c as f64 / total as f64))
        .collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    (sorted, total)
}

#[test]
fn value_distributions_are_skewed_as_intended() {
    let generator = EventGenerator::new(3, START, 1000.0);
    let events: Vec<Event> = (0..20_000).map(|n| generator.event(n)).collect();
    let access = || events.iter().map(|e| &e.nginx.access);
    let (codes, _) = shares(access().map(|a| a.response_code.to_string()));
    let share_of = |table: &[(String, f64)], key: &str| {
        table
            .iter()
            .find(|(k, _)| k == key)
            .map_or(0.0, |(_, s)| *s)
    };
    assert_eq!(codes[0].0, "200");
    assert!((share_of(&codes, "200") - 0.82).abs() < 0.02, "{codes:?}");
    assert!((share_of(&codes, "404") - 0.05).abs() < 0.01, "{codes:?}");
    assert!(share_of(&codes, "500") > 0.002, "{codes:?}");

    let (urls, _) = shares(access().map(|a| a.url.to_owned()));
    assert_eq!(urls[0].0, "/");
    assert!(urls[0].1 > 0.15 && urls[0].1 > 2.0 * urls[3].1, "{urls:?}");
    assert!(urls.len() >= 35, "the long tail is drawn too");

    let (countries, _) = shares(access().map(|a| a.geoip.country_iso_code.to_owned()));
    assert_eq!(countries[0].0, "US");
    assert!(countries.len() >= 20);

    let (agents, _) = shares(access().map(|a| a.user_agent.name.to_owned()));
    assert_eq!(agents[0].0, "Chrome");

    let (ips, total) = shares(access().map(|a| a.remote_ip.clone()));
    let top_ten: f64 = ips.iter().take(10).map(|(_, s)| s).sum();
    assert!(top_ten > 0.05, "heavy hitters exist: {top_ten}");
    assert!(ips.len() > total / 4, "and a long tail of clients");

    let not_modified: Vec<_> = access().filter(|a| a.response_code == 304).collect();
    assert!(!not_modified.is_empty());
    assert!(not_modified.iter().all(|a| a.body_sent.bytes == 0));
}
