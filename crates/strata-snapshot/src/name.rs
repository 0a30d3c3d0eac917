//! Snapshot file names: `snapshot-<start_lsn as 20 digits>.snap`, so that
//! names sort in LSN order, and `<name>.tmp` while being written.

const PREFIX: &str = "snapshot-";
const SUFFIX: &str = ".snap";
const TEMP_SUFFIX: &str = ".tmp";

/// The name of the snapshot that starts at `start_lsn`.
pub fn snapshot_name(start_lsn: u64) -> String {
    format!("{PREFIX}{start_lsn:020}{SUFFIX}")
}

/// The start LSN of a snapshot name made by [`snapshot_name`]; `None` for
/// any other name (temporary files included).
pub fn parse_snapshot_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Where the snapshot `name` is written until it is complete.
pub(crate) fn temp_name(name: &str) -> String {
    format!("{name}{TEMP_SUFFIX}")
}

/// True for the temporary file of a snapshot name.
pub(crate) fn is_temp(name: &str) -> bool {
    name.strip_suffix(TEMP_SUFFIX)
        .is_some_and(|base| parse_snapshot_name(base).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sort_by_lsn() {
        assert_eq!(snapshot_name(42), "snapshot-00000000000000000042.snap");
        for lsn in [0, 1, 42, u64::MAX] {
            assert_eq!(parse_snapshot_name(&snapshot_name(lsn)), Some(lsn));
        }
        assert!(snapshot_name(9) < snapshot_name(10));
        assert!(snapshot_name(u64::MAX - 1) < snapshot_name(u64::MAX));
    }

    #[test]
    fn other_names_are_not_snapshots() {
        for name in [
            "snapshot-42.snap",
            "snapshot-00000000000000000042.snap.tmp",
            "snapshot-0000000000000000004x.snap",
            "snapshot-99999999999999999999.snap",
            "log-00000000000000000001.seg",
        ] {
            assert_eq!(parse_snapshot_name(name), None, "{name}");
        }
    }

    #[test]
    fn temp_names() {
        let temp = temp_name(&snapshot_name(7));
        assert!(is_temp(&temp));
        assert!(!is_temp(&snapshot_name(7)));
        assert!(!is_temp("other.tmp"));
    }
}
