//! The lookup tables behind generated events: requested URLs, referrers, user agents,
//! client locations, response codes, methods and HTTP versions, with skewed weights.
//!
//! Rally's track samples gzip'd tables taken from real elastic.co logs; these are smaller
//! hand-made tables with the same shape: a few URLs, agents and countries take most of the
//! traffic (rank-based Zipf weights or explicit shares), a long tail takes the rest.

use serde::Serialize;

use super::weighted::{zipf_weights, Weighted};

/// A requested path and the typical size in bytes of a successful response to it.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    /// The request path.
    pub url: &'static str,
    /// Typical body size of a `200` response.
    pub bytes: u64,
}

/// A browser or client: its `User-Agent` header and what an nginx
/// user-agent parser reports for it.
#[derive(Debug, Clone, Copy)]
pub struct UserAgent {
    /// The raw `User-Agent` header.
    pub agent: &'static str,
    /// The parsed fields.
    pub parsed: UserAgentFields,
}

/// A parsed user agent: `nginx.access.user_agent.*`.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct UserAgentFields {
    /// Browser name.
    pub name: &'static str,
    /// Browser major version.
    pub major: &'static str,
    /// Operating system with version.
    pub os: &'static str,
    /// Operating system name.
    pub os_name: &'static str,
    /// Operating system major version.
    pub os_major: &'static str,
    /// Device family.
    pub device: &'static str,
}

/// Where a client is, as a GeoIP lookup reports it, and the /16 its addresses come from.
#[derive(Debug, Clone, Copy)]
pub struct Location {
    /// City.
    pub city: &'static str,
    /// Country name.
    pub country: &'static str,
    /// ISO 3166 country code.
    pub iso: &'static str,
    /// Continent name.
    pub continent: &'static str,
    /// Two-letter continent code (used in the beat host name).
    pub continent_code: &'static str,
    /// Latitude in degrees.
    pub lat: f64,
    /// Longitude in degrees.
    pub lon: f64,
    /// First two octets of the city's client addresses.
    pub prefix: [u8; 2],
}

const PAGES: &[(&str, u64)] = &[
    ("/", 48_211),
    ("/downloads/elasticsearch", 32_190),
    (
        "/guide/en/elasticsearch/reference/current/index.html",
        61_455,
    ),
    ("/static/css/main.css", 18_322),
    ("/static/js/app.js", 210_877),
    ("/favicon.ico", 1_150),
    ("/guide/en/kibana/current/index.html", 55_102),
    ("/products/elasticsearch", 41_763),
    (
        "/guide/en/elasticsearch/reference/current/search-aggregations.html",
        77_310,
    ),
    ("/blog", 39_882),
    ("/downloads/kibana", 30_544),
    (
        "/guide/en/elasticsearch/reference/current/query-dsl.html",
        69_020,
    ),
    ("/guide/en/logstash/current/index.html", 52_671),
    ("/products/kibana", 38_412),
    ("/guide/en/beats/filebeat/current/index.html", 49_903),
    ("/webinars/getting-started-elasticsearch", 35_228),
    (
        "/guide/en/elasticsearch/reference/current/docs-bulk.html",
        58_117,
    ),
    ("/downloads/logstash", 29_640),
    ("/static/img/logo-elastic.svg", 4_512),
    ("/about", 27_339),
    (
        "/guide/en/elasticsearch/reference/current/mapping.html",
        63_884,
    ),
    ("/blog/a-heap-of-trouble", 44_517),
    ("/downloads/beats/filebeat", 28_025),
    ("/products/beats", 33_190),
    (
        "/guide/en/elasticsearch/reference/current/index-modules-translog.html",
        51_302,
    ),
    ("/contact", 21_776),
    ("/subscriptions", 36_905),
    (
        "/guide/en/elasticsearch/client/python-api/current/index.html",
        42_118,
    ),
    ("/elasticon", 31_447),
    ("/robots.txt", 312),
    ("/guide/en/elasticsearch/reference/current/cat.html", 46_890),
    ("/blog/found-elasticsearch-in-production", 47_003),
    ("/guide/en/elasticsearch/reference/6.3/setup.html", 56_340),
    ("/training", 26_518),
    ("/community/meetups", 24_975),
    (
        "/guide/en/elasticsearch/reference/current/cluster-health.html",
        40_206,
    ),
    ("/wp-login.php", 5_120),
    ("/downloads/past-releases", 88_431),
    ("/careers", 29_354),
    (
        "/guide/en/elasticsearch/reference/current/search-request-sort.html",
        50_777,
    ),
];

