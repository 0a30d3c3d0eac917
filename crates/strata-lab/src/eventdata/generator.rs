//! The event generator: nginx access-log documents as Filebeat's nginx module ships them,
//! with the fields of Rally's eventdata track, deterministic from a seed.
//!
//! Document `n` of a run is a pure function of the seed and `n`: its random fields come from
//! a generator seeded with both, and its `@timestamp` is `start + n / rate` of simulated time.
//! So the data set does not depend on how many clients index it or in which bulk sizes, and
//! timestamps never decrease in document order (they are equal when several documents share
//! a millisecond).

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::tables::{Tables, UserAgentFields};
use super::timestamp;

const SOURCE: &str = "/usr/local/var/log/nginx/access.log";
const BEAT_VERSION: &str = "6.3.0";

/// One nginx access-log event, serialized as the document indexed.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// When the request was served (ISO 8601, millisecond precision).
    #[serde(rename = "@timestamp")]
    pub timestamp: String,
    /// The raw access-log line.
    pub message: String,
    /// Byte offset of the line in the log file (random, as in Rally's track).
    pub offset: u64,
    /// The log file.
    pub source: &'static str,
    /// When Filebeat read the line (a little after `@timestamp`).
    pub read_timestamp: String,
    /// Filebeat module and fileset.
    pub fileset: Fileset,
    /// Filebeat input.
    pub input: KindOf,
    /// Filebeat prospector (the pre-6.3 name of the input).
    pub prospector: KindOf,
    /// The shipping Filebeat.
    pub beat: Beat,
    /// The parsed access-log fields.
    pub nginx: Nginx,
}

/// `fileset.*`.
#[derive(Debug, Clone, Serialize)]
pub struct Fileset {
    /// Always `nginx`.
    pub module: &'static str,
    /// Always `access`.
    pub name: &'static str,
}

/// `input.type` and `prospector.type`.
#[derive(Debug, Clone, Serialize)]
pub struct KindOf {
    /// Always `log`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// `beat.*`.
#[derive(Debug, Clone, Serialize)]
pub struct Beat {
    /// Web server host name, e.g. `web-EU-1.elastic.co`.
    pub hostname: String,
    /// Same as the host name.
    pub name: String,
    /// Filebeat version.
    pub version: &'static str,
}

/// `nginx.*`.
#[derive(Debug, Clone, Serialize)]
pub struct Nginx {
    /// `nginx.access.*`.
    pub access: Access,
}

/// `nginx.access.*`: the request, the response, the client.
#[derive(Debug, Clone, Serialize)]
pub struct Access {
    /// Client address.
    pub remote_ip: String,
    /// Client addresses (just the one).
    pub remote_ip_list: [String; 1],
    /// Authenticated user, always `-`.
    pub user_name: &'static str,
    /// Request method.
    pub method: &'static str,
    /// Request path.
    pub url: &'static str,
    /// HTTP version, e.g. `1.1`.
    pub http_version: &'static str,
    /// Response status.
    pub response_code: u16,
    /// Response body size.
    pub body_sent: BodySent,
    /// Referrer, `-` when none.
    pub referrer: &'static str,
    /// Raw user agent.
    pub agent: &'static str,
    /// Parsed user agent.
    pub user_agent: UserAgentFields,
    /// GeoIP of the client.
    pub geoip: GeoIp,
}

/// `nginx.access.body_sent`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct BodySent {
    /// Bytes of the response body.
    pub bytes: u64,
}

/// `nginx.access.geoip.*`.
#[derive(Debug, Clone, Serialize)]
pub struct GeoIp {
    /// Continent.
    pub continent_name: &'static str,
    /// City.
    pub city_name: &'static str,
    /// Country.
    pub country_name: &'static str,
    /// ISO country code.
    pub country_iso_code: &'static str,
    /// A `geo_point`.
    pub location: GeoPoint,
}

/// A `geo_point` as an object.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GeoPoint {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
}

/// Generates the documents of a run; cheap to clone and share between clients.
#[derive(Debug, Clone)]
pub struct EventGenerator {
    tables: Arc<Tables>,
    seed: u64,
    start_ms: i64,
    events_per_sec: f64,
}

