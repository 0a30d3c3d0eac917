//! Writing epoch milliseconds as a date: [`format_millis`] (ISO 8601,
//! UTC) and [`DateFormat::format_in`] (a format's first alternative, in
//! a zone); every `key_as_string`, `value_as_string` and formatted date
//! field of a reply is written here.

use super::{civil_from_days, Alternative, DateFormat, PatternPart};

/// `2024-01-31T12:00:00.000Z` for epoch milliseconds.
pub fn format_millis(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let rem = millis.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

impl DateFormat {
    /// Formats the UTC instant `utc_ms` with the first alternative, in a
    /// zone `offset_ms` east of UTC (`suffix` is that offset as printed,
    /// `Z` or `+02:00`, used by the ISO form).
    pub(crate) fn format_in(&self, utc_ms: i64, offset_ms: i64, suffix: &str) -> String {
        let local = utc_ms.saturating_add(offset_ms);
        match self.alternatives.first() {
            Some(Alternative::EpochMillis) => utc_ms.to_string(),
            Some(Alternative::EpochSecond) => utc_ms.div_euclid(1000).to_string(),
            Some(Alternative::Pattern(parts)) => {
                let days = local.div_euclid(86_400_000);
                let rem = local.rem_euclid(86_400_000);
                let (y, mo, d) = civil_from_days(days);
                let mut out = String::new();
                for part in parts {
                    match part {
                        PatternPart::Year => out.push_str(&format!("{y:04}")),
                        PatternPart::Month => out.push_str(&format!("{mo:02}")),
                        PatternPart::Day => out.push_str(&format!("{d:02}")),
                        PatternPart::Hour => out.push_str(&format!("{:02}", rem / 3_600_000)),
                        PatternPart::Minute => out.push_str(&format!("{:02}", rem / 60_000 % 60)),
                        PatternPart::Second => out.push_str(&format!("{:02}", rem / 1000 % 60)),
                        PatternPart::Millis => out.push_str(&format!("{:03}", rem % 1000)),
                        PatternPart::Literal(c) => out.push(*c),
                    }
                }
                out
            }
            Some(Alternative::Iso) | None => {
                let mut out = format_millis(local);
                out.pop(); // the `Z` of the UTC form
                out.push_str(suffix);
                out
            }
        }
    }
}