const REFERRERS: &[(&str, f64)] = &[
    ("-", 40.0),
    ("https://www.elastic.co/", 12.0),
    ("https://www.google.com/", 11.0),
    (
        "https://www.elastic.co/guide/en/elasticsearch/reference/current/index.html",
        8.0,
    ),
    ("https://www.elastic.co/downloads", 5.0),
    ("https://www.bing.com/", 3.0),
    (
        "https://stackoverflow.com/questions/tagged/elasticsearch",
        3.0,
    ),
    ("https://github.com/elastic/elasticsearch", 2.5),
    ("https://www.elastic.co/blog", 2.5),
    ("https://duckduckgo.com/", 1.5),
    ("https://news.ycombinator.com/", 1.0),
    ("https://www.baidu.com/", 1.0),
    ("https://discuss.elastic.co/", 1.0),
    ("https://t.co/", 0.8),
    ("https://www.reddit.com/r/elasticsearch/", 0.6),
    ("https://www.linkedin.com/", 0.5),
    ("https://www.yandex.ru/", 0.4),
    ("http://localhost:5601/app/kibana", 0.2),
];

const CHROME_WIN: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/67.0.3396.99 Safari/537.36";
const CHROME_MAC: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_13_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/67.0.3396.99 Safari/537.36";
const FIREFOX_WIN: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:61.0) Gecko/20100101 Firefox/61.0";
const SAFARI_MAC: &str = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_13_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/11.1.1 Safari/605.1.15";
const SAFARI_IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 11_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/11.0 Mobile/15E148 Safari/604.1";
const CHROME_ANDROID: &str = "Mozilla/5.0 (Linux; Android 8.0.0; SM-G960F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/67.0.3396.87 Mobile Safari/537.36";
const FIREFOX_LINUX: &str =
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:61.0) Gecko/20100101 Firefox/61.0";
const EDGE_WIN: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.3029.110 Safari/537.36 Edge/17.17134";
const IE_WIN: &str = "Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko";
const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const CURL: &str = "curl/7.58.0";

