//! Date values: parsing with Elasticsearch date formats into epoch
//! milliseconds (UTC), and formatting milliseconds as ISO 8601 or with a
//! format's first pattern (`date_format.rs`).
//!
//! Supported formats: `strict_date_optional_time`, `date_optional_time`,
//! `strict_date_time`, `date`/`strict_date`, `epoch_millis`,
//! `epoch_second`, Java-style patterns built from `yyyy MM dd HH mm ss SSS`
//! and literal characters, and `||`-separated lists of these (tried in order).

use crate::error::{Result, SearchError};

/// The default format of a `date` field.
pub const DEFAULT_DATE_FORMAT: &str = "strict_date_optional_time||epoch_millis";

/// A parsed `format` parameter: alternatives tried in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateFormat {
    text: String,
    alternatives: Vec<Alternative>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Alternative {
    Iso,
    EpochMillis,
    EpochSecond,
    Pattern(Vec<PatternPart>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PatternPart {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Millis,
    Literal(char),
}

impl DateFormat {
    /// Parses a `format` string; unknown named formats are an error.
    pub(crate) fn parse(text: &str) -> Result<DateFormat> {
        let mut alternatives = Vec::new();
        for part in text.split("||") {
            let part = part.trim();
            let alt = match part {
                "strict_date_optional_time"
                | "date_optional_time"
                | "strict_date_time"
                | "date_time"
                | "strict_date"
                | "date"
                | "strict_date_optional_time_nanos" => Alternative::Iso,
                "epoch_millis" => Alternative::EpochMillis,
                "epoch_second" => Alternative::EpochSecond,
                pattern => Alternative::Pattern(parse_pattern(pattern)?),
            };
            alternatives.push(alt);
        }
        Ok(DateFormat {
            text: text.to_string(),
            alternatives,
        })
    }

    /// A request's `format` (a sort's, an aggregation's): a bad pattern
    /// is the request's error (`illegal_argument_exception`, as
    /// Elasticsearch's formatter reports it), not a mapping's.
    pub(crate) fn from_request(text: &str) -> Result<DateFormat> {
        DateFormat::parse(text).map_err(|e| match e {
            SearchError::MapperParsing(message) => SearchError::illegal(message),
            other => other,
        })
    }

    /// [`DEFAULT_DATE_FORMAT`], parsed once per process.
    pub(crate) fn default_format() -> &'static DateFormat {
        static DEFAULT: std::sync::LazyLock<DateFormat> = std::sync::LazyLock::new(|| {
            DateFormat::parse(DEFAULT_DATE_FORMAT).expect("the default format parses")
        });
        &DEFAULT
    }

    /// The format as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// Epoch milliseconds of a JSON value (string or number).
    pub(crate) fn parse_value(&self, value: &serde_json::Value) -> Result<i64> {
        match value {
            serde_json::Value::String(s) => self.parse_str(s),
            serde_json::Value::Number(n) => {
                let millis = n.as_i64().or_else(|| n.as_f64().map(|f| f as i64));
                let millis = millis.ok_or_else(|| bad_date(&n.to_string(), &self.text))?;
                if self.alternatives.contains(&Alternative::EpochSecond)
                    && !self.alternatives.contains(&Alternative::EpochMillis)
                {
                    return Ok(millis.saturating_mul(1000));
                }
                Ok(millis)
            }
            other => Err(bad_date(&other.to_string(), &self.text)),
        }
    }

    /// Epoch milliseconds of a string.
    pub(crate) fn parse_str(&self, s: &str) -> Result<i64> {
        for alt in &self.alternatives {
            let parsed = match alt {
                Alternative::Iso => parse_iso(s),
                Alternative::EpochMillis => parse_epoch(s, 1),
                Alternative::EpochSecond => parse_epoch(s, 1000),
                Alternative::Pattern(parts) => parse_with_pattern(s, parts),
            };
            if let Some(millis) = parsed {
                return Ok(millis);
            }
        }
        Err(bad_date(s, &self.text))
    }
}

fn bad_date(value: &str, format: &str) -> SearchError {
    SearchError::MapperParsing(format!(
        "failed to parse date field [{value}] with format [{format}]"
    ))
}

fn parse_pattern(pattern: &str) -> Result<Vec<PatternPart>> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        let part = match (c, run) {
            ('y' | 'u', 4) => PatternPart::Year,
            ('M', 2) => PatternPart::Month,
            ('d', 2) => PatternPart::Day,
            ('H', 2) => PatternPart::Hour,
            ('m', 2) => PatternPart::Minute,
            ('s', 2) => PatternPart::Second,
            ('S', 3) => PatternPart::Millis,
            ('\'', _) => {
                i += 1;
                continue;
            }
            (c, _) if c.is_ascii_alphabetic() => {
                return Err(SearchError::MapperParsing(format!(
                    "Invalid format: [{pattern}]: unsupported pattern letters [{}]",
                    c.to_string().repeat(run)
                )))
            }
            (c, _) => {
                parts.push(PatternPart::Literal(c));
                i += 1;
                continue;
            }
        };
        parts.push(part);
        i += run;
    }
    Ok(parts)
}

fn parse_epoch(s: &str, scale: i64) -> Option<i64> {
    if let Ok(v) = s.parse::<i64>() {
        return v.checked_mul(scale);
    }
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some((f * scale as f64) as i64)
}

