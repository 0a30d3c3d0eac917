//! API keys (Elasticsearch's `_security/api_key`): create, get,
//! invalidate, and authenticate `Authorization: ApiKey base64(id:key)`.
//!
//! A key's permission is the intersection of its own `role_descriptors`
//! (if given) and its creator's roles when it was created (`limited_by`,
//! a snapshot); a key created by a key (derived) must have empty role
//! descriptors, so it can do nothing but authenticate. Callers with only
//! `manage_own_api_key` see and invalidate their own keys only.
//!
//! - `store`: the durable key file.
//! - `expiration`: Elasticsearch time values (`1d`, `30m`).

pub mod expiration;
pub mod store;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use self::store::{ApiKeyRecord, ApiKeyStore};
use super::privilege::glob;
use super::realm::{REALM_NAME, REALM_TYPE};
use super::role::{ClusterDecision, Role};
use super::subject::Authentication;
use crate::error::{EsError, Result};

/// The realm name and type an API key authenticates through.
pub const API_KEY_REALM: &str = "_es_api_key";

/// Longest key name (Elasticsearch's).
const MAX_NAME: usize = 1024;

/// Which keys a caller may get or invalidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every key.
    All,
    /// The caller's own keys (`manage_own_api_key`).
    Own,
}

impl Scope {
    /// The scope a cluster decision gives (`None`: not allowed at all).
    pub fn of(decision: ClusterDecision) -> Option<Scope> {
        match decision {
            ClusterDecision::Granted => Some(Scope::All),
            ClusterDecision::OwnApiKeys => Some(Scope::Own),
            ClusterDecision::Denied => None,
        }
    }
}

/// `POST|PUT /_security/api_key`: creates a key owned by `auth`'s user.
pub fn create(store: &ApiKeyStore, auth: &Authentication, body: &Value, now: u64) -> Result<Value> {
    let obj = body
        .as_object()
        .ok_or_else(|| EsError::Parse("request body is required".into()))?;
    let mut name = None;
    let mut expiration = None;
    let mut descriptors: Option<Map<String, Value>> = None;
    let mut metadata = json!({});
    for (key, value) in obj {
        match key.as_str() {
            "name" => name = value.as_str().map(str::to_string),
            "expiration" => {
                if !value.is_null() {
                    let text = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_string);
                    expiration = Some(expiration::parse_millis(&text)?);
                }
            }
            "role_descriptors" => match value {
                Value::Object(map) => descriptors = Some(map.clone()),
                Value::Null => {}
                _ => {
                    return Err(EsError::Parse(
                        "[role_descriptors] must be an object".into(),
                    ))
                }
            },
            "metadata" => {
                let meta = value
                    .as_object()
                    .ok_or_else(|| EsError::Parse("[metadata] must be an object".into()))?;
                if let Some(k) = meta.keys().find(|k| k.starts_with('_')) {
                    return Err(EsError::ActionValidation(format!(
                        "metadata keys may not start with [_], found [{k}]"
                    )));
                }
                metadata = value.clone();
            }
            other => {
                return Err(EsError::XContentParse(format!(
                    "[api_key_request] unknown field [{other}]"
                )))
            }
        }
    }
    let name = name.ok_or_else(|| EsError::ActionValidation("api key name is required".into()))?;
    validate_name(&name)?;
    if let Some(map) = &descriptors {
        for (role, body) in map {
            Role::parse(role, body).map_err(EsError::IllegalArgument)?;
        }
    }
    let limited_by = match auth {
        Authentication::User { permission, .. } => permission.descriptors(),
        Authentication::ApiKey { id, .. } => {
            // A derived key: explicitly without privileges.
            let empty = descriptors.as_ref().is_some_and(|m| {
                m.iter()
                    .all(|(n, b)| Role::parse(n, b).is_ok_and(|r| r.is_empty()))
            });
            if !empty {
                return Err(EsError::IllegalArgument(
                    "creating derived api keys requires an explicit role descriptor that is empty (has no privileges)".into(),
                ));
            }
            store
                .get(id)
                .map(|k| k.record.limited_by.clone())
                .unwrap_or_default()
        }
    };
    let id = store::random_token(15);
    let secret = store::random_token(16);
    let record = ApiKeyRecord {
        id: id.clone(),
        name: name.clone(),
        hash: store::hash_secret(&secret),
        creation: now,
        expiration: expiration.map(|e| now.saturating_add(e)),
        invalidated: false,
        invalidation: None,
        username: auth.username().to_string(),
        realm: REALM_NAME.into(),
        realm_type: REALM_TYPE.into(),
        metadata,
        role_descriptors: descriptors,
        limited_by,
    };
    let expires = record.expiration;
    store.update(now, |keys| {
        keys.insert(id.clone(), record);
        Ok(())
    })?;
    let encoded = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        format!("{id}:{secret}"),
    );
    let mut reply = json!({"id": id, "name": name, "api_key": secret, "encoded": encoded});
    if let Some(e) = expires {
        reply["expiration"] = json!(e);
    }
    Ok(reply)
}

