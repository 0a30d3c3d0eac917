//! HTTP security over a real socket: a file realm with users of the
//! built-in and custom roles, 401s and 403s with Elasticsearch's texts,
//! cluster settings, index patterns and wildcard expansion, per-item
//! checks of `_bulk`, `_mget` and `_msearch`, and the API key lifecycle
//! (limited privileges, expiry by a manual clock, invalidation, restart).

use crate::support;

use std::sync::Arc;

use base64::Engine;
use serde_json::{json, Value};
use strata_es::security::clock::ManualClock;
use strata_es::security::realm::files;
use strata_es::SecurityConfig;
use support::{Response, TestServer};

const LIMIT: usize = 1 << 20;
const START: u64 = 1_700_000_000_000;

/// `admin` (superuser), `val` (viewer), `lw` (logs-* reader/writer who
/// may create its own API keys), `nobody` (no roles), all with password
/// `password`; bcrypt at its lowest cost.
fn realm(dir: &std::path::Path) {
    let hash = bcrypt::hash("password", 4).unwrap();
    let mut users = files::Users::new();
    let mut roles = files::UsersRoles::new();
    for (user, role) in [
        ("admin", "superuser"),
        ("val", "viewer"),
        ("lw", "logs_rw"),
        ("nobody", ""),
    ] {
        users.insert(user.into(), hash.clone());
        if !role.is_empty() {
            roles.insert(role.into(), vec![user.into()]);
        }
    }
    files::write_users(dir, &users).unwrap();
    files::write_users_roles(dir, &roles).unwrap();
    std::fs::write(
        dir.join(files::ROLES),
        "logs_rw:\n  cluster: [manage_own_api_key]\n  indices:\n    - names: ['logs-*']\n      privileges: [read, write, create_index, view_index_metadata]\n",
    )
    .unwrap();
}

async fn secured(dir: Arc<tempfile::TempDir>, clock: Arc<ManualClock>) -> TestServer {
    let realm_dir = dir.path().join("realm");
    if !realm_dir.exists() {
        std::fs::create_dir_all(&realm_dir).unwrap();
        realm(&realm_dir);
    }
    let mut config = SecurityConfig::new(realm_dir);
    config.clock = clock;
    TestServer::start_with(dir, LIMIT, Some(config)).await
}

fn basic(user: &str, password: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    )
}

/// Requests with one `Authorization` value.
struct As<'a> {
    s: &'a TestServer,
    auth: String,
}

