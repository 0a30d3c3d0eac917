//! Which templates apply to a new index, and in what order.

use super::{TemplateBody, Templates};
use crate::catalog::wildcard_match;

impl Templates {
    /// The composable template a new index named `name` gets: the matching
    /// one with the highest priority (ties, which storing refuses for
    /// overlapping patterns, go to the first name).
    pub fn composable_for(&self, name: &str) -> Option<&str> {
        let mut best: Option<(&String, i64)> = None;
        for (tname, t) in &self.composable {
            if t.index_patterns.iter().any(|p| wildcard_match(p, name))
                && best.is_none_or(|(_, p)| t.priority > p)
            {
                best = Some((tname, t.priority));
            }
        }
        best.map(|(n, _)| n.as_str())
    }

    /// The legacy templates matching `name`, by ascending order (then name).
    pub(crate) fn legacy_for(&self, name: &str) -> Vec<&str> {
        let mut found: Vec<(&String, i64)> = self
            .legacy
            .iter()
            .filter(|(_, t)| t.index_patterns.iter().any(|p| wildcard_match(p, name)))
            .map(|(n, t)| (n, t.order))
            .collect();
        found.sort_by_key(|&(n, order)| (order, n.clone()));
        found.into_iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The bodies a new index named `name` is built from, lowest precedence
    /// first: the winning composable template's components in the order it
    /// lists them, then its own `template`; or, when no composable template
    /// matches, every matching legacy template by ascending `order`.
    pub fn layers_for(&self, name: &str) -> Vec<&TemplateBody> {
        if let Some(t) = self
            .composable_for(name)
            .and_then(|n| self.composable.get(n))
        {
            let mut layers: Vec<&TemplateBody> = t
                .composed_of
                .iter()
                .filter_map(|c| self.components.get(c))
                .map(|c| &c.template)
                .collect();
            layers.push(&t.template);
            return layers;
        }
        self.legacy_for(name)
            .into_iter()
            .filter_map(|n| self.legacy.get(n))
            .map(|t| &t.body)
            .collect()
    }

    /// The templates whose aliases would give a new index named `name` the
    /// alias `alias` (rollover refuses them: the alias would then point at
    /// two indices), as `(template name, its alias names)`.
    pub(crate) fn giving_alias(&self, name: &str, alias: &str) -> Option<(String, Vec<String>)> {
        if let Some(tname) = self.composable_for(name) {
            let t = self.composable.get(tname)?;
            let bodies = t
                .composed_of
                .iter()
                .filter_map(|c| self.components.get(c))
                .map(|c| &c.template)
                .chain(std::iter::once(&t.template));
            for body in bodies {
                if has_alias(body, name, alias) {
                    return Some((tname.to_string(), body.aliases.keys().cloned().collect()));
                }
            }
            return None;
        }
        self.legacy_for(name).into_iter().find_map(|tname| {
            let body = &self.legacy.get(tname)?.body;
            has_alias(body, name, alias)
                .then(|| (tname.to_string(), body.aliases.keys().cloned().collect()))
        })
    }
}

fn has_alias(body: &TemplateBody, index: &str, alias: &str) -> bool {
    body.aliases
        .keys()
        .any(|a| a.replace("{index}", index) == alias)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn highest_priority_composable_wins_over_legacy() {
        let mut t = Templates::default();
        let legacy = super::super::LegacyTemplate::parse(
            &json!({"index_patterns": ["logs-*"], "settings": {"number_of_shards": 4}}),
        )
        .unwrap();
        t.legacy.insert("old".into(), legacy);
        assert_eq!(t.layers_for("logs-1").len(), 1);
        for (name, priority) in [("low", 1), ("high", 5)] {
            let it = super::super::IndexTemplate::parse(
                &json!({"index_patterns": ["logs-*"], "priority": priority}),
            )
            .unwrap();
            t.put_composable(name, it).unwrap();
        }
        assert_eq!(t.composable_for("logs-1"), Some("high"));
        assert_eq!(t.layers_for("logs-1").len(), 1);
        assert!(t.layers_for("other").is_empty());
        let clash =
            super::super::IndexTemplate::parse(&json!({"index_patterns": ["*-1"], "priority": 5}))
                .unwrap();
        assert!(t.put_composable("clash", clash).is_err());
    }
}