fn validate_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(EsError::ActionValidation("api key name is required".into()));
    }
    if name.chars().count() > MAX_NAME {
        return Err(EsError::ActionValidation(format!(
            "api key name may not be more than [{MAX_NAME}] characters long"
        )));
    }
    if name.starts_with('_') {
        return Err(EsError::ActionValidation(
            "api key name may not begin with an underscore".into(),
        ));
    }
    Ok(())
}

/// Which keys a get or invalidate names.
#[derive(Debug, Default, Clone)]
pub struct Selector {
    /// Key ids.
    pub ids: Vec<String>,
    /// A key name or `*` pattern.
    pub name: Option<String>,
    /// The owner's name.
    pub username: Option<String>,
    /// The owner's realm.
    pub realm_name: Option<String>,
    /// Only the caller's keys.
    pub owner: bool,
}

impl Selector {
    fn is_empty(&self) -> bool {
        self.ids.is_empty()
            && self.name.is_none()
            && self.username.is_none()
            && self.realm_name.is_none()
    }

    fn validate(&self) -> Result<()> {
        if !self.ids.is_empty()
            && (self.name.is_some() || self.username.is_some() || self.realm_name.is_some())
        {
            return Err(EsError::ActionValidation(
                "username or realm name must not be specified when the api key id or api key name is specified".into(),
            ));
        }
        if self.owner && (self.username.is_some() || self.realm_name.is_some()) {
            return Err(EsError::ActionValidation(
                "username or realm name must not be specified when the current user is the owner"
                    .into(),
            ));
        }
        Ok(())
    }

    fn selects(&self, r: &ApiKeyRecord, auth: &Authentication) -> bool {
        (self.ids.is_empty() || self.ids.contains(&r.id))
            && self.name.as_ref().is_none_or(|n| glob::matches(n, &r.name))
            && self.username.as_ref().is_none_or(|u| *u == r.username)
            && self.realm_name.as_ref().is_none_or(|m| *m == r.realm)
            && (!self.owner || owned_by(r, auth))
    }

    /// Whether an own-scope caller names only its own keys, in one of the
    /// forms Elasticsearch accepts.
    fn names_own_keys(&self, auth: &Authentication) -> bool {
        self.owner
            || (self.username.as_deref() == Some(auth.username())
                && self.realm_name.as_deref() == Some(REALM_NAME)
                && auth.api_key_id().is_none())
            || auth
                .api_key_id()
                .is_some_and(|own| self.ids.len() == 1 && self.ids[0] == own)
    }
}

/// Whether the caller (a user, not a key) owns `r`.
fn owned_by(r: &ApiKeyRecord, auth: &Authentication) -> bool {
    auth.api_key_id().is_none() && r.username == auth.username() && r.realm == REALM_NAME
}

