//! The body of `PUT /<index>`: the track's settings and its mapping of the nginx access-log
//! documents (keywords with `ignore_above: 1024`, `text` without norms for `message` and
//! `agent`, `ip`, `geo_point`, `long` counters, `date` timestamps).

use serde_json::{json, Value};

use super::args::EventdataArgs;

/// A `keyword` field as the track maps strings.
fn keyword() -> Value {
    json!({ "type": "keyword", "ignore_above": 1024 })
}

/// Keyword properties for each name.
fn keywords(names: &[&str]) -> Value {
    Value::Object(names.iter().map(|n| ((*n).to_owned(), keyword())).collect())
}

/// The index settings from the arguments: shards, no replicas, refresh interval and
/// translog durability.
pub fn settings(args: &EventdataArgs) -> Value {
    json!({
        "index": {
            "number_of_shards": args.shards,
            "number_of_replicas": 0,
            "refresh_interval": args.refresh_interval,
            "translog": { "durability": args.durability.name() }
        }
    })
}

/// The mapping of the eventdata documents.
pub fn mappings() -> Value {
    let text = json!({ "type": "text", "norms": false });
    json!({
        "dynamic": true,
        "date_detection": false,
        "dynamic_templates": [{
            "strings_as_keyword": {
                "match_mapping_type": "string",
                "mapping": { "type": "keyword", "ignore_above": 1024 }
            }
        }],
        "properties": {
            "@timestamp": { "type": "date" },
            "message": text,
            "offset": { "type": "long" },
            "source": keyword(),
            "read_timestamp": keyword(),
            "fileset": { "properties": keywords(&["module", "name"]) },
            "input": { "properties": keywords(&["type"]) },
            "prospector": { "properties": keywords(&["type"]) },
            "beat": { "properties": keywords(&["hostname", "name", "version"]) },
            "nginx": { "properties": { "access": { "properties": {
                "remote_ip": { "type": "ip" },
                "remote_ip_list": { "type": "ip" },
                "user_name": keyword(),
                "method": keyword(),
                "url": keyword(),
                "http_version": keyword(),
                "response_code": { "type": "long" },
                "body_sent": { "properties": { "bytes": { "type": "long" } } },
                "referrer": keyword(),
                "agent": text,
                "user_agent": { "properties":
                    keywords(&["name", "major", "os", "os_name", "os_major", "device"]) },
                "geoip": { "properties": {
                    "continent_name": keyword(),
                    "city_name": keyword(),
                    "country_name": keyword(),
                    "country_iso_code": keyword(),
                    "location": { "type": "geo_point" }
                } }
            } } } }
        }
    })
}

/// The whole `PUT /<index>` body.
pub fn create_index_body(args: &EventdataArgs) -> Value {
    json!({ "settings": settings(args), "mappings": mappings() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eventdata::generator::EventGenerator;

    /// Every leaf of a generated document has a mapping (no field is left to dynamic mapping).
    #[test]
    fn every_document_field_is_mapped() {
        fn leaves(prefix: &str, v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(map) if !prefix.ends_with("location") => {
                    for (k, child) in map {
                        let path = if prefix.is_empty() {
                            k.clone()
                        } else {
                            format!("{prefix}.{k}")
                        };
                        leaves(&path, child, out);
                    }
                }
                _ => out.push(prefix.to_owned()),
            }
        }
        let doc = serde_json::to_value(EventGenerator::new(1, 0, 1.0).event(0)).unwrap();
        let mut paths = Vec::new();
        leaves("", &doc, &mut paths);
        let mapping = mappings();
        for path in paths {
            let mut at = &mapping;
            for part in path.split('.') {
                at = &at["properties"][part];
            }
            assert!(at["type"].is_string(), "{path} is not mapped");
        }
        assert_eq!(
            mapping["properties"]["nginx"]["properties"]["access"]["properties"]["geoip"]
                ["properties"]["location"]["type"],
            "geo_point"
        );
    }

    #[test]
    fn settings_follow_the_arguments() {
        let args =
            EventdataArgs::try_parse_from(["--shards", "3", "--durability", "async"]).unwrap();
        let body = create_index_body(&args);
        let index = &body["settings"]["index"];
        assert_eq!(index["number_of_shards"], 3);
        assert_eq!(index["number_of_replicas"], 0);
        assert_eq!(index["refresh_interval"], "1s");
        assert_eq!(index["translog"]["durability"], "async");
    }
}
