//! Before the phases: ask the server who it is, delete the index with `--fresh`, create it
//! with the track's settings and mapping when missing, and count what it already holds.

use bytes::Bytes;
use hyper::Method;
use serde_json::Value;

use super::Run;
use crate::eventdata::args::Phase;
use crate::eventdata::http::{BodyKind, HttpFailure};
use crate::eventdata::mapping;
use crate::eventdata::replies;
use crate::eventdata::report::{ServerInfo, SetupResult};
use crate::LabError;

fn unreachable(failure: HttpFailure) -> LabError {
    LabError::Http {
        request: failure.request,
        reason: failure.reason,
    }
}

fn refused(request: String, reason: String) -> LabError {
    LabError::Http { request, reason }
}

/// `GET /`: name and version. An unreachable server fails the run here.
pub(crate) async fn server_info(
    run: &Run,
    notes: &mut Vec<String>,
) -> Result<ServerInfo, LabError> {
    let reply = run.client.get("/").await.map_err(unreachable)?;
    let Ok(value) = reply.json() else {
        notes.push(format!("GET / did not return JSON ({})", reply.describe()));
        return Ok(ServerInfo::default());
    };
    let text = |v: &Value| v.as_str().map(str::to_owned);
    Ok(ServerInfo {
        name: text(&value["name"]),
        version: text(&value["version"]["number"]),
        tagline: text(&value["tagline"]),
    })
}

/// Prepares the index for the phases.
pub(crate) async fn prepare_index(
    run: &Run,
    notes: &mut Vec<String>,
) -> Result<SetupResult, LabError> {
    let index_path = run.path("");
    let mut setup = SetupResult::default();
    if run.args.fresh {
        let reply = run
            .client
            .send(Method::DELETE, &index_path, BodyKind::Json, Bytes::new())
            .await
            .map_err(unreachable)?;
        match reply.status {
            200..=299 => setup.deleted = true,
            404 => {}
            _ => return Err(refused(format!("DELETE {index_path}"), reply.describe())),
        }
    }
    let exists = run.client.get(&index_path).await.map_err(unreachable)?;
    let writes = run.args.runs(Phase::Index) || run.args.runs(Phase::Mixed);
    match exists.status {
        200..=299 => {}
        404 if writes => {
            let body = mapping::create_index_body(&run.args);
            let reply = run
                .client
                .send_json(Method::PUT, &index_path, &body)
                .await
                .map_err(unreachable)?;
            if !reply.is_success() {
                return Err(refused(format!("PUT {index_path}"), reply.describe()));
            }
            setup.created = true;
            return Ok(setup);
        }
        404 => {
            return Err(LabError::Config(format!(
                "index {} does not exist: run the index phase first",
                run.args.index
            )))
        }
        _ => return Err(refused(format!("GET {index_path}"), exists.describe())),
    }
    let count_path = run.path("/_count");
    let reply = run.client.get(&count_path).await.map_err(unreachable)?;
    setup.docs_before =
        replies::count(&reply).map_err(|why| refused(format!("GET {count_path}"), why))?;
    if setup.docs_before > 0 {
        notes.push(format!(
            "the index already held {} documents (use --fresh to start empty); counts include them",
            setup.docs_before
        ));
    }
    Ok(setup)
}
