//! Content negotiation: the media types Elasticsearch reads
//! (`application/json`, `application/x-ndjson` and the vendor types
//! `application/vnd.elasticsearch+json; compatible-with=N` and
//! `application/vnd.elasticsearch+x-ndjson; compatible-with=N`) and the
//! type a reply is sent with (the vendor type when the request used it).

use crate::error::{EsError, Result};

/// Compatibility versions accepted in `compatible-with`.
pub const COMPATIBLE_VERSIONS: [u8; 3] = [7, 8, 9];

/// The body format a media type names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON document.
    Json,
    /// Newline-delimited JSON.
    Ndjson,
}

/// A parsed media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediaType {
    /// The body format.
    pub format: Format,
    /// `compatible-with` of a vendor type; `None` for the plain types.
    pub compatible_with: Option<u8>,
}

/// Parses a `Content-Type` value; anything but the JSON family is
/// refused as Elasticsearch does (406), a bad `compatible-with` is a 400.
pub fn parse_content_type(header: &str) -> Result<MediaType> {
    parse(header).unwrap_or_else(|| {
        Err(EsError::UnsupportedMediaType(format!(
            "Content-Type header [{header}] is not supported"
        )))
    })
}

/// The vendor compatibility version an `Accept` header asks for, if any.
/// Unknown or wildcard types are ignored (the reply is plain JSON).
pub fn accept_compatibility(header: &str) -> Result<Option<u8>> {
    for part in header.split(',') {
        if let Some(parsed) = parse(part) {
            return parsed.map(|m| m.compatible_with);
        }
    }
    Ok(None)
}

/// The `Content-Type` of a JSON reply.
pub fn reply_content_type(compatible_with: Option<u8>) -> String {
    match compatible_with {
        Some(n) => format!("application/vnd.elasticsearch+json;compatible-with={n}"),
        None => "application/json".to_string(),
    }
}

/// `None`: not a JSON-family type at all.
fn parse(header: &str) -> Option<Result<MediaType>> {
    let mut parts = header.split(';');
    let essence = parts.next()?.trim().to_ascii_lowercase();
    let (format, vendor) = match essence.as_str() {
        "application/json" => (Format::Json, false),
        "application/x-ndjson" => (Format::Ndjson, false),
        "application/vnd.elasticsearch+json" => (Format::Json, true),
        "application/vnd.elasticsearch+x-ndjson" => (Format::Ndjson, true),
        _ => return None,
    };
    let mut compatible_with = None;
    for param in parts {
        let Some((key, value)) = param.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("compatible-with") {
            let value = value.trim().trim_matches('"');
            match value.parse::<u8>() {
                Ok(n) if COMPATIBLE_VERSIONS.contains(&n) => compatible_with = Some(n),
                _ => {
                    return Some(Err(EsError::MediaTypeHeader(format!(
                        "Invalid media-type value on headers [Content-Type, Accept]: compatible-with [{value}] is not supported"
                    ))))
                }
            }
        }
    }
    if vendor && compatible_with.is_none() {
        return Some(Err(EsError::MediaTypeHeader(format!(
            "Invalid media-type value on headers [Content-Type, Accept]: [{header}] needs a compatible-with parameter"
        ))));
    }
    Some(Ok(MediaType {
        format,
        compatible_with,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_family_is_accepted() {
        let plain = parse_content_type("application/json; charset=UTF-8").unwrap();
        assert_eq!((plain.format, plain.compatible_with), (Format::Json, None));
        let vendor =
            parse_content_type("application/vnd.elasticsearch+json; compatible-with=9").unwrap();
        assert_eq!(vendor.compatible_with, Some(9));
        let nd = parse_content_type("application/vnd.elasticsearch+x-ndjson; compatible-with=8")
            .unwrap();
        assert_eq!(nd.format, Format::Ndjson);
    }

    #[test]
    fn others_are_refused() {
        assert_eq!(parse_content_type("text/plain").unwrap_err().status(), 406);
        assert_eq!(
            parse_content_type("application/vnd.elasticsearch+json; compatible-with=5")
                .unwrap_err()
                .status(),
            400
        );
        assert_eq!(accept_compatibility("*/*").unwrap(), None);
        assert_eq!(
            accept_compatibility("application/vnd.elasticsearch+json; compatible-with=8").unwrap(),
            Some(8)
        );
    }
}
