//! # HTTP security: authentication and authorization
//!
//! Elasticsearch's file realm and API keys for the HTTP front end. Off
//! unless a realm directory is configured ([`SecurityConfig`]); then every
//! request needs credentials (`Authorization: Basic` or `ApiKey`), and
//! every route's action needs the caller's privilege, as in Elasticsearch
//! 8 with security on.
//!
//! ## Layout
//! - [`privilege`]: action and name patterns, named privileges.
//! - [`role`]: role descriptors compiled into roles; the built-in
//!   `superuser`, `viewer` and `editor`.
//! - [`subject`]: the authenticated caller and its permission; 403 texts.
//! - [`realm`]: the file realm (`users`, `users_roles`, `roles.yml`),
//!   reloaded on change, bcrypt behind a credential cache.
//! - [`api_key`]: API keys and their durable store.
//! - [`authenticate`]: the `Authorization` header to a caller, or a 401.
//! - [`authorize`]: every route's action and privilege; index
//!   expressions restricted by [`restrict`].
//! - [`grant`]: the caller attached to the request for handlers' per-item
//!   checks; [`actions`]: the action names handlers use.
//! - [`rest`]: `_security/_authenticate` and `_security/api_key`.
//! - [`clock`]: the time API keys expire by.
//!
//! The server calls [`guard`] once per request, after the body is read and
//! before routing. This module never reads the configuration files of the
//! server; `strata-server` hands it a [`SecurityConfig`].

pub mod actions;
pub mod api_key;
pub mod authenticate;
pub mod authorize;
pub mod clock;
pub mod grant;
pub mod privilege;
pub mod realm;
pub mod rest;
pub mod restrict;
pub mod role;
pub mod subject;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use self::api_key::store::ApiKeyStore;
use self::clock::{SecurityClock, SystemClock};
use self::realm::FileRealm;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::security::subject::Authentication;

/// How often the realm's files are checked for changes by default
/// (Elasticsearch's `resource.reload.interval.high`).
pub const DEFAULT_RELOAD_INTERVAL: Duration = Duration::from_secs(5);

/// What turns security on.
#[derive(Debug, Clone)]
pub struct SecurityConfig {
    /// The file realm's directory (`users`, `users_roles`, `roles.yml`).
    pub realm_dir: PathBuf,
    /// How often the realm's files are checked for changes.
    pub reload_interval: Duration,
    /// The clock API keys are created and expire by.
    pub clock: Arc<dyn SecurityClock>,
}

impl SecurityConfig {
    /// Security with the realm in `realm_dir`, the defaults otherwise.
    pub fn new(realm_dir: impl Into<PathBuf>) -> SecurityConfig {
        SecurityConfig {
            realm_dir: realm_dir.into(),
            reload_interval: DEFAULT_RELOAD_INTERVAL,
            clock: Arc::new(SystemClock),
        }
    }
}

/// The security state of a node with security on.
#[derive(Debug)]
pub struct Security {
    realm: FileRealm,
    api_keys: ApiKeyStore,
    clock: Arc<dyn SecurityClock>,
}

impl Security {
    /// Opens the realm and the API keys under the search `root`.
    pub fn open(root: &Path, config: &SecurityConfig) -> Result<Security, String> {
        let realm = FileRealm::open(&config.realm_dir, config.reload_interval)
            .map_err(|e| format!("HTTP security realm: {e}"))?;
        let api_keys = ApiKeyStore::open(root)?;
        Ok(Security {
            realm,
            api_keys,
            clock: Arc::clone(&config.clock),
        })
    }

    /// The file realm.
    pub fn realm(&self) -> &FileRealm {
        &self.realm
    }
}

/// Authorizes `req` of the caller `auth` (authenticated before its body
/// was read; `None` when security is off) before it is routed. `Ok(None)`:
/// go on (the request's index expression may have been narrowed and
/// [`EsRequest::grant`] set); `Ok(Some(reply))`: a security endpoint,
/// answered; `Err`: a 401 or 403 to send.
pub async fn guard(
    node: &Arc<Node>,
    auth: Option<Authentication>,
    req: &mut EsRequest,
) -> Result<Option<Reply>> {
    let endpoint = rest::Endpoint::of(req);
    let Some(security) = node.security.clone() else {
        return match endpoint {
            Some(_) => Err(EsError::Security {
                status: 500,
                reason: "security is not enabled on this node: set http_security_dir to a file realm directory".into(),
                additional: None,
            }),
            None => Ok(None),
        };
    };
    let Some(auth) = auth else {
        return Err(EsError::Internal(
            "a request reached authorization unauthenticated".into(),
        ));
    };
    if let Some(endpoint) = endpoint {
        let request = req.clone();
        let reply =
            tokio::task::spawn_blocking(move || rest::serve(&security, &auth, endpoint, &request))
                .await
                .map_err(|e| EsError::Internal(format!("security request failed: {e}")))??;
        return Ok(Some(reply));
    }
    authorize::authorize(node, &auth, req)?;
    req.grant = Some(Arc::new(grant::Grant::new(Arc::clone(node), auth)));
    Ok(None)
}
