//! Tests of the dashboards' searches and windows.

use serde_json::Value;

use super::*;

const HOUR: i64 = 3_600_000;

fn scope(gte_ms: i64, lte_ms: i64) -> SearchScope<'static> {
    SearchScope {
        index: "elasticlogs",
        gte_ms,
        lte_ms,
        time_zone: "Europe/London",
        preference: 7,
    }
}

#[test]
fn windows_end_at_the_newest_document() {
    let (oldest, newest) = (10 * HOUR, 20 * HOUR);
    assert_eq!(
        Window::CurrentMinutes(15).range(oldest, newest),
        (newest - HOUR / 4, newest)
    );
    assert_eq!(
        Window::RelativePercent(50).range(oldest, newest),
        (15 * HOUR, newest)
    );
    assert_eq!(
        Window::RelativePercent(75).range(oldest, newest).0,
        oldest + HOUR * 5 / 2
    );
    // An empty index: a zero-length relative window, not a negative one.
    assert_eq!(
        Window::RelativePercent(25).range(newest, newest),
        (newest, newest)
    );
    let labels: Vec<String> = Window::ALL.iter().map(|w| w.label()).collect();
    assert_eq!(
        labels,
        [
            "current-15m",
            "current-30m",
            "current-60m",
            "relative-25%",
            "relative-50%",
            "relative-75%"
        ]
    );
    assert_eq!(
        Window::ALL
            .iter()
            .filter(|w| w.kind() == WindowKind::Current)
            .count(),
        3
    );
}

#[test]
fn histogram_intervals_give_50_to_100_buckets() {
    assert_eq!(histogram_interval(24 * HOUR), "30m");
    assert_eq!(histogram_interval(HOUR / 4), "10s");
    assert_eq!(histogram_interval(HOUR), "1m");
    assert_eq!(histogram_interval(10), "1s");
    assert_eq!(histogram_interval(1000 * 24 * HOUR), "1d");
    for minutes in [1, 15, 30, 60, 90, 600, 1440] {
        let window = minutes * 60_000;
        let interval = histogram_interval(window);
        let secs: i64 = match interval.split_at(interval.len() - 1) {
            (n, "s") => n.parse().unwrap(),
            (n, "m") => n.parse::<i64>().unwrap() * 60,
            (n, "h") => n.parse::<i64>().unwrap() * 3600,
            (n, _) => n.parse::<i64>().unwrap() * 86_400,
        };
        let buckets = window / 1000 / secs;
        assert!(
            (10..=100).contains(&buckets),
            "{minutes} min -> {interval}: {buckets}"
        );
    }
}

fn lines(body: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(body).unwrap();
    assert!(text.ends_with('\n'));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn msearch_bodies_pair_headers_and_searches() {
    for (dashboard, expected) in [
        (Dashboard::Traffic, 8),
        (Dashboard::ContentIssues, 5),
        (Dashboard::Discover, 1),
    ] {
        let (body, searches) = msearch_body(dashboard, &scope(HOUR, 2 * HOUR));
        assert_eq!(searches, expected, "{}", dashboard.name());
        let lines = lines(&body);
        assert_eq!(lines.len(), 2 * expected);
        for pair in lines.chunks(2) {
            assert_eq!(pair[0]["index"], "elasticlogs");
            assert_eq!(pair[0]["request_cache"], false);
            let must = pair[1]["query"]["bool"]["must"].as_array().unwrap();
            let range = &must.last().unwrap()["range"]["@timestamp"];
            assert_eq!(
                (range["gte"].as_i64(), range["lte"].as_i64()),
                (Some(HOUR), Some(2 * HOUR))
            );
            assert_eq!(range["format"], "epoch_millis");
        }
    }
}

#[test]
fn dashboards_ask_what_the_track_asks() {
    let traffic = searches(Dashboard::Traffic, &scope(0, HOUR));
    let text = serde_json::to_string(&traffic).unwrap();
    for needle in [
        "geohash_grid",
        "geo_centroid",
        "geo_bounding_box",
        "\"filters\"",
        "nginx.access.url",
        "\"sum\"",
        "nginx.access.user_agent.major",
        "nginx.access.user_agent.os_name",
        "nginx.access.geoip.country_name",
        "percentiles",
        "[400 TO 600]",
    ] {
        assert!(text.contains(needle), "traffic lacks {needle}");
    }
    assert!(traffic.iter().all(|s| s["size"] == 0));
    assert_eq!(
        traffic[1]["aggs"]["2"]["date_histogram"]["fixed_interval"],
        "1m"
    );
    assert_eq!(
        traffic[1]["aggs"]["2"]["date_histogram"]["time_zone"],
        "Europe/London"
    );

    let issues = searches(Dashboard::ContentIssues, &scope(0, HOUR));
    for search in &issues {
        let must = search["query"]["bool"]["must"].as_array().unwrap();
        let only_404 = must
            .iter()
            .any(|m| m["match_phrase"]["nginx.access.response_code"]["query"] == 404);
        assert!(
            only_404,
            "every content_issues search is about 404s: {search}"
        );
    }
    let fields: Vec<&str> = issues
        .iter()
        .filter_map(|s| s["aggs"]["2"]["terms"]["field"].as_str())
        .collect();
    assert_eq!(
        fields,
        [
            "nginx.access.remote_ip",
            "nginx.access.url",
            "nginx.access.referrer"
        ]
    );

    let discover = &searches(Dashboard::Discover, &scope(0, HOUR))[0];
    assert_eq!(discover["size"], 500);
    assert_eq!(discover["sort"][0]["@timestamp"]["order"], "desc");
    assert!(discover["aggs"]["2"]["date_histogram"].is_object());
}
