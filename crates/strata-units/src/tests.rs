//! Sizes as every Strata command line and config file reads them.

use super::{human, parse_bytes, ByteSize};

fn parse(text: &str) -> Result<u64, String> {
    text.parse::<ByteSize>().map(ByteSize::bytes)
}

#[test]
fn plain_numbers_are_bytes() {
    assert_eq!(parse("1073741824"), Ok(1 << 30));
    assert_eq!(parse("1"), Ok(1));
    assert_eq!(parse("512b"), Ok(512));
}

#[test]
fn units_are_binary_and_case_insensitive() {
    assert_eq!(parse("64mb"), Ok(64 << 20));
    assert_eq!(parse("64MB"), Ok(64 << 20));
    assert_eq!(parse("64m"), Ok(64 << 20));
    assert_eq!(parse("64MiB"), Ok(64 << 20));
    assert_eq!(parse("1gb"), Ok(1 << 30));
    assert_eq!(parse("4k"), Ok(4096));
    assert_eq!(parse("2tb"), Ok(2 << 40));
    assert_eq!(parse(" 16 kb "), Ok(16 << 10));
}

#[test]
fn fractions_are_allowed_with_digits_on_both_sides() {
    assert_eq!(parse("1.5gb"), Ok(3 << 29));
    assert_eq!(parse("0.5k"), Ok(512));
    for bad in ["1.", ".5g", "1.2.3g", "1.5.gb"] {
        assert!(parse(bad).is_err(), "{bad} should be refused");
    }
}

#[test]
fn bad_sizes_are_refused_with_a_reason() {
    assert!(parse("0").unwrap_err().contains("greater than zero"));
    assert!(parse("0mb").unwrap_err().contains("greater than zero"));
    assert!(parse("0.0001b").unwrap_err().contains("greater than zero"));
    assert!(parse("abc").unwrap_err().contains("expected a number"));
    assert!(parse("").unwrap_err().contains("expected a number"));
    assert!(parse("mb").unwrap_err().contains("expected a number"));
    assert!(parse("10xb").unwrap_err().contains("unknown unit `xb`"));
    assert!(parse("-5mb").is_err());
    assert!(parse("99999999999999999999")
        .unwrap_err()
        .contains("too large"));
    assert!(parse("20000000tb").unwrap_err().contains("too large"));
    assert!(parse("20000000.5tb").unwrap_err().contains("too large"));
}

#[test]
fn zero_is_a_size_for_parse_bytes_only() {
    assert_eq!(parse_bytes("0"), Ok(0));
    assert_eq!(parse_bytes("0gb"), Ok(0));
    assert!(parse_bytes("12 parsecs").is_err());
}

#[test]
fn display_uses_the_largest_exact_unit() {
    assert_eq!(ByteSize::mib(1024).to_string(), "1gb");
    assert_eq!(ByteSize::kib(1536).to_string(), "1536kb");
    assert_eq!(
        ByteSize::new(1000).map(|s| s.to_string()),
        Some("1000b".into())
    );
}

#[test]
fn config_files_give_numbers_or_strings() {
    let size = |json: &str| serde_json::from_str::<ByteSize>(json).map(ByteSize::bytes);
    assert_eq!(size("4096").unwrap(), 4096);
    assert_eq!(size("\"8mb\"").unwrap(), 8 << 20);
    assert!(size("0").is_err());
    assert!(size("-1").is_err());
    assert!(size("\"big\"").is_err());
}

#[test]
fn human_sizes_have_one_decimal_above_bytes() {
    assert_eq!(human(17), "17 B");
    assert_eq!(human(4096), "4.0 KiB");
    assert_eq!(human(3 << 29), "1.5 GiB");
}
