//! Tests of date formats: ISO variants, epoch forms, custom patterns and detection.

use super::*;

#[test]
fn iso_variants() {
    let f = DateFormat::parse(DEFAULT_DATE_FORMAT).unwrap();
    assert_eq!(f.parse_str("1970-01-01").unwrap(), 0);
    assert_eq!(f.parse_str("1970-01-02T00:00:01.5Z").unwrap(), 86_401_500);
    assert_eq!(
        f.parse_str("2024-02-29T10:00:00+02:00").unwrap(),
        1_709_193_600_000
    );
    assert_eq!(f.parse_str("12345").unwrap(), 12345);
    assert!(f.parse_str("2024-02-30").is_err());
    assert!(f.parse_str("yesterday").is_err());
}

#[test]
fn patterns_and_formatting() {
    let f = DateFormat::parse("yyyy/MM/dd HH:mm:ss||epoch_second").unwrap();
    let ms = f.parse_str("2021/03/04 05:06:07").unwrap();
    assert_eq!(format_millis(ms), "2021-03-04T05:06:07.000Z");
    assert_eq!(f.parse_str("10").unwrap(), 10_000);
    assert!(DateFormat::parse("yyyy-QQ").is_err());
    assert_eq!(format_millis(-1), "1969-12-31T23:59:59.999Z");
}
