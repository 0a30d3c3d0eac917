//! [`IndicesOptions`]: how an index expression of a read resolves when
//! names are missing or wildcards match nothing (Elasticsearch's
//! `ignore_unavailable`, `allow_no_indices` and `expand_wildcards`).

use crate::error::{Result, SearchError};

/// See the module docs. The default is a search's: missing concrete names
/// are errors, wildcards expand to open indices and may match nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndicesOptions {
    /// A concrete name that is neither an index nor an alias is skipped
    /// instead of `index_not_found_exception`.
    pub ignore_unavailable: bool,
    /// An expression that reaches no index is an empty read, not
    /// `index_not_found_exception`.
    pub allow_no_indices: bool,
    /// Wildcards expand to (open) indices and their aliases.
    pub expand_open: bool,
    /// Wildcards also reach hidden indices and aliases.
    pub expand_hidden: bool,
}

impl Default for IndicesOptions {
    fn default() -> Self {
        IndicesOptions {
            ignore_unavailable: false,
            allow_no_indices: true,
            expand_open: true,
            expand_hidden: false,
        }
    }
}

impl IndicesOptions {
    /// Applies an `expand_wildcards` value: a comma list of `open`,
    /// `closed`, `hidden`, `none`, `all`. Every index here is open, so
    /// `closed` alone expands to nothing.
    pub fn set_expand_wildcards(&mut self, value: &str) -> Result<()> {
        self.expand_open = false;
        self.expand_hidden = false;
        for state in value.split(',').map(str::trim) {
            match state {
                "open" => self.expand_open = true,
                "hidden" => self.expand_hidden = true,
                "all" => (self.expand_open, self.expand_hidden) = (true, true),
                "closed" | "none" => {}
                other => {
                    return Err(SearchError::illegal(format!(
                        "No enum constant org.elasticsearch.action.support.IndicesOptions.WildcardStates.{}",
                        other.to_ascii_uppercase()
                    )))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_wildcards_values() {
        let mut o = IndicesOptions::default();
        o.set_expand_wildcards("none").unwrap();
        assert!(!o.expand_open && !o.expand_hidden);
        o.set_expand_wildcards("open,hidden").unwrap();
        assert!(o.expand_open && o.expand_hidden);
        o.set_expand_wildcards("closed").unwrap();
        assert!(!o.expand_open);
        o.set_expand_wildcards("all").unwrap();
        assert!(o.expand_open && o.expand_hidden);
        let err = o.set_expand_wildcards("opened").unwrap_err();
        assert_eq!(err.status(), 400);
    }
}
