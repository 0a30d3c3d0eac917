//! Whether two index patterns (`*` wildcards) can match a common name:
//! composable templates with overlapping patterns and equal priority
//! clash.

/// Whether some index name matches both `a` and `b` (`*` wildcards).
pub fn patterns_overlap(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut memo = vec![vec![None; b.len() + 1]; a.len() + 1];
    overlap(&a, &b, 0, 0, &mut memo)
}

fn overlap(a: &[char], b: &[char], i: usize, j: usize, memo: &mut [Vec<Option<bool>>]) -> bool {
    if let Some(known) = memo[i][j] {
        return known;
    }
    let result = match (a.get(i), b.get(j)) {
        (None, None) => true,
        // A star matches nothing, or swallows one more character (or star) of the other side.
        (Some('*'), _) => {
            overlap(a, b, i + 1, j, memo) || (j < b.len() && overlap(a, b, i, j + 1, memo))
        }
        (_, Some('*')) => {
            overlap(a, b, i, j + 1, memo) || (i < a.len() && overlap(a, b, i + 1, j, memo))
        }
        (Some(x), Some(y)) => x == y && overlap(a, b, i + 1, j + 1, memo),
        _ => false,
    };
    memo[i][j] = Some(result);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_patterns() {
        assert!(patterns_overlap("logs-*", "logs-*"));
        assert!(patterns_overlap("logs-*", "*-2024"));
        assert!(patterns_overlap("a*", "*b"));
        assert!(patterns_overlap("abc", "a*c"));
        assert!(!patterns_overlap("logs-*", "metrics-*"));
        assert!(!patterns_overlap("abc", "abd"));
        assert!(!patterns_overlap("a*x", "b*"));
    }
}