#[rustfmt::skip]
type AgentRow = (&'static str, &'static str, &'static str, &'static str, &'static str, &'static str, &'static str, f64);

#[rustfmt::skip]
const AGENTS: &[AgentRow] = &[
    (CHROME_WIN, "Chrome", "67", "Windows 10", "Windows 10", "10", "Other", 31.0),
    (CHROME_MAC, "Chrome", "67", "Mac OS X 10.13.5", "Mac OS X", "10", "Other", 17.0),
    (FIREFOX_WIN, "Firefox", "61", "Windows 10", "Windows 10", "10", "Other", 9.0),
    (SAFARI_MAC, "Safari", "11", "Mac OS X 10.13.5", "Mac OS X", "10", "Other", 7.0),
    (SAFARI_IPHONE, "Mobile Safari", "11", "iOS 11.4", "iOS", "11", "iPhone", 7.0),
    (CHROME_ANDROID, "Chrome Mobile", "67", "Android 8.0.0", "Android", "8", "Samsung SM-G960F", 6.0),
    (GOOGLEBOT, "Googlebot", "2", "Other", "Other", "", "Spider", 6.0),
    (FIREFOX_LINUX, "Firefox", "61", "Ubuntu", "Ubuntu", "", "Other", 4.0),
    (EDGE_WIN, "Edge", "17", "Windows 10", "Windows 10", "10", "Other", 3.5),
    (CURL, "curl", "7", "Other", "Other", "", "Other", 2.5),
    (IE_WIN, "IE", "11", "Windows 7", "Windows 7", "7", "Other", 1.5),
];

#[rustfmt::skip]
type LocationRow = (&'static str, &'static str, &'static str, &'static str, &'static str, f64, f64, [u8; 2], f64);

#[rustfmt::skip]
const LOCATIONS: &[LocationRow] = &[
    ("San Francisco", "United States", "US", "North America", "NA", 37.7749, -122.4194, [104, 28], 14.0),
    ("New York", "United States", "US", "North America", "NA", 40.7128, -74.0060, [72, 229], 10.0),
    ("Ashburn", "United States", "US", "North America", "NA", 39.0438, -77.4874, [54, 86], 7.0),
    ("London", "United Kingdom", "GB", "Europe", "EU", 51.5074, -0.1278, [81, 2], 6.0),
    ("Berlin", "Germany", "DE", "Europe", "EU", 52.5200, 13.4050, [91, 64], 5.5),
    ("Bengaluru", "India", "IN", "Asia", "AS", 12.9716, 77.5946, [49, 205], 5.5),
    ("Beijing", "China", "CN", "Asia", "AS", 39.9042, 116.4074, [123, 112], 5.0),
    ("Paris", "France", "FR", "Europe", "EU", 48.8566, 2.3522, [90, 84], 4.0),
    ("Amsterdam", "Netherlands", "NL", "Europe", "EU", 52.3676, 4.9041, [145, 131], 3.5),
    ("Tokyo", "Japan", "JP", "Asia", "AS", 35.6762, 139.6503, [126, 15], 3.5),
    ("São Paulo", "Brazil", "BR", "South America", "SA", -23.5505, -46.6333, [177, 32], 3.0),
    ("Toronto", "Canada", "CA", "North America", "NA", 43.6532, -79.3832, [99, 231], 3.0),
    ("Moscow", "Russia", "RU", "Europe", "EU", 55.7558, 37.6173, [95, 165], 2.5),
    ("Sydney", "Australia", "AU", "Oceania", "OC", -33.8688, 151.2093, [1, 128], 2.0),
    ("Seoul", "South Korea", "KR", "Asia", "AS", 37.5665, 126.9780, [211, 36], 2.0),
    ("Madrid", "Spain", "ES", "Europe", "EU", 40.4168, -3.7038, [83, 47], 1.5),
    ("Stockholm", "Sweden", "SE", "Europe", "EU", 59.3293, 18.0686, [78, 72], 1.2),
    ("Mexico City", "Mexico", "MX", "North America", "NA", 19.4326, -99.1332, [187, 188], 1.2),
    ("Singapore", "Singapore", "SG", "Asia", "AS", 1.3521, 103.8198, [175, 41], 1.2),
    ("Warsaw", "Poland", "PL", "Europe", "EU", 52.2297, 21.0122, [89, 64], 1.0),
    ("Tel Aviv", "Israel", "IL", "Asia", "AS", 32.0853, 34.7818, [79, 176], 0.8),
    ("Johannesburg", "South Africa", "ZA", "Africa", "AF", -26.2041, 28.0473, [41, 13], 0.6),
    ("Buenos Aires", "Argentina", "AR", "South America", "SA", -34.6037, -58.3816, [181, 46], 0.6),
    ("Lagos", "Nigeria", "NG", "Africa", "AF", 6.5244, 3.3792, [105, 112], 0.4),
    ("Auckland", "New Zealand", "NZ", "Oceania", "OC", -36.8485, 174.7633, [122, 56], 0.3),
];

/// Response codes and their shares: mostly 200, then 304 and 404, a few errors.
pub const RESPONSE_CODES: &[(u16, f64)] = &[
    (200, 82.0),
    (304, 7.5),
    (404, 5.0),
    (301, 1.8),
    (206, 1.2),
    (302, 0.8),
    (500, 0.6),
    (403, 0.5),
    (503, 0.3),
    (400, 0.2),
    (502, 0.1),
];

const METHODS: &[(&str, f64)] = &[
    ("GET", 93.0),
    ("POST", 4.0),
    ("HEAD", 2.5),
    ("OPTIONS", 0.4),
    ("PUT", 0.1),
];

const HTTP_VERSIONS: &[(&str, f64)] = &[("1.1", 80.0), ("2.0", 16.0), ("1.0", 4.0)];

/// All tables of the generator, built once per run and shared by every client.
#[derive(Debug, Clone)]
pub struct Tables {
    /// Requested pages (Zipf over rank, exponent 1.1).
    pub pages: Weighted<Page>,
    /// Referrers.
    pub referrers: Weighted<&'static str>,
    /// User agents.
    pub agents: Weighted<UserAgent>,
    /// Client locations.
    pub locations: Weighted<Location>,
    /// Response codes.
    pub response_codes: Weighted<u16>,
    /// Request methods.
    pub methods: Weighted<&'static str>,
    /// HTTP versions.
    pub http_versions: Weighted<&'static str>,
}

impl Tables {
    /// Builds the tables from the static data.
    pub fn new() -> Self {
        let pages = PAGES.iter().map(|&(url, bytes)| Page { url, bytes });
        let agents =
            AGENTS
                .iter()
                .map(|&(agent, name, major, os, os_name, os_major, device, w)| {
                    let parsed = UserAgentFields {
                        name,
                        major,
                        os,
                        os_name,
                        os_major,
                        device,
                    };
                    let ua = UserAgent { agent, parsed };
                    (ua, w)
                });
        let locations = LOCATIONS.iter().map(
            |&(city, country, iso, continent, code, lat, lon, prefix, w)| {
                let location = Location {
                    city,
                    country,
                    iso,
                    continent,
                    continent_code: code,
                    lat,
                    lon,
                    prefix,
                };
                (location, w)
            },
        );
        Self {
            pages: Weighted::new(pages.zip(zipf_weights(PAGES.len(), 1.1))),
            referrers: Weighted::new(REFERRERS.iter().copied()),
            agents: Weighted::new(agents),
            locations: Weighted::new(locations),
            response_codes: Weighted::new(RESPONSE_CODES.iter().copied()),
            methods: Weighted::new(METHODS.iter().copied()),
            http_versions: Weighted::new(HTTP_VERSIONS.iter().copied()),
        }
    }
}

impl Default for Tables {
    fn default() -> Self {
        Self::new()
    }
}