impl<'a> As<'a> {
    fn user(s: &'a TestServer, user: &str) -> As<'a> {
        As {
            s,
            auth: basic(user, "password"),
        }
    }

    fn key(s: &'a TestServer, encoded: &str) -> As<'a> {
        As {
            s,
            auth: format!("ApiKey {encoded}"),
        }
    }

    async fn json(&self, method: &str, path: &str, body: Option<Value>) -> Response {
        let body = body.map(|b| b.to_string().into_bytes());
        let headers = [
            ("Content-Type", "application/json"),
            ("Authorization", self.auth.as_str()),
        ];
        self.s.send(method, path, &headers, body.as_deref()).await
    }

    async fn ndjson(&self, path: &str, lines: &[Value]) -> Response {
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let headers = [
            ("Content-Type", "application/x-ndjson"),
            ("Authorization", self.auth.as_str()),
        ];
        self.s
            .send("POST", path, &headers, Some(body.as_bytes()))
            .await
    }
}

fn reason(r: &Response) -> String {
    r.json()["error"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Indices `logs-a` (2 docs), `logs-b` (1), `metrics` (1), created by admin.
async fn with_data(s: &TestServer) {
    let admin = As::user(s, "admin");
    for (index, n) in [("logs-a", 2), ("logs-b", 1), ("metrics", 1)] {
        assert_eq!(
            admin.json("PUT", &format!("/{index}"), None).await.status,
            200
        );
        for i in 0..n {
            let r = admin
                .json(
                    "PUT",
                    &format!("/{index}/_doc/{i}?refresh=true"),
                    Some(json!({"n": i})),
                )
                .await;
            assert_eq!(r.status, 201, "{}", r.text());
        }
    }
}

fn hits(r: &Response) -> Vec<String> {
    let mut out: Vec<String> = r.json()["hits"]["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits: {}", r.text()))
        .iter()
        .map(|h| h["_index"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_need_credentials() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let s = secured(dir, Arc::new(ManualClock::new(START))).await;
    assert!(s.node.requires_authentication());

    let r = s.json("GET", "/", None).await;
    assert_eq!(r.status, 401);
    let challenges: Vec<&str> = r
        .headers
        .iter()
        .filter(|(k, _)| k == "www-authenticate")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(
        challenges,
        ["Basic realm=\"security\" charset=\"UTF-8\"", "ApiKey"]
    );
    let body = r.json();
    assert_eq!(body["error"]["type"], "security_exception");
    assert_eq!(
        body["error"]["reason"],
        "missing authentication credentials for REST request [/]"
    );
    assert_eq!(body["error"]["header"]["WWW-Authenticate"][1], "ApiKey");
    assert_eq!(body["status"], 401);

    let wrong = As {
        s: &s,
        auth: basic("admin", "nope"),
    };
    let r = wrong.json("GET", "/_search?q=x", None).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        reason(&r),
        "unable to authenticate user [admin] for REST request [/_search?q=x]"
    );
    let ghost = As {
        s: &s,
        auth: basic("ghost", "password"),
    };
    assert_eq!(ghost.json("GET", "/", None).await.status, 401);
    let garbled = As {
        s: &s,
        auth: "Basic !!!".into(),
    };
    assert_eq!(
        reason(&garbled.json("GET", "/", None).await),
        "invalid basic authentication header encoding"
    );
    // The cached password does not let a wrong one through.
    assert_eq!(
        As::user(&s, "admin").json("GET", "/", None).await.status,
        200
    );
    assert_eq!(wrong.json("GET", "/", None).await.status, 401);
    // Unknown paths are answered after authentication.
    assert_eq!(s.json("GET", "/_nope", None).await.status, 401);
    assert_eq!(
        As::user(&s, "admin")
            .json("GET", "/_nope", None)
            .await
            .status,
        400
    );

    let who = As::user(&s, "val")
        .json("GET", "/_security/_authenticate", None)
        .await
        .json();
    assert_eq!(
        who,
        json!({
            "username": "val", "roles": ["viewer"], "full_name": null, "email": null,
            "metadata": {}, "enabled": true,
            "authentication_realm": {"name": "default_file", "type": "file"},
            "lookup_realm": {"name": "default_file", "type": "file"},
            "authentication_type": "realm"
        })
    );
    let r = As::user(&s, "nobody").json("GET", "/", None).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        reason(&r),
        "action [cluster:monitor/main] is unauthorized for user [nobody] with effective roles [], this action is granted by the cluster privileges [monitor,manage,all]"
    );
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anonymous_requests_are_refused_before_their_body_is_read() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let s = secured(dir, Arc::new(ManualClock::new(START))).await;
    // The body is declared but never sent: the 401 must not wait for it.
    let mut stream = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let head = "POST /logs/_doc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 900000\r\n\r\n{\"a\":";
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut reply = vec![0u8; 12];
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_exact(&mut reply),
    )
    .await
    .expect("answered without the body")
    .unwrap();
    assert_eq!(&reply, b"HTTP/1.1 401");
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_settings_need_manage() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let s = secured(dir, Arc::new(ManualClock::new(START))).await;
    with_data(&s).await;
    let off = json!({"persistent": {"action.destructive_requires_name": false}});
    assert_eq!(
        s.json("PUT", "/_cluster/settings", Some(off.clone()))
            .await
            .status,
        401
    );
    let r = As::user(&s, "val")
        .json("PUT", "/_cluster/settings", Some(off.clone()))
        .await;
    assert_eq!(r.status, 403);
    assert_eq!(
        reason(&r),
        "action [cluster:admin/settings/update] is unauthorized for user [val] with effective roles [viewer], this action is granted by the cluster privileges [manage,all]"
    );
    assert_eq!(
        As::user(&s, "val")
            .json("GET", "/_cluster/settings", None)
            .await
            .status,
        200
    );
    // The guard is still on: a wildcard delete is refused, not rewritten.
    let admin = As::user(&s, "admin");
    let r = admin.json("DELETE", "/logs-*", None).await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(
        admin
            .json("PUT", "/_cluster/settings", Some(off))
            .await
            .status,
        200
    );
    // Off, a wildcard delete reaches only what the caller may delete.
    let lw = As::user(&s, "lw");
    let r = lw.json("DELETE", "/logs-*", None).await;
    assert_eq!(r.status, 403, "lw has no delete_index: {}", r.text());
    assert!(reason(&r).contains("indices:admin/delete"));
    assert_eq!(admin.json("DELETE", "/*", None).await.status, 200);
    assert_eq!(
        admin
            .json("GET", "/_cat/indices?format=json", None)
            .await
            .json(),
        json!([])
    );
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_patterns_and_wildcards() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let s = secured(dir, Arc::new(ManualClock::new(START))).await;
    with_data(&s).await;
    let lw = As::user(&s, "lw");

    // Writes: inside logs-* (creating a new index too), not elsewhere.
    assert_eq!(lw.json("PUT", "/logs-c", None).await.status, 200);
    assert_eq!(
        lw.json("PUT", "/logs-d/_doc/1?refresh=true", Some(json!({"n": 1})))
            .await
            .status,
        201
    );
    let r = lw.json("PUT", "/metrics-2", None).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        reason(&r),
        "action [indices:admin/create] is unauthorized for user [lw] with effective roles [logs_rw] on indices [metrics-2], this action is granted by the index privileges [create_index,manage,all]"
    );
    let r = lw.json("PUT", "/metrics/_doc/9", Some(json!({}))).await;
    assert_eq!(r.status, 403);
    assert!(
        reason(&r).contains("index privileges [create,index,write,all]"),
        "{}",
        reason(&r)
    );

    // Searches: wildcards and "everything" expand to logs-* only.
    let expect = ["logs-a", "logs-a", "logs-b", "logs-d"];
    assert_eq!(hits(&lw.json("GET", "/_search", None).await), expect);
    assert_eq!(hits(&lw.json("GET", "/*/_search", None).await), expect);
    assert_eq!(
        hits(&lw.json("GET", "/_all/_search?size=10", None).await),
        expect
    );
    assert_eq!(lw.json("GET", "/_count", None).await.json()["count"], 4);
    assert_eq!(
        hits(&lw.json("GET", "/met*/_search", None).await),
        Vec::<String>::new()
    );
    let r = lw.json("GET", "/logs-a,metrics/_search", None).await;
    assert_eq!(r.status, 403);
    assert!(
        reason(&r).contains("on indices [metrics]"),
        "{}",
        reason(&r)
    );
    let r = lw
        .json(
            "GET",
            "/logs-a,metrics/_search?ignore_unavailable=true",
            None,
        )
        .await;
    assert_eq!(hits(&r), ["logs-a", "logs-a"]);
    assert_eq!(lw.json("GET", "/metrics/_doc/0", None).await.status, 403);
    assert_eq!(lw.json("GET", "/logs-a/_doc/0", None).await.status, 200);
    assert_eq!(lw.json("HEAD", "/metrics", None).await.status, 403);
    let got = lw.json("GET", "/*", None).await.json();
    let mut names: Vec<&String> = got.as_object().unwrap().keys().collect();
    names.sort();
    assert_eq!(names, ["logs-a", "logs-b", "logs-c", "logs-d"]);

    // The viewer reads everything and writes nothing.
    let val = As::user(&s, "val");
    assert_eq!(val.json("GET", "/_count", None).await.json()["count"], 5);
    let cat = val
        .json("GET", "/_cat/indices?format=json&h=index", None)
        .await;
    assert_eq!(cat.json().as_array().unwrap().len(), 5);
    let r = val.json("POST", "/logs-a/_doc", Some(json!({}))).await;
    assert_eq!(r.status, 403);
    assert!(reason(&r).starts_with(
        "action [indices:data/write/index:op_type/create] is unauthorized for user [val]"
    ));
    assert_eq!(val.json("POST", "/logs-a/_refresh", None).await.status, 403);
    // lw has no cluster monitor privilege: _cat/indices needs it.
    assert_eq!(lw.json("GET", "/_cat/indices", None).await.status, 403);

    // Aliases: an alias over metrics is invisible to lw's wildcards.
    let admin = As::user(&s, "admin");
    let r = admin
        .json(
            "POST",
            "/_aliases",
            Some(json!({"actions": [{"add": {"index": "metrics", "alias": "logs-metrics"}}]})),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        hits(&lw.json("GET", "/_search?size=20", None).await).len(),
        5,
        "logs-metrics matches logs-*"
    );
    let r = lw
        .json(
            "POST",
            "/_aliases",
            Some(json!({"actions": [{"add": {"index": "metrics", "alias": "logs-x"}}]})),
        )
        .await;
    assert_eq!(r.status, 403);
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_mget_and_msearch_items_are_checked_one_by_one() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let s = secured(dir, Arc::new(ManualClock::new(START))).await;
    with_data(&s).await;
    let lw = As::user(&s, "lw");
    let r = lw
        .ndjson(
            "/_bulk?refresh=true",
            &[
                json!({"index": {"_index": "logs-a", "_id": "b1"}}),
                json!({"n": 1}),
                json!({"index": {"_index": "metrics", "_id": "b2"}}),
                json!({"n": 2}),
                json!({"create": {"_index": "logs-new", "_id": "b3"}}),
                json!({"n": 3}),
                json!({"delete": {"_index": "metrics", "_id": "0"}}),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["errors"], true);
    let items = body["items"].as_array().unwrap();
    assert_eq!(items[0]["index"]["status"], 201);
    assert_eq!(items[1]["index"]["status"], 403);
    assert_eq!(items[1]["index"]["error"]["type"], "security_exception");
    assert_eq!(items[2]["create"]["status"], 201);
    assert_eq!(items[3]["delete"]["status"], 403);
    let admin = As::user(&s, "admin");
    assert_eq!(
        admin.json("GET", "/metrics/_doc/b2", None).await.status,
        404
    );
    assert_eq!(admin.json("GET", "/metrics/_doc/0", None).await.status, 200);
    // The viewer holds no write privilege anywhere: the whole bulk is refused.
    let r = As::user(&s, "val")
        .ndjson(
            "/_bulk",
            &[json!({"delete": {"_index": "logs-a", "_id": "0"}})],
        )
        .await;
    assert_eq!(r.status, 403);
    assert!(reason(&r).starts_with("action [indices:data/write/bulk] is unauthorized"));

    let r = lw
        .json("POST", "/_mget", Some(json!({"docs": [{"_index": "logs-a", "_id": "0"}, {"_index": "metrics", "_id": "0"}]})))
        .await;
    let docs = r.json()["docs"].clone();
    assert_eq!(docs[0]["found"], true);
    assert_eq!(docs[1]["error"]["type"], "security_exception");

    let r = lw
        .ndjson(
            "/_msearch",
            &[
                json!({"index": "metrics"}),
                json!({}),
                json!({"index": "*"}),
                json!({"size": 20}),
                json!({}),
                json!({"size": 20}),
            ],
        )
        .await;
    let responses = r.json()["responses"].clone();
    assert_eq!(responses[0]["status"], 403);
    let names = |v: &Value| -> usize { v["hits"]["hits"].as_array().map_or(0, Vec::len) };
    assert_eq!(names(&responses[1]), 5, "logs-a (3) + logs-b + logs-new");
    assert_eq!(names(&responses[2]), 5);
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_keys_limited_expired_invalidated_and_durable() {
    let dir = Arc::new(tempfile::tempdir().unwrap());
    let clock = Arc::new(ManualClock::new(START));
    let s = secured(Arc::clone(&dir), Arc::clone(&clock)).await;
    with_data(&s).await;
    let lw = As::user(&s, "lw");

    // The viewer may not create keys.
    let r = As::user(&s, "val")
        .json("POST", "/_security/api_key", Some(json!({"name": "v"})))
        .await;
    assert_eq!(r.status, 403);
    assert!(reason(&r).ends_with("this action is granted by the cluster privileges [manage_own_api_key,manage_api_key,manage_security,all]"));

    // A read-everything key of lw reads only what lw may read, and writes nothing.
    let created = lw
        .json(
            "POST",
            "/_security/api_key",
            Some(json!({"name": "reader", "role_descriptors": {"r": {"indices": [{"names": ["*"], "privileges": ["read"]}]}}})),
        )
        .await;
    assert_eq!(created.status, 200, "{}", created.text());
    let created = created.json();
    let key = As::key(&s, created["encoded"].as_str().unwrap());
    assert_eq!(
        hits(&key.json("GET", "/_search", None).await),
        ["logs-a", "logs-a", "logs-b"]
    );
    assert_eq!(key.json("GET", "/metrics/_search", None).await.status, 403);
    let r = key.json("PUT", "/logs-a/_doc/k", Some(json!({}))).await;
    assert_eq!(r.status, 403);
    assert!(reason(&r).starts_with(&format!(
        "action [indices:data/write/index:op_type/index] is unauthorized for API key id [{}] of user [lw] on indices [logs-a]",
        created["id"].as_str().unwrap()
    )));
    let who = key
        .json("GET", "/_security/_authenticate", None)
        .await
        .json();
    assert_eq!(who["username"], "lw");
    assert_eq!(who["authentication_type"], "api_key");
    assert_eq!(who["authentication_realm"]["type"], "_es_api_key");
    assert_eq!(
        who["api_key"],
        json!({"id": created["id"], "name": "reader"})
    );

    // Expiry by the node's clock.
    let short = lw
        .json(
            "PUT",
            "/_security/api_key",
            Some(json!({"name": "short", "expiration": "1h"})),
        )
        .await
        .json();
    assert_eq!(short["expiration"], START + 3_600_000);
    let short_key = As::key(&s, short["encoded"].as_str().unwrap());
    assert_eq!(
        short_key.json("GET", "/logs-a/_count", None).await.status,
        200
    );
    clock.advance(2 * 3_600_000);
    let r = short_key.json("GET", "/logs-a/_count", None).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.json()["error"]["additional_unsuccessful_credentials"],
        "API key: api key is expired"
    );

    // Listing: lw sees its own keys; admin sees all, by name.
    let mine = lw
        .json("GET", "/_security/api_key?owner=true", None)
        .await
        .json();
    assert_eq!(mine["api_keys"].as_array().unwrap().len(), 2);
    let active = lw
        .json("GET", "/_security/api_key?active_only=true", None)
        .await
        .json();
    assert_eq!(active["api_keys"].as_array().unwrap().len(), 1);
    let by_name = As::user(&s, "admin")
        .json("GET", "/_security/api_key?name=read*", None)
        .await
        .json();
    assert_eq!(by_name["api_keys"][0]["id"], created["id"]);
    assert_eq!(by_name["api_keys"][0]["username"], "lw");

    // A restart keeps the key.
    s.stop(true).await;
    let s = secured(Arc::clone(&dir), Arc::clone(&clock)).await;
    let key = As::key(&s, created["encoded"].as_str().unwrap());
    assert_eq!(
        key.json("GET", "/logs-b/_count", None).await.json()["count"],
        1
    );
    let lw = As::user(&s, "lw");
    let r = lw
        .json(
            "DELETE",
            "/_security/api_key",
            Some(json!({"ids": [created["id"]], "owner": true})),
        )
        .await;
    assert_eq!(r.json()["invalidated_api_keys"], json!([created["id"]]));
    let r = key.json("GET", "/logs-b/_count", None).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.json()["error"]["additional_unsuccessful_credentials"],
        format!(
            "API key: api key [{}] has been invalidated",
            created["id"].as_str().unwrap()
        )
    );
    let bad = As::key(
        &s,
        &base64::engine::general_purpose::STANDARD
            .encode(format!("{}:wrong", created["id"].as_str().unwrap())),
    );
    assert_eq!(bad.json("GET", "/", None).await.status, 401);

    // ... and so does the invalidation.
    s.stop(true).await;
    let s = secured(dir, clock).await;
    assert_eq!(
        As::key(&s, created["encoded"].as_str().unwrap())
            .json("GET", "/", None)
            .await
            .status,
        401
    );
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn security_endpoints_without_security() {
    let s = TestServer::start(LIMIT).await;
    assert!(!s.node.requires_authentication());
    assert_eq!(s.json("GET", "/", None).await.status, 200);
    let r = s.json("GET", "/_security/_authenticate", None).await;
    assert_eq!(r.status, 500);
    assert_eq!(r.json()["error"]["type"], "security_exception");
    s.stop(true).await;
}
