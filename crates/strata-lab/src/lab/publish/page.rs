//! The "At a glance" table of docs/benchmarks.md: finding a target's row and
//! rewriting its figure, status, date and commit cells, every other line kept
//! byte for byte.

/// The new cells of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    /// The page's issue cell (matched).
    pub issue: String,
    /// The page's target cell (matched).
    pub target: String,
    /// "current figure".
    pub figure: String,
    /// "status".
    pub status: String,
    /// "date (UTC)".
    pub date: String,
    /// "commit".
    pub commit: String,
}

/// The heading of the section whose table is rewritten.
pub const SECTION: &str = "## At a glance";

/// Splits a markdown table row into its cells (trimmed); `None` for a line
/// that is not a table row.
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// Makes a cell's text safe inside a table row.
fn clean(text: &str) -> String {
    text.replace('|', "/").replace('\n', " ")
}

/// Applies `updates` to the "At a glance" table of `page`. Returns the new page
/// and the updates whose row was not found. Lines other than the updated rows
/// are copied unchanged, including the page's line endings.
pub fn apply<'a>(page: &str, updates: &'a [Update]) -> Result<(String, Vec<&'a Update>), String> {
    let mut out = String::with_capacity(page.len() + 1024);
    let mut in_section = false;
    let mut seen_section = false;
    let mut used = vec![false; updates.len()];
    for line in page.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        if body.starts_with("## ") {
            in_section = body.trim_end() == SECTION;
            seen_section |= in_section;
        }
        let row = in_section.then(|| cells(body)).flatten();
        let found = row.as_ref().and_then(|c| {
            if c.len() != 7 {
                return None;
            }
            updates
                .iter()
                .position(|u| u.issue == c[0] && u.target == c[1])
        });
        match (found, row) {
            (Some(i), Some(c)) => {
                used[i] = true;
                let u = &updates[i];
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} | {} | {} |{ending}",
                    c[0],
                    c[1],
                    clean(&u.figure),
                    clean(&u.status),
                    clean(&u.date),
                    clean(&u.commit),
                    c[6]
                ));
            }
            _ => out.push_str(line),
        }
    }
    if !seen_section {
        return Err(format!("no \"{SECTION}\" section"));
    }
    let missing = updates
        .iter()
        .zip(&used)
        .filter(|(_, &u)| !u)
        .map(|(u, _)| u)
        .collect();
    Ok((out, missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "# B\r\n\n## At a glance\n\n| issue | target | current figure | status | date (UTC) | commit | section |\n|---|---|---|---|---|---|---|\n| 3 | a ≥ 1x | old | met | d | c | [S](#s) |\n| 4 | b | old | missed | d | c | |\n\n## Other\n\n| 3 | a ≥ 1x | old | met | d | c | [S](#s) |\n";

    fn update(issue: &str, target: &str) -> Update {
        Update {
            issue: issue.into(),
            target: target.into(),
            figure: "new | x".into(),
            status: "met".into(),
            date: "2026-11-29 05:00".into(),
            commit: "abc1234".into(),
        }
    }

    #[test]
    fn rewrites_only_matching_rows_of_the_section() {
        let ups = [update("3", "a ≥ 1x"), update("9", "absent")];
        let (page, missing) = apply(PAGE, &ups).unwrap();
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].issue, "9");
        let changed: Vec<(&str, &str)> = PAGE
            .split_inclusive('\n')
            .zip(page.split_inclusive('\n'))
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(
            changed,
            [(
                "| 3 | a ≥ 1x | old | met | d | c | [S](#s) |\n",
                "| 3 | a ≥ 1x | new / x | met | 2026-11-29 05:00 | abc1234 | [S](#s) |\n"
            )]
        );
        assert!(page.starts_with("# B\r\n"));
    }

    #[test]
    fn a_page_without_the_section_is_refused() {
        assert!(apply("# B\n| 3 | a |\n", &[]).is_err());
    }
}
