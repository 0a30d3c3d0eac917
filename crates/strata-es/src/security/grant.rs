//! [`Grant`]: the authenticated caller attached to a request, which the
//! handlers consult for the indices a body names (items of `_bulk`,
//! `_mget`, `_msearch`) and for alias listings.

use std::sync::Arc;

use strata_search::IndicesOptions;

use super::actions::AUTO_CREATE;
use super::restrict::{self, Names, Reach};
use super::subject::Authentication;
use crate::error::Result;
use crate::node::Node;
use crate::request::IndexGrant;

/// See the module docs.
#[derive(Debug)]
pub struct Grant {
    node: Arc<Node>,
    auth: Authentication,
}

impl Grant {
    /// The grant of `auth` over `node`'s indices.
    pub fn new(node: Arc<Node>, auth: Authentication) -> Grant {
        Grant { node, auth }
    }
}

impl IndexGrant for Grant {
    fn check(&self, action: &str, names: &[&str]) -> Result<()> {
        self.auth.check_names(action, names)
    }

    fn check_write(&self, action: &str, name: &str) -> Result<()> {
        check_document_write(&self.auth, &self.node, action, name)
    }

    fn restrict(
        &self,
        action: &str,
        expression: Option<&str>,
        options: IndicesOptions,
    ) -> Result<Option<String>> {
        let indices = self.node.catalog.names();
        let aliases = self.node.catalog.aliases();
        let names = Names {
            indices: &indices,
            aliases: &aliases,
        };
        restrict::restrict(
            &self.auth,
            action,
            expression,
            options,
            &names,
            Reach::IndicesAndAliases,
        )
    }

    fn permits(&self, action: &str, name: &str) -> bool {
        self.auth.index(action, name)
    }
}

/// `Ok` when `auth` may run the document write `action` on `name`, and
/// create the index too when it does not exist (`auto_create`).
pub(super) fn check_document_write(
    auth: &Authentication,
    node: &Node,
    action: &str,
    name: &str,
) -> Result<()> {
    auth.check_names(action, &[name])?;
    if matches!(node.catalog.write_index(name), Ok(None)) {
        auth.check_names(AUTO_CREATE, &[name])?;
    }
    Ok(())
}
