//! [`guard`]: the one call per request, after its body is read and before
//! routing, that answers the security endpoints and authorizes the rest.

use std::sync::Arc;

use super::subject::Authentication;
use super::{authorize, grant, rest};
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

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
