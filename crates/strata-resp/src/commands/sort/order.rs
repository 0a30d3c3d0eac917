//! The pure parts of `SORT`: the `LIMIT` window over the elements and the
//! order they are sorted in (Redis's `sortCompare`).
//!
//! Numeric sorting compares weights, ties broken by the elements' bytes.
//! `ALPHA` compares the elements, or with `BY` what the pattern found (a
//! missing one first): byte by byte with `STORE` (Redis's
//! `compareStringObjects`), up to the first NUL byte without it (Redis's
//! `strcoll`, in the C locale). The sort is stable, as glibc's `qsort`
//! (a merge sort) is: elements that compare equal keep their order.

use std::cmp::Ordering;

/// The part of `len` elements `LIMIT offset count` keeps, as Redis
/// computes it: `(start, end)`, inclusive; empty when `end < start`.
/// Never past the elements, whatever the offset and count.
pub fn window(offset: i64, count: i64, len: usize) -> (i64, i64) {
    let len = i64::try_from(len).unwrap_or(i64::MAX);
    let mut start = offset.max(0).min(len);
    let count = count.max(-1).min(len);
    let mut end = if count < 0 {
        len - 1
    } else {
        start + count - 1
    };
    if start >= len {
        start = len - 1;
        end = len - 2;
    }
    if end >= len {
        end = len - 1;
    }
    (start, end)
}

/// One element to sort, with what it is sorted by.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The element.
    pub element: Vec<u8>,
    /// Its weight (numeric sorting; 0 when `BY` found nothing).
    pub score: f64,
    /// What `BY` found (`ALPHA` with `BY`).
    pub by: Option<Vec<u8>>,
}

impl Entry {
    /// An element not weighed yet.
    pub fn new(element: Vec<u8>) -> Self {
        Self {
            element,
            score: 0.0,
            by: None,
        }
    }
}

/// How the entries are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct How {
    /// `DESC`.
    pub desc: bool,
    /// `ALPHA`.
    pub alpha: bool,
    /// A `BY` pattern gave what entries are compared by.
    pub by_pattern: bool,
    /// `STORE`: strings compare as bytes, not as C strings.
    pub store: bool,
}

/// `a` and `b` as C's `strcoll` compares them in the C locale: as
/// unsigned bytes up to the first NUL (a shorter string first).
fn collate(a: &[u8], b: &[u8]) -> Ordering {
    super::pattern::c_str(a).cmp(super::pattern::c_str(b))
}

fn compare(a: &Entry, b: &Entry, how: How) -> Ordering {
    let strings = |x: &[u8], y: &[u8]| match how.store {
        true => x.cmp(y),
        false => collate(x, y),
    };
    let order = if !how.alpha {
        if a.score > b.score {
            Ordering::Greater
        } else if a.score < b.score {
            Ordering::Less
        } else {
            a.element.cmp(&b.element)
        }
    } else if how.by_pattern {
        match (&a.by, &b.by) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => strings(x, y),
        }
    } else {
        strings(&a.element, &b.element)
    };
    if how.desc {
        order.reverse()
    } else {
        order
    }
}

/// Sorts `entries` as `how` says (stably).
pub fn sort(entries: &mut [Entry], how: How) {
    entries.sort_by(|a, b| compare(a, b, how));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_as_redis_computes_it() {
        assert_eq!(window(0, -1, 5), (0, 4));
        assert_eq!(window(1, 2, 5), (1, 2));
        assert_eq!(window(-10, 100, 5), (0, 4));
        assert_eq!(window(3, 100, 5), (3, 4));
        assert_eq!(window(5, 10, 5), (4, 3), "past the end: empty");
        assert_eq!(window(2, 0, 5), (2, 1), "count 0: empty");
        assert_eq!(window(0, -7, 5), (0, 4), "a negative count: all");
        assert_eq!(window(0, 0, 0), (-1, -2));
        assert_eq!(window(i64::MAX, i64::MAX, 3), (2, 1));
        assert_eq!(window(i64::MIN, i64::MIN, 3), (0, 2));
        assert_eq!(window(2, i64::MAX, 3), (2, 2));
    }

    fn entries(elements: &[&str], scores: &[f64]) -> Vec<Entry> {
        elements
            .iter()
            .zip(scores)
            .map(|(e, s)| Entry {
                element: e.as_bytes().to_vec(),
                score: *s,
                by: None,
            })
            .collect()
    }

    fn names(entries: &[Entry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| String::from_utf8_lossy(&e.element).into_owned())
            .collect()
    }

    const NUMERIC: How = How {
        desc: false,
        alpha: false,
        by_pattern: false,
        store: false,
    };

    #[test]
    fn numeric_ties_go_by_the_elements() {
        let mut e = entries(&["b", "a", "c", "d"], &[1.0, 1.0, -0.0, 0.0]);
        sort(&mut e, NUMERIC);
        assert_eq!(names(&e), ["c", "d", "a", "b"]);
        sort(
            &mut e,
            How {
                desc: true,
                ..NUMERIC
            },
        );
        assert_eq!(names(&e), ["b", "a", "d", "c"]);
    }

    #[test]
    fn alpha_compares_c_strings_unless_stored() {
        let alpha = How {
            alpha: true,
            ..NUMERIC
        };
        let mut e = entries(&["b", "a\0z", "a\0y", "a"], &[0.0; 4]);
        sort(&mut e, alpha);
        assert_eq!(
            names(&e),
            ["a\0z", "a\0y", "a", "b"],
            "equal up to NUL: kept"
        );
        sort(
            &mut e,
            How {
                store: true,
                ..alpha
            },
        );
        assert_eq!(names(&e), ["a", "a\0y", "a\0z", "b"]);
        let mut e = entries(&["10", "9", "\u{e9}", "Z"], &[0.0; 4]);
        sort(&mut e, alpha);
        assert_eq!(names(&e), ["10", "9", "Z", "\u{e9}"]);
    }

    #[test]
    fn alpha_by_puts_missing_weights_first_in_their_order() {
        let mut e = entries(&["x", "y", "z", "w"], &[0.0; 4]);
        e[0].by = Some(b"2".to_vec());
        e[2].by = Some(b"1".to_vec());
        let how = How {
            alpha: true,
            by_pattern: true,
            ..NUMERIC
        };
        sort(&mut e, how);
        assert_eq!(names(&e), ["y", "w", "z", "x"]);
        sort(&mut e, How { desc: true, ..how });
        assert_eq!(names(&e), ["x", "z", "y", "w"]);
    }
}