fn digits(s: &[u8], pos: &mut usize, n: usize) -> Option<i64> {
    let end = pos.checked_add(n)?;
    let slice = s.get(*pos..end)?;
    if !slice.iter().all(u8::is_ascii_digit) {
        return None;
    }
    *pos = end;
    slice
        .iter()
        .try_fold(0i64, |acc, d| Some(acc * 10 + i64::from(d - b'0')))
}

fn parse_with_pattern(s: &str, parts: &[PatternPart]) -> Option<i64> {
    let b = s.as_bytes();
    let mut pos = 0;
    let (mut y, mut mo, mut d, mut h, mut mi, mut sec, mut ms) = (1970, 1, 1, 0, 0, 0, 0);
    for part in parts {
        match part {
            PatternPart::Year => y = digits(b, &mut pos, 4)?,
            PatternPart::Month => mo = digits(b, &mut pos, 2)?,
            PatternPart::Day => d = digits(b, &mut pos, 2)?,
            PatternPart::Hour => h = digits(b, &mut pos, 2)?,
            PatternPart::Minute => mi = digits(b, &mut pos, 2)?,
            PatternPart::Second => sec = digits(b, &mut pos, 2)?,
            PatternPart::Millis => ms = digits(b, &mut pos, 3)?,
            PatternPart::Literal(c) => {
                let mut buf = [0u8; 4];
                let lit = c.encode_utf8(&mut buf).as_bytes();
                if b.get(pos..pos + lit.len())? != lit {
                    return None;
                }
                pos += lit.len();
            }
        }
    }
    (pos == b.len()).then_some(())?;
    to_millis(y, mo, d, h, mi, sec, ms, 0)
}

/// `yyyy-MM-dd['T'HH[:mm[:ss[.SSS...]]]][Z|±HH[:]mm]`.
fn parse_iso(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let mut pos = 0;
    let y = digits(b, &mut pos, 4)?;
    let (mut mo, mut d, mut h, mut mi, mut sec, mut ms) = (1, 1, 0, 0, 0, 0);
    if b.get(pos) == Some(&b'-') {
        pos += 1;
        mo = digits(b, &mut pos, 2)?;
        if b.get(pos) == Some(&b'-') {
            pos += 1;
            d = digits(b, &mut pos, 2)?;
        }
    }
    if matches!(b.get(pos), Some(b'T') | Some(b't') | Some(b' ')) && pos < b.len() {
        pos += 1;
        h = digits(b, &mut pos, 2)?;
        if b.get(pos) == Some(&b':') {
            pos += 1;
            mi = digits(b, &mut pos, 2)?;
            if b.get(pos) == Some(&b':') {
                pos += 1;
                sec = digits(b, &mut pos, 2)?;
                if matches!(b.get(pos), Some(b'.') | Some(b',')) {
                    pos += 1;
                    let start = pos;
                    while b.get(pos).is_some_and(u8::is_ascii_digit) {
                        pos += 1;
                    }
                    let frac = s.get(start..pos)?;
                    if frac.is_empty() {
                        return None;
                    }
                    let padded: String = frac.chars().chain("000".chars()).take(3).collect();
                    ms = padded.parse().ok()?;
                }
            }
        }
    }
    let mut offset_minutes = 0;
    match b.get(pos) {
        None => {}
        Some(b'Z') | Some(b'z') if pos + 1 == b.len() => {}
        Some(&sign @ (b'+' | b'-')) => {
            pos += 1;
            let oh = digits(b, &mut pos, 2)?;
            if b.get(pos) == Some(&b':') {
                pos += 1;
            }
            let om = if pos < b.len() {
                digits(b, &mut pos, 2)?
            } else {
                0
            };
            (pos == b.len()).then_some(())?;
            offset_minutes = (oh * 60 + om) * if sign == b'-' { -1 } else { 1 };
        }
        Some(_) => return None,
    }
    to_millis(y, mo, d, h, mi, sec, ms, offset_minutes)
}

#[allow(clippy::too_many_arguments)]
fn to_millis(
    y: i64,
    mo: i64,
    d: i64,
    h: i64,
    mi: i64,
    s: i64,
    ms: i64,
    offset_minutes: i64,
) -> Option<i64> {
    let valid = (1..=12).contains(&mo)
        && (1..=days_in_month(y, mo)).contains(&d)
        && (0..24).contains(&h)
        && (0..60).contains(&mi)
        && (0..60).contains(&s);
    valid.then_some(())?;
    let days = days_from_civil(y, mo, d);
    Some(((days * 24 + h) * 60 + mi - offset_minutes) * 60_000 + s * 1000 + ms)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

pub(crate) fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// True when a date string names its own offset (`Z`, `+02:00`, `-0530`
/// after the time), so a request's `time_zone` does not apply to it.
pub fn has_explicit_offset(s: &str) -> bool {
    let Some(t) = s.find(['T', 't', ' ']) else {
        return false;
    };
    let time = &s[t + 1..];
    time.ends_with(['Z', 'z']) || time.contains(['+', '-'])
}

/// True when a string looks like a date to dynamic mapping's `date_detection`.
pub fn looks_like_date(s: &str) -> bool {
    s.len() >= 10 && s.as_bytes().get(4) == Some(&b'-') && parse_iso(s).is_some()
}

#[path = "date_format.rs"]
mod format;
pub use format::format_millis;

#[cfg(test)]
#[path = "date_tests.rs"]
mod tests;
