//! Credentials from the `Authorization` header (`Basic base64(user:pass)`
//! or `ApiKey base64(id:key)`), checked against the file realm or the API
//! keys, with Elasticsearch's 401 reasons.

use axum::http::{header, HeaderMap};
use base64::Engine;

use super::api_key;
use super::subject::Authentication;
use super::Security;
use crate::error::{EsError, Result};

/// Credentials a request carries.
#[derive(Debug)]
enum Credentials {
    Basic { user: String, password: Vec<u8> },
    ApiKey { id: String, secret: String },
}

fn unauthenticated(reason: String, additional: Option<String>) -> EsError {
    EsError::Security {
        status: 401,
        reason,
        additional,
    }
}

fn credentials(headers: &HeaderMap) -> Result<Option<Credentials>> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or("").trim();
    let Some((scheme, token)) = text.split_once(' ') else {
        return Ok(None);
    };
    let decode = |t: &str| base64::engine::general_purpose::STANDARD.decode(t.trim());
    if scheme.eq_ignore_ascii_case("Basic") {
        let bytes = decode(token).map_err(|_| {
            unauthenticated("invalid basic authentication header encoding".into(), None)
        })?;
        let colon = bytes.iter().position(|b| *b == b':').ok_or_else(|| {
            unauthenticated("invalid basic authentication header value".into(), None)
        })?;
        let user = String::from_utf8(bytes[..colon].to_vec()).map_err(|_| {
            unauthenticated("invalid basic authentication header encoding".into(), None)
        })?;
        return Ok(Some(Credentials::Basic {
            user,
            password: bytes[colon + 1..].to_vec(),
        }));
    }
    if scheme.eq_ignore_ascii_case("ApiKey") {
        let invalid = || unauthenticated("invalid ApiKey value".into(), None);
        let bytes = decode(token).map_err(|_| invalid())?;
        let text = String::from_utf8(bytes).map_err(|_| invalid())?;
        let (id, secret) = text.split_once(':').ok_or_else(invalid)?;
        return Ok(Some(Credentials::ApiKey {
            id: id.to_string(),
            secret: secret.to_string(),
        }));
    }
    // Another scheme (Bearer, Negotiate): none this node accepts.
    Ok(None)
}

impl Security {
    /// Authenticates a request for `uri` (path and query, for messages).
    /// Password checks that miss the cache run bcrypt on the blocking pool.
    pub async fn authenticate(
        self: &std::sync::Arc<Self>,
        headers: &HeaderMap,
        uri: &str,
    ) -> Result<Authentication> {
        match credentials(headers)? {
            None => Err(unauthenticated(
                format!("missing authentication credentials for REST request [{uri}]"),
                None,
            )),
            Some(Credentials::Basic { user, password }) => {
                if let Some(auth) = self.realm.authenticate_cached(&user, &password) {
                    return Ok(auth);
                }
                let this = std::sync::Arc::clone(self);
                let name = user.clone();
                let checked =
                    tokio::task::spawn_blocking(move || this.realm.authenticate(&name, &password))
                        .await
                        .map_err(|e| EsError::Internal(format!("password check failed: {e}")))?;
                checked.map_err(|_| {
                    unauthenticated(
                        format!("unable to authenticate user [{user}] for REST request [{uri}]"),
                        None,
                    )
                })
            }
            Some(Credentials::ApiKey { id, secret }) => {
                api_key::authenticate(&self.api_keys, &id, &secret, self.clock.now_millis())
                    .map_err(|why| {
                        unauthenticated(
                            "unable to authenticate with provided credentials and anonymous access is not allowed for this request".into(),
                            Some(format!("API key: {why}")),
                        )
                    })
            }
        }
    }
}
