//! [`NamedPrivilege`]: a union of `include` action patterns minus
//! `exclude` ones, and [`subset`], the relation between two privileges
//! that orders them (every pattern is a literal or a literal followed by
//! one `*`, which is what makes it exact enough).

use crate::security::privilege::glob;

/// One named privilege.
#[derive(Debug)]
pub struct NamedPrivilege {
    /// Its name in role descriptors.
    pub name: &'static str,
    pub(super) include: &'static [&'static str],
    pub(super) exclude: &'static [&'static str],
    /// `manage_own_api_key`: the API key actions, on the caller's own keys only.
    pub own_api_keys_only: bool,
}

impl NamedPrivilege {
    pub(super) const fn new(
        name: &'static str,
        include: &'static [&'static str],
    ) -> NamedPrivilege {
        NamedPrivilege {
            name,
            include,
            exclude: &[],
            own_api_keys_only: false,
        }
    }

    /// Whether this privilege grants `action`.
    pub fn grants(&self, action: &str) -> bool {
        self.include.iter().any(|p| glob::matches(p, action))
            && !self.exclude.iter().any(|p| glob::matches(p, action))
    }
}

/// A pattern's fixed prefix and whether a star follows it.
pub(super) fn split(pattern: &str) -> (&str, bool) {
    match pattern.strip_suffix('*') {
        Some(prefix) => (prefix, true),
        None => (pattern, false),
    }
}

/// Whether every action `inner` matches, `outer` matches.
fn contains(outer: &str, inner: &str) -> bool {
    let ((o, o_star), (i, i_star)) = (split(outer), split(inner));
    if o_star {
        i.starts_with(o)
    } else {
        !i_star && o == i
    }
}

/// Whether some action matches both patterns.
fn overlaps(a: &str, b: &str) -> bool {
    let ((a, a_star), (b, b_star)) = (split(a), split(b));
    match (a_star, b_star) {
        (true, true) => a.starts_with(b) || b.starts_with(a),
        (true, false) => b.starts_with(a),
        (false, true) => a.starts_with(b),
        (false, false) => a == b,
    }
}

/// Whether every action `small` grants, `big` grants too.
pub(super) fn subset(small: &NamedPrivilege, big: &NamedPrivilege) -> bool {
    if small.own_api_keys_only != big.own_api_keys_only && big.own_api_keys_only {
        return false;
    }
    small.include.iter().all(|p| {
        big.include.iter().any(|q| contains(q, p))
            && big
                .exclude
                .iter()
                .all(|e| !overlaps(e, p) || small.exclude.iter().any(|x| contains(x, e)))
    })
}