/// SplitMix64's finalizer: spreads nearby inputs over the whole 64-bit space.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl EventGenerator {
    /// A generator whose document 0 happens at `start_ms` and which simulates
    /// `events_per_sec` events per second of log time. The caller guarantees
    /// `events_per_sec` is positive and finite.
    pub fn new(seed: u64, start_ms: i64, events_per_sec: f64) -> Self {
        Self {
            tables: Arc::new(Tables::new()),
            seed,
            start_ms,
            events_per_sec,
        }
    }

    /// The `@timestamp` of document `doc`, in epoch milliseconds.
    pub fn timestamp_ms(&self, doc: u64) -> i64 {
        self.start_ms + (doc as f64 * 1000.0 / self.events_per_sec).floor() as i64
    }

    /// Document number `doc` of the run.
    pub fn event(&self, doc: u64) -> Event {
        let mut rng = StdRng::seed_from_u64(mix(self.seed ^ mix(doc)));
        let t = &self.tables;
        let ts = self.timestamp_ms(doc);
        let page = *t.pages.sample(&mut rng);
        let method = *t.methods.sample(&mut rng);
        let http_version = *t.http_versions.sample(&mut rng);
        let response_code = *t.response_codes.sample(&mut rng);
        let referrer = *t.referrers.sample(&mut rng);
        let ua = *t.agents.sample(&mut rng);
        let location = *t.locations.sample(&mut rng);
        let bytes = body_bytes(&mut rng, method, response_code, page.bytes);
        let remote_ip = client_ip(&mut rng, location.prefix);
        let hostname = format!(
            "web-{}-{}.elastic.co",
            location.continent_code,
            rng.gen_range(1..=2)
        );
        let mut message = String::with_capacity(256);
        message.push_str(&remote_ip);
        message.push_str(" - - [");
        timestamp::write_nginx(&mut message, ts);
        message.push_str("] \"");
        for part in [method, " ", page.url, " HTTP/", http_version, "\" "] {
            message.push_str(part);
        }
        message.push_str(&format!(
            "{response_code} {bytes} \"{referrer}\" \"{}\"",
            ua.agent
        ));
        Event {
            timestamp: timestamp::iso(ts),
            message,
            offset: rng.gen_range(0..10_000_000),
            source: SOURCE,
            read_timestamp: timestamp::iso(ts + rng.gen_range(5..2_000)),
            fileset: Fileset {
                module: "nginx",
                name: "access",
            },
            input: KindOf { kind: "log" },
            prospector: KindOf { kind: "log" },
            beat: Beat {
                name: hostname.clone(),
                hostname,
                version: BEAT_VERSION,
            },
            nginx: Nginx {
                access: Access {
                    remote_ip_list: [remote_ip.clone()],
                    remote_ip,
                    user_name: "-",
                    method,
                    url: page.url,
                    http_version,
                    response_code,
                    body_sent: BodySent { bytes },
                    referrer,
                    agent: ua.agent,
                    user_agent: ua.parsed,
                    geoip: GeoIp {
                        continent_name: location.continent,
                        city_name: location.city,
                        country_name: location.country,
                        country_iso_code: location.iso,
                        location: GeoPoint {
                            lat: location.lat,
                            lon: location.lon,
                        },
                    },
                },
            },
        }
    }

    /// Appends the `_bulk` body indexing documents `first .. first + count`: an
    /// `{"index":{}}` action line and the document's JSON line for each, each line ending
    /// in a newline (the request goes to `/<index>/_bulk`).
    pub fn write_bulk(&self, out: &mut Vec<u8>, first: u64, count: u64) {
        for doc in first..first + count {
            out.extend_from_slice(b"{\"index\":{}}\n");
            // Serializing these plain structs into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, &self.event(doc));
            out.push(b'\n');
        }
    }
}

/// Body size for a response: near the page's size for a 200, a fixed error page otherwise.
fn body_bytes(rng: &mut StdRng, method: &str, code: u16, page_bytes: u64) -> u64 {
    if method == "HEAD" {
        return 0;
    }
    let jitter = |rng: &mut StdRng, base: u64, spread: f64| {
        (base as f64 * (1.0 - spread + 2.0 * spread * rng.gen::<f64>())) as u64
    };
    match code {
        200 => jitter(rng, page_bytes, 0.1),
        206 => rng.gen_range(1..=page_bytes.max(1)),
        304 => 0,
        301 | 302 => 178,
        404 => jitter(rng, 3_650, 0.02),
        400 | 403 => 166,
        _ => jitter(rng, 537, 0.05),
    }
}

/// A client address in the location's /16: a quarter of the traffic comes from a few heavy
/// hitters (crawlers, offices behind NAT), the rest from addresses skewed to low subnets.
fn client_ip(rng: &mut StdRng, prefix: [u8; 2]) -> String {
    let [a, b] = prefix;
    if rng.gen_bool(0.25) {
        return format!("{a}.{b}.10.{}", rng.gen_range(1..=8));
    }
    let u: f64 = rng.gen();
    let third = (u * u * 256.0) as u8;
    let fourth = rng.gen_range(1..=254u8);
    format!("{a}.{b}.{third}.{fourth}")
}

#[cfg(test)]
#[path = "generator_tests.rs"]
mod tests;
