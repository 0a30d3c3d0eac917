//! The security endpoints: `GET /_security/_authenticate` and
//! `/_security/api_key` (`POST`/`PUT` create, `GET` get, `DELETE`
//! invalidate), answered by the security layer itself since they are
//! about the caller.

use axum::http::Method;
use serde_json::{json, Value};

use super::api_key::{self, Scope, Selector, API_KEY_REALM};
use super::realm::{REALM_NAME, REALM_TYPE};
use super::subject::Authentication;
use super::Security;
use crate::error::{EsError, Result};
use crate::reply::Reply;
use crate::request::EsRequest;

/// A security endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/_security/_authenticate`
    Authenticate,
    /// `/_security/api_key`
    ApiKey,
}

impl Endpoint {
    /// The endpoint `req` is for, if any.
    pub fn of(req: &EsRequest) -> Option<Endpoint> {
        match req.segments.as_slice() {
            [a, b] if a == "_security" && b == "_authenticate" => Some(Endpoint::Authenticate),
            [a, b] if a == "_security" && b == "api_key" => Some(Endpoint::ApiKey),
            _ => None,
        }
    }
}

/// Answers `endpoint` for `auth`. Blocking (API key changes are fsynced).
pub fn serve(
    security: &Security,
    auth: &Authentication,
    endpoint: Endpoint,
    req: &EsRequest,
) -> Result<Reply> {
    let method_not_allowed = |allowed: Vec<&'static str>| EsError::MethodNotAllowed {
        uri: req.uri.clone(),
        method: req.method.to_string(),
        allowed,
    };
    match endpoint {
        Endpoint::Authenticate => match req.method {
            Method::GET => Ok(Reply::ok(authenticate_body(auth))),
            _ => Err(method_not_allowed(vec!["GET"])),
        },
        Endpoint::ApiKey => {
            let now = security.clock.now_millis();
            let action = match req.method {
                Method::POST | Method::PUT => "cluster:admin/xpack/security/api_key/create",
                Method::GET => "cluster:admin/xpack/security/api_key/get",
                Method::DELETE => "cluster:admin/xpack/security/api_key/invalidate",
                _ => return Err(method_not_allowed(vec!["GET", "PUT", "POST", "DELETE"])),
            };
            let scope = Scope::of(auth.cluster(action)).ok_or_else(|| auth.denied(action, &[]))?;
            let store = &security.api_keys;
            let body = match req.method {
                Method::POST | Method::PUT => {
                    api_key::create(store, auth, &req.required_json_body()?, now)?
                }
                Method::GET => {
                    let selector = Selector {
                        ids: req
                            .param("id")
                            .map(|i| vec![i.to_string()])
                            .unwrap_or_default(),
                        name: req.param("name").map(str::to_string),
                        username: req.param("username").map(str::to_string),
                        realm_name: req.param("realm_name").map(str::to_string),
                        owner: req.flag("owner", false)?,
                    };
                    let active_only = req.flag("active_only", false)?;
                    let with_limited_by = req.flag("with_limited_by", false)?;
                    api_key::get(
                        store,
                        auth,
                        scope,
                        &selector,
                        active_only,
                        with_limited_by,
                        now,
                    )?
                }
                _ => {
                    let selector = invalidation(&req.required_json_body()?)?;
                    api_key::invalidate(store, auth, scope, &selector, now)?
                }
            };
            Ok(Reply::ok(body))
        }
    }
}

/// The `DELETE /_security/api_key` body.
fn invalidation(body: &Value) -> Result<Selector> {
    let obj = body
        .as_object()
        .ok_or_else(|| EsError::Parse("request body is required".into()))?;
    let mut selector = Selector::default();
    let text = |key: &str, v: &Value| -> Result<String> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| EsError::Parse(format!("[{key}] must be a string")))
    };
    for (key, value) in obj {
        match key.as_str() {
            "ids" => {
                let list = value
                    .as_array()
                    .ok_or_else(|| EsError::Parse("[ids] must be an array".into()))?;
                for v in list {
                    selector.ids.push(text(key, v)?);
                }
            }
            "id" => selector.ids.push(text(key, value)?),
            "name" => selector.name = Some(text(key, value)?),
            "username" => selector.username = Some(text(key, value)?),
            "realm_name" => selector.realm_name = Some(text(key, value)?),
            "owner" => {
                selector.owner = value
                    .as_bool()
                    .ok_or_else(|| EsError::Parse("[owner] must be a boolean".into()))?
            }
            other => {
                return Err(EsError::XContentParse(format!(
                    "[invalidate_api_key_request] unknown field [{other}]"
                )))
            }
        }
    }
    Ok(selector)
}

/// The `_authenticate` body in Elasticsearch's shape.
pub fn authenticate_body(auth: &Authentication) -> Value {
    match auth {
        Authentication::User {
            username, assigned, ..
        } => json!({
            "username": username,
            "roles": assigned,
            "full_name": null,
            "email": null,
            "metadata": {},
            "enabled": true,
            "authentication_realm": {"name": REALM_NAME, "type": REALM_TYPE},
            "lookup_realm": {"name": REALM_NAME, "type": REALM_TYPE},
            "authentication_type": "realm",
        }),
        // The user's own fields: a file-realm user has no metadata.
        Authentication::ApiKey {
            id, name, owner, ..
        } => json!({
            "username": owner,
            "roles": [],
            "full_name": null,
            "email": null,
            "metadata": {},
            "enabled": true,
            "authentication_realm": {"name": API_KEY_REALM, "type": API_KEY_REALM},
            "lookup_realm": {"name": API_KEY_REALM, "type": API_KEY_REALM},
            "authentication_type": "api_key",
            "api_key": {"id": id, "name": name},
        }),
    }
}