/// Whether an own-scope caller may see `r`: a user its own keys, a key itself.
fn visible_to_own(r: &ApiKeyRecord, auth: &Authentication) -> bool {
    match auth.api_key_id() {
        Some(id) => r.id == id,
        None => owned_by(r, auth),
    }
}

/// `GET /_security/api_key`.
pub fn get(
    store: &ApiKeyStore,
    auth: &Authentication,
    scope: Scope,
    selector: &Selector,
    active_only: bool,
    with_limited_by: bool,
    now: u64,
) -> Result<Value> {
    selector.validate()?;
    let mut keys: Vec<Value> = store
        .all()
        .iter()
        .map(|k| &k.record)
        .filter(|r| selector.selects(r, auth))
        .filter(|r| scope == Scope::All || visible_to_own(r, auth))
        .filter(|r| !active_only || (!r.invalidated && !r.expired(now)))
        .map(|r| describe(r, with_limited_by))
        .collect();
    keys.sort_by_key(|k| k["creation"].as_u64());
    Ok(json!({"api_keys": keys}))
}

fn describe(r: &ApiKeyRecord, with_limited_by: bool) -> Value {
    let mut out = json!({
        "id": r.id,
        "name": r.name,
        "type": "rest",
        "creation": r.creation,
        "invalidated": r.invalidated,
        "username": r.username,
        "realm": r.realm,
        "realm_type": r.realm_type,
        "metadata": r.metadata,
        "role_descriptors": r.role_descriptors.clone().unwrap_or_default(),
    });
    if let Some(e) = r.expiration {
        out["expiration"] = json!(e);
    }
    if let Some(i) = r.invalidation {
        out["invalidation"] = json!(i);
    }
    if with_limited_by {
        out["limited_by"] = json!([r.limited_by]);
    }
    out
}

/// `DELETE /_security/api_key`.
pub fn invalidate(
    store: &ApiKeyStore,
    auth: &Authentication,
    scope: Scope,
    selector: &Selector,
    now: u64,
) -> Result<Value> {
    selector.validate()?;
    if selector.is_empty() && !selector.owner {
        return Err(EsError::ActionValidation(
            "One of [api key id(s), api key name, username, realm name] must be specified if [owner] flag is false".into(),
        ));
    }
    if scope == Scope::Own && !selector.names_own_keys(auth) {
        return Err(auth.denied("cluster:admin/xpack/security/api_key/invalidate", &[]));
    }
    let (done, before) = store.update(now, |keys: &mut BTreeMap<String, ApiKeyRecord>| {
        let (mut done, mut before) = (Vec::new(), Vec::new());
        for r in keys.values_mut() {
            if !selector.selects(r, auth) || (scope == Scope::Own && !visible_to_own(r, auth)) {
                continue;
            }
            if r.invalidated {
                before.push(r.id.clone());
            } else {
                r.invalidated = true;
                r.invalidation = Some(now);
                done.push(r.id.clone());
            }
        }
        Ok((done, before))
    })?;
    Ok(json!({
        "invalidated_api_keys": done,
        "previously_invalidated_api_keys": before,
        "error_count": 0,
    }))
}

/// Checks `id:secret`; the error is Elasticsearch's reason.
pub fn authenticate(
    store: &ApiKeyStore,
    id: &str,
    secret: &str,
    now: u64,
) -> Result<Authentication, String> {
    let key = store
        .get(id)
        .ok_or_else(|| format!("unable to find apikey with id {id}"))?;
    let r = &key.record;
    if r.invalidated {
        return Err(format!("api key [{id}] has been invalidated"));
    }
    if !store::verify_secret(secret, &r.hash) {
        return Err(format!("invalid credentials for API key [{id}]"));
    }
    if r.expired(now) {
        return Err("api key is expired".into());
    }
    Ok(Authentication::ApiKey {
        id: r.id.clone(),
        name: r.name.clone(),
        owner: r.username.clone(),
        key: key.key.clone(),
        limited_by: key.limited_by.clone(),
        metadata: r.metadata.clone(),
    })
}

#[cfg(test)]
mod tests;
