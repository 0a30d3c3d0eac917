//! [`Grant`]: the authenticated caller attached to a request, which the
//! handlers consult for the indices a body names (items of `_bulk`,
//! `_mget`, `_msearch`) and for alias listings.

use std::sync::Arc;

use strata_search::catalog::IndicesOptions;

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
        let denied: Vec<String> = names
            .iter()
            .filter(|n| !self.auth.index(action, n))
            .map(|n| n.to_string())
            .collect();
        if denied.is_empty() {
            Ok(())
        } else {
            Err(self.auth.denied(action, &denied))
        }
    }

    fn check_write(&self, action: &str, name: &str) -> Result<()> {
        self.check(action, &[name])?;
        if matches!(self.node.catalog.write_index(name), Ok(None)) {
            self.check(AUTO_CREATE, &[name])?;
        }
        Ok(())
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
