//! Storing and removing templates: each change is made to a copy, saved
//! to `templates.json` (atomically, fsynced) and only then made current.

use serde_json::Value;

use super::names::validate_alias_name;
use super::state::{Catalog, TEMPLATES};
use crate::error::{Result, SearchError};
use crate::templates::{ComponentTemplate, IndexTemplate, LegacyTemplate, Templates};

/// Which kind of template an operation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateKind {
    /// `_template`.
    Legacy,
    /// `_index_template`.
    Composable,
    /// `_component_template`.
    Component,
}

impl Catalog {
    fn change_templates(&self, change: impl FnOnce(&mut Templates) -> Result<()>) -> Result<()> {
        let mut current = self.templates.write();
        let mut next = current.clone();
        change(&mut next)?;
        self.save_node_file(TEMPLATES, &next.to_json())?;
        *current = next;
        Ok(())
    }

    /// Stores template `name` of `kind` from its `PUT` body; with `create`
    /// an existing one is an error instead of being replaced.
    pub fn put_template(
        &self,
        kind: TemplateKind,
        name: &str,
        body: &Value,
        create: bool,
    ) -> Result<()> {
        validate_alias_name(name).map_err(|_| SearchError::InvalidIndexTemplate {
            name: name.to_string(),
            reason: "name must not be empty, start with '_', '-' or '+', or contain the characters [ , \", *, \\, <, |, ,, >, /, ?, #, :]".into(),
        })?;
        let exists = |t: &Templates| match kind {
            TemplateKind::Legacy => t.legacy.contains_key(name),
            TemplateKind::Composable => t.composable.contains_key(name),
            TemplateKind::Component => t.components.contains_key(name),
        };
        match kind {
            TemplateKind::Legacy => {
                let template = LegacyTemplate::parse(body)?;
                self.change_templates(|t| {
                    if create && exists(t) {
                        return Err(SearchError::illegal(format!(
                            "index_template [{name}] already exists"
                        )));
                    }
                    t.legacy.insert(name.to_string(), template);
                    Ok(())
                })
            }
            TemplateKind::Composable => {
                let template = IndexTemplate::parse(body)?;
                self.change_templates(|t| {
                    if create && exists(t) {
                        return Err(SearchError::illegal(format!(
                            "index template [{name}] already exists"
                        )));
                    }
                    t.put_composable(name, template)
                })
            }
            TemplateKind::Component => {
                let template = ComponentTemplate::parse(body)?;
                self.change_templates(|t| {
                    if create && exists(t) {
                        return Err(SearchError::illegal(format!(
                            "component template [{name}] already exists"
                        )));
                    }
                    t.components.insert(name.to_string(), template);
                    Ok(())
                })
            }
        }
    }

    /// Removes template `name` of `kind` (a component template still used
    /// by an index template is refused).
    pub fn delete_template(&self, kind: TemplateKind, name: &str) -> Result<()> {
        self.change_templates(|t| match kind {
            TemplateKind::Legacy => t
                .legacy
                .remove(name)
                .map(|_| ())
                .ok_or_else(|| SearchError::IndexTemplateMissing(name.to_string())),
            TemplateKind::Composable => t.composable.remove(name).map(|_| ()).ok_or_else(|| {
                SearchError::ResourceNotFound(format!("index_template matching [{name}] not found"))
            }),
            TemplateKind::Component => t.remove_component(name),
        })
    }
}
