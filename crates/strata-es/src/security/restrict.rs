//! Index expressions restricted to what the caller may see, as
//! Elasticsearch's security resolves them before an action runs:
//! wildcards (`*`, `_all`, a missing expression) expand only to index and
//! alias names the caller holds the action's privilege on; an explicit
//! name the caller may not use is a 403 (or dropped with
//! `ignore_unavailable`); `-name` exclusions apply to what was expanded.
//!
//! A caller without the action's privilege on any name gets a 403 for a
//! wildcard at once. The answer is the expression to run instead, or `None` when the
//! original reaches nothing forbidden (so nothing changes for callers who
//! may see everything). An expansion that keeps nothing becomes `*,-*`,
//! which resolves to no index (Elasticsearch uses the same pair).

use strata_search::{wildcard_match, Aliases, IndicesOptions};

use super::subject::Authentication;
use crate::error::Result;

/// The expression that reaches no index.
pub const NOTHING: &str = "*,-*";

/// Which names wildcards expand to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Indices and aliases (reads and most admin actions).
    IndicesAndAliases,
    /// Indices only (deleting indices).
    IndicesOnly,
}

/// The catalog's names, read once per request.
pub struct Names<'a> {
    /// Index names.
    pub indices: &'a [String],
    /// The alias table.
    pub aliases: &'a Aliases,
}

/// See the module docs.
pub fn restrict(
    auth: &Authentication,
    action: &str,
    expression: Option<&str>,
    options: IndicesOptions,
    names: &Names<'_>,
    reach: Reach,
) -> Result<Option<String>> {
    let expression = expression.unwrap_or("_all");
    let mut parts: Vec<&str> = expression
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        parts.push("_all");
    }
    // No privilege for the action on any name: refused before expanding
    // (Elasticsearch's message then names no index).
    let wildcard = parts.iter().any(|p| *p == "_all" || p.contains('*'));
    if wildcard && !auth.index_any(action) {
        return Err(auth.denied(action, &[]));
    }
    let mut kept: Vec<String> = Vec::new();
    let mut changed = false;
    let mut denied: Vec<String> = Vec::new();
    for part in parts {
        if let Some(excluded) = part.strip_prefix('-') {
            kept.retain(|n| !wildcard_match(excluded, n));
            continue;
        }
        if part == "_all" || part.contains('*') {
            if !options.expand_open {
                continue;
            }
            let pattern = if part == "_all" { "*" } else { part };
            let mut candidates: Vec<&String> = names
                .indices
                .iter()
                .filter(|n| wildcard_match(pattern, n))
                .collect();
            if reach == Reach::IndicesAndAliases {
                for alias in names.aliases.names().filter(|a| wildcard_match(pattern, a)) {
                    let hidden = names
                        .aliases
                        .targets(alias)
                        .is_some_and(|t| t.values().any(|m| m.is_hidden == Some(true)));
                    if !hidden || options.expand_hidden {
                        candidates.push(alias);
                    }
                }
            }
            for name in candidates {
                if auth.index(action, name) {
                    if !kept.contains(name) {
                        kept.push(name.clone());
                    }
                } else {
                    changed = true;
                }
            }
            continue;
        }
        if auth.index(action, part) {
            if !kept.iter().any(|k| k == part) {
                kept.push(part.to_string());
            }
        } else if options.ignore_unavailable {
            changed = true;
        } else {
            denied.push(part.to_string());
        }
    }
    if !denied.is_empty() {
        return Err(auth.denied(action, &denied));
    }
    if !changed {
        return Ok(None);
    }
    Ok(Some(if kept.is_empty() {
        NOTHING.to_string()
    } else {
        kept.join(",")
    }))
}

/// For actions that change what they name (alias changes): every explicit
/// name, and every existing index a wildcard matches, must be permitted;
/// nothing is expanded or dropped.
pub fn require_all(
    auth: &Authentication,
    action: &str,
    expressions: &[&str],
    names: &Names<'_>,
) -> Result<()> {
    let mut denied: Vec<String> = Vec::new();
    for expression in expressions {
        for part in expression
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            let part = part.strip_prefix('-').unwrap_or(part);
            if part == "_all" || part.contains('*') {
                let pattern = if part == "_all" { "*" } else { part };
                for name in names.indices.iter().filter(|n| wildcard_match(pattern, n)) {
                    if !auth.index(action, name) && !denied.contains(name) {
                        denied.push(name.clone());
                    }
                }
            } else if !auth.index(action, part) && !denied.iter().any(|d| d == part) {
                denied.push(part.to_string());
            }
        }
    }
    if denied.is_empty() {
        Ok(())
    } else {
        Err(auth.denied(action, &denied))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::role::Role;
    use crate::security::subject::Permission;
    use serde_json::json;
    use std::sync::Arc;
    use strata_search::AliasMeta;

    fn reader(patterns: &[&str]) -> Authentication {
        let role = Role::parse(
            "r",
            &json!({"indices": [{"names": patterns, "privileges": ["read"]}]}),
        )
        .unwrap();
        Authentication::User {
            username: "ann".into(),
            assigned: vec!["r".into()],
            permission: Permission::new(vec![Arc::new(role)]),
        }
    }

    fn run(
        auth: &Authentication,
        expr: Option<&str>,
        options: IndicesOptions,
    ) -> Result<Option<String>> {
        let indices: Vec<String> = ["logs-a", "logs-b", "metrics", "secret"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut aliases = Aliases::default();
        aliases.put("logs-a", "logs-all", AliasMeta::default());
        aliases.put(
            "secret",
            "logs-hidden",
            AliasMeta {
                is_hidden: Some(true),
                ..AliasMeta::default()
            },
        );
        let names = Names {
            indices: &indices,
            aliases: &aliases,
        };
        restrict(
            auth,
            "indices:data/read/search",
            expr,
            options,
            &names,
            Reach::IndicesAndAliases,
        )
    }

    #[test]
    fn wildcards_expand_to_permitted_names_only() {
        let auth = reader(&["logs-*"]);
        let o = IndicesOptions::default();
        assert_eq!(
            run(&auth, Some("logs-*"), o).unwrap(),
            None,
            "all permitted (the hidden alias is skipped)"
        );
        assert_eq!(
            run(&auth, None, o).unwrap().as_deref(),
            Some("logs-a,logs-b,logs-all")
        );
        assert_eq!(
            run(&auth, Some("*,-logs-b"), o).unwrap().as_deref(),
            Some("logs-a,logs-all")
        );
        assert_eq!(
            run(&auth, Some("met*"), o).unwrap().as_deref(),
            Some(NOTHING)
        );
        assert_eq!(run(&auth, Some("logs-a"), o).unwrap(), None);
        let e = run(&auth, Some("logs-a,secret,nope"), o).unwrap_err();
        assert_eq!(e.status(), 403);
        assert!(
            e.reason().contains("on indices [secret,nope]"),
            "{}",
            e.reason()
        );
        let lenient = IndicesOptions {
            ignore_unavailable: true,
            ..o
        };
        assert_eq!(
            run(&auth, Some("logs-a,secret"), lenient)
                .unwrap()
                .as_deref(),
            Some("logs-a")
        );
        let all = reader(&["*"]);
        assert_eq!(run(&all, None, o).unwrap(), None);
        let none = Authentication::User {
            username: "z".into(),
            assigned: vec![],
            permission: Permission::default(),
        };
        assert_eq!(run(&none, Some("logs-*"), o).unwrap_err().status(), 403);
    }

    #[test]
    fn changes_need_every_name() {
        let auth = reader(&["logs-*"]);
        let indices: Vec<String> = ["logs-a", "secret"].iter().map(|s| s.to_string()).collect();
        let aliases = Aliases::default();
        let names = Names {
            indices: &indices,
            aliases: &aliases,
        };
        let a = "indices:data/read/search";
        assert!(require_all(&auth, a, &["logs-*", "logs-x"], &names).is_ok());
        let e = require_all(&auth, a, &["*", "other"], &names).unwrap_err();
        assert!(
            e.reason().contains("on indices [secret,other]"),
            "{}",
            e.reason()
        );
    }
}
